import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readArtifact, readShippedArtifact } from "../../adapters/artifact/files.js";
import { pretrainedDir, STATIC_PRETRAINED_SUBDIR } from "../../adapters/artifact/load.js";
import { assembleDenseKernel } from "../../scripts/dense-kernel.js";
import { denseFor, inArena, weightsArena } from "../../src/scorer/dense-kernel.js";
import { DENSE_KERNEL_WASM } from "../../src/scorer/dense-kernel-wasm.js";
import { denseForward } from "../../src/scorer/expert.js";
import { itemParamsOf, predictItems } from "../../src/scorer/forward.js";
import { initWeights, tensorFloats, type DenseWeights, type IrtMoeWeights } from "../../src/scorer/weights.js";
import { trainingRng } from "../../src/util/random.js";
import { saveToyScorer, toyScorerParts } from "./helpers.js";

function randomInputs(dim: number, n: number, seed: number): Float32Array[] {
  const rng = trainingRng(seed);
  return Array.from({ length: n }, () => Float32Array.from({ length: dim }, () => rng.normal()));
}

/** Both forwards, element by element, as bits (Object.is: -0 and 0 differ). */
function expectSameBits(a: IrtMoeWeights, b: IrtMoeWeights, inputs: Float32Array[]): void {
  for (const x of inputs) {
    const p = itemParamsOf(a, x);
    const q = itemParamsOf(b, x);
    expect(Object.is(p.beta, q.beta)).toBe(true);
    expect([...p.alpha].every((v, k) => Object.is(v, q.alpha[k]))).toBe(true);
  }
}

/** The kernel's first scratch word (float64 sums start at the first 8-byte boundary after the bytes handed out). */
function scratchWord(w: IrtMoeWeights, handedOut: number): number {
  return new Float64Array(w.gate.W.buffer, Math.ceil(handedOut / 8) * 8, 1)[0]!;
}

describe("dense-layer kernel", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it("computes in WebAssembly: its scratch, after every byte of the weights, holds the last layer's sums", () => {
    const shape = { inDim: 13, experts: 2, hidden: 9, out: 5, abilityDim: 3 };
    const plain = initWeights(trainingRng(8), shape, ["a", "b"], 0.6);
    const arena = inArena(plain);
    const floats = tensorFloats(arena);
    expect(scratchWord(arena, floats * 4)).toBe(0);
    const [x] = randomInputs(13, 1, 2);
    const { beta } = itemParamsOf(arena, x!);
    // The beta head ran last: its one sum, rounded to float32, is beta.
    expect(Math.fround(scratchWord(arena, floats * 4))).toBe(beta);
  });

  it("falls back to TypeScript, same bits, where WebAssembly is missing or cannot reserve memory", async () => {
    const shape = { inDim: 13, experts: 2, hidden: 9, out: 5, abilityDim: 3 };
    const plain = initWeights(trainingRng(9), shape, ["a"], 0.5);
    const inputs = randomInputs(13, 5, 4);
    const reference = inputs.map((x) => itemParamsOf(plain, x));
    const real = (globalThis as unknown as { WebAssembly: Record<string, unknown> }).WebAssembly;
    const noMemory = {
      ...real,
      Module: real.Module,
      Instance: real.Instance,
      Memory: function Memory() {
        throw new RangeError("WebAssembly.Memory(): could not allocate memory");
      },
    };
    for (const stub of [undefined, noMemory]) {
      vi.resetModules();
      vi.stubGlobal("WebAssembly", stub);
      const kernel = await import("../../src/scorer/dense-kernel.js");
      const { denseForward: fresh } = await import("../../src/scorer/expert.js");
      const forward = await import("../../src/scorer/forward.js");
      const bytes = kernel.weightsArena(64);
      expect(bytes.byteLength).toBe(64);
      const moved = kernel.inArena(plain);
      expect(kernel.denseFor(moved)).toBe(fresh);
      inputs.forEach((x, i) => {
        const p = forward.itemParamsOf(moved, x);
        expect(Object.is(p.beta, reference[i]!.beta)).toBe(true);
        expect([...p.alpha]).toEqual([...reference[i]!.alpha]);
      });
      vi.unstubAllGlobals();
    }
  });

  it("answers an input that is not float32, or a short output, as TypeScript does", () => {
    const shape = { inDim: 16, experts: 1, hidden: 8, out: 4, abilityDim: 2 };
    const arena = inArena(initWeights(trainingRng(10), shape, ["a"], 0.5));
    const dense = denseFor(arena);
    const [x] = randomInputs(16, 1, 5);
    const wide = Float64Array.from(x!, (v) => v + 1e-9);
    expect([...dense(arena.gate, wide as unknown as Float32Array)]).toEqual([
      ...denseForward(arena.gate, wide as unknown as Float32Array),
    ]);
    const short = new Float32Array(arena.gate.outDim - 1);
    expect([...dense(arena.gate, x!, short)]).toEqual([
      ...denseForward(arena.gate, x!, new Float32Array(short.length)),
    ]);
    expect(weightsArena(8).byteLength).toBe(8);
  });

  it("ships the bytes its WebAssembly text assembles to", async () => {
    expect(Buffer.from(await assembleDenseKernel()).toString("base64")).toBe(DENSE_KERNEL_WASM);
  });

  it("runs weights held in an arena and gives the TypeScript forward's bits, on and off the 8-row unroll", () => {
    for (const [shape, seed] of [
      [{ inDim: 13, experts: 2, hidden: 9, out: 5, abilityDim: 3 }, 1],
      [{ inDim: 64, experts: 4, hidden: 32, out: 16, abilityDim: 8 }, 2],
      [{ inDim: 7, experts: 1, hidden: 3, out: 2, abilityDim: 1 }, 3],
    ] as const) {
      const plain = initWeights(trainingRng(seed), shape, ["a", "b"], 0.6);
      const arena = inArena(plain);
      expect(denseFor(plain)).toBe(denseForward);
      expect(denseFor(arena)).not.toBe(denseForward);
      expectSameBits(arena, plain, randomInputs(shape.inDim, 20, seed + 10));
    }
  });

  it("runs the shipped scorer's weights where they were read, with the same bits as a copy", async () => {
    const { weights } = await readShippedArtifact(join(pretrainedDir(), STATIC_PRETRAINED_SUBDIR));
    expect(denseFor(weights)).not.toBe(denseForward);
    const copy = structuredClone(weights);
    expect(denseFor(copy)).toBe(denseForward);
    const inputs = randomInputs(weights.inDim, 25, 7);
    expectSameBits(weights, copy, inputs);
    // Everything else read with the layers (theta) is untouched by the kernel's scratch: the same p for every model.
    const X = new Float32Array(inputs.length * weights.inDim);
    inputs.forEach((x, i) => X.set(x, i * weights.inDim));
    const rows = inputs.map((_, i) => i);
    const p = predictItems({ weights, temperature: 1 }, X, rows);
    const q = predictItems({ weights: copy, temperature: 1 }, X, rows);
    expect([...p].every((v, i) => Object.is(v, q[i]))).toBe(true);
    expect([...weights.theta]).toEqual([...copy.theta]);
  });

  it("runs a saved scorer of yours in an arena of its own, with the bits of the weights it was saved from", async () => {
    const dir = mkdtempSync(join(tmpdir(), "irt-kernel-"));
    try {
      await saveToyScorer(dir, "toy-encoder", ["a", "b", "c"], 11);
      const { weights } = await readArtifact(dir);
      const { weights: original } = toyScorerParts(11, ["a", "b", "c"]);
      expect(denseFor(weights)).not.toBe(denseForward);
      expect([...weights.theta]).toEqual([...original.theta]);
      expectSameBits(weights, original, randomInputs(weights.inDim, 10, 12));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves weights with a layer outside the arena, or too wide for its scratch, to TypeScript", () => {
    const shape = { inDim: 13, experts: 2, hidden: 9, out: 5, abilityDim: 3 };
    const arena = inArena(initWeights(trainingRng(4), shape, ["a"], 0.5));
    const mixed = { ...arena, gate: { ...arena.gate, W: arena.gate.W.slice() } };
    expect(denseFor(mixed)).toBe(denseForward);
    // 40,000 inputs need 160 KB of scratch; an arena keeps 64 KB and less than a page of rounding.
    const wide = inArena(initWeights(trainingRng(5), { ...shape, inDim: 40_000 }, ["a"], 0.5));
    expect(denseFor(wide)).toBe(denseForward);
    expectSameBits(arena, mixed, randomInputs(13, 5, 9));
  });

  it("answers a call on a layer that left the arena after the kernel was built, in TypeScript", () => {
    const shape = { inDim: 16, experts: 1, hidden: 8, out: 4, abilityDim: 2 };
    const arena = inArena(initWeights(trainingRng(6), shape, ["a"], 0.5));
    const dense = denseFor(arena);
    const moved: DenseWeights = { ...arena.gate, W: arena.gate.W.slice(), b: arena.gate.b.slice() };
    const [x] = randomInputs(16, 1, 3);
    expect([...dense(moved, x!)]).toEqual([...denseForward(arena.gate, x!)]);
  });
});
