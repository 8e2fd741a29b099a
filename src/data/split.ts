import { createHash } from "node:crypto";
import type { Split } from "./types.js";

/**
 * The protocol's hash (../shared/BENCHMARK.md): the first 8 hex digits of sha256(utf8(key)) as an unsigned 32-bit
 * integer, divided by 2^32, a number in [0, 1). The split rule and the run-level replay's folds, order and outcome
 * draws all use it.
 */
export function unitHash(key: string): number {
  return parseInt(createHash("sha256").update(key, "utf8").digest("hex").slice(0, 8), 16) / 2 ** 32;
}

/**
 * The protocol's split rule (../shared/BENCHMARK.md): h = first 8 hex digits of
 * sha256(utf8("D/ID")) as an unsigned 32-bit integer, u = h / 2^32;
 * train if u < 0.8, val if u < 0.9, else test.
 */
export function splitOf(dataset: string, itemId: string): Split {
  const u = unitHash(`${dataset}/${itemId}`);
  return u < 0.8 ? "train" : u < 0.9 ? "val" : "test";
}

/** Indices of the items of each split, in item order. */
export function splitIndices(dataset: string, itemIds: readonly string[]): Record<Split, number[]> {
  const out: Record<Split, number[]> = { train: [], val: [], test: [] };
  itemIds.forEach((id, i) => out[splitOf(dataset, id)].push(i));
  return out;
}
