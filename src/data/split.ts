import { createHash } from "node:crypto";
import type { Split } from "./types.js";

/**
 * The protocol's split rule (../shared/BENCHMARK.md): h = first 8 hex digits of
 * sha256(utf8("D/ID")) as an unsigned 32-bit integer, u = h / 2^32;
 * train if u < 0.8, val if u < 0.9, else test.
 */
export function splitOf(dataset: string, itemId: string): Split {
  const hex = createHash("sha256").update(`${dataset}/${itemId}`, "utf8").digest("hex").slice(0, 8);
  const u = parseInt(hex, 16) / 2 ** 32;
  return u < 0.8 ? "train" : u < 0.9 ? "val" : "test";
}

/** Indices of the items of each split, in item order. */
export function splitIndices(dataset: string, itemIds: readonly string[]): Record<Split, number[]> {
  const out: Record<Split, number[]> = { train: [], val: [], test: [] };
  itemIds.forEach((id, i) => out[splitOf(dataset, id)].push(i));
  return out;
}
