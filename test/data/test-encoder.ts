import { createHash } from "node:crypto";
import type { QueryEncoder } from "../../src/encoders/types.js";

/**
 * A small deterministic encoder for tests: each text maps to a unit vector derived from its sha256.
 * Counts the texts it embedded; can be told to fail after a number of calls or to return bad output.
 */
export class TestEncoder implements QueryEncoder {
  readonly dim: number;
  calls = 0;
  texts = 0;
  constructor(
    readonly id = "test-encoder@1",
    dim = 8,
    private readonly behaviour: { failAfterCalls?: number; bad?: "nan" | "short" | "count" } = {},
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
