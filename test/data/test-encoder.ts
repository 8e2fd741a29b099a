import { createHash } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import type { QueryEncoder } from "../../src/encoders/types.js";

/**
 * A small deterministic encoder for tests: each text maps to a unit vector derived from its sha256.
 * Counts the texts it embedded; can be told to fail after a number of calls, to return bad output, or to run
 * `beforeCall(call)` before each call (call 0 first), e.g. to break the cache folder or abort mid-run.
 */
export class TestEncoder implements QueryEncoder {
  readonly dim: number;
  calls = 0;
  texts = 0;
  constructor(
    readonly id = "test-encoder@1",
    dim = 8,
    private readonly behaviour: {
      failAfterCalls?: number;
      bad?: "nan" | "short" | "count";
      beforeCall?: (call: number) => void;
    } = {},
  ) {
    this.dim = dim;
  }

  static vector(text: string, dim: number): Float32Array {
    const v = new Float32Array(dim);
    let block = createHash("sha256").update(text).digest();
    for (let k = 0; k < dim; k++) {
      if (k % 32 === 0 && k > 0) block = createHash("sha256").update(block).digest();
      v[k] = block[k % 32]! / 255 - 0.5;
    }
    const norm = Math.hypot(...v) || 1;
    for (let k = 0; k < dim; k++) v[k]! /= norm;
    return v;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    this.behaviour.beforeCall?.(this.calls);
    if (this.behaviour.failAfterCalls !== undefined && this.calls >= this.behaviour.failAfterCalls) {
      throw new Error("test encoder: simulated crash");
    }
    this.calls++;
    this.texts += texts.length;
    const out = texts.map((t) => TestEncoder.vector(t, this.dim));
    if (this.behaviour.bad === "nan") out[0]![0] = Number.NaN;
    if (this.behaviour.bad === "short") out[0] = out[0]!.subarray(1);
    if (this.behaviour.bad === "count") out.pop();
    return out;
  }
}

/** Replaces the folder `dir` by an empty file, so writing a cache file into it fails ("a part of the path is a file"). */
export function folderBecomesFile(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  writeFileSync(dir, "");
}

/** Undoes {@link folderBecomesFile}: `dir` is an empty folder again. */
export function fileBecomesFolder(dir: string): void {
  rmSync(dir, { force: true });
  mkdirSync(dir);
}
