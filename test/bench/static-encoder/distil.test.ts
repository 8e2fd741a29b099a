/** The fit of the static table's rows to whole-text teacher vectors (bench/static-encoder/distil.ts). */
import { describe, expect, it } from "vitest";
import { bagMeans, bagOf, fitRows, meanCosine } from "../../../bench/static-encoder/distil.js";

/** A seeded stream of numbers in [-1, 1). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 31 - 1;
}

/** Texts over `rows` pieces, their targets made by known rows `truth`, and a prior far from the truth. */
function problem(texts: number, rows: number, dim: number) {
  const next = random(7);
  const truth = Float32Array.from({ length: rows * dim }, next);
  const prior = Float32Array.from({ length: rows * dim }, next);
  const idLists = Array.from({ length: texts }, () =>
    Array.from({ length: 3 + Math.floor((next() + 1) * 3) }, () => Math.floor(((next() + 1) / 2) * rows)),
  );
  const weight = (id: number) => 1 + id / rows;
  const bag = bagOf(idLists, weight);
  const targets = Float32Array.from(bagMeans(bag, truth, dim));
  return { truth, prior, bag, targets };
}

describe("bagOf", () => {
  it("weights each piece by weight x count, normalised to sum 1 per text, and leaves an empty text empty", () => {
    const bag = bagOf([[2, 0, 2], []], (id) => (id === 2 ? 3 : 1));
    expect(Array.from(bag.offsets)).toEqual([0, 2, 2]);
    expect(Array.from(bag.cols)).toEqual([0, 2]);
    expect(Array.from(bag.vals)).toEqual([1 / 7, 6 / 7]);
  });
});

describe("fitRows", () => {
  it("recovers the rows that made the targets when the texts determine them and lambda is small", () => {
    const { truth, prior, bag, targets } = problem(400, 20, 4);
    const fitted = fitRows(bag, targets, prior, 20, 4, { lambda: 1e-6, iterations: 200 });
    const worst = Math.max(...Array.from(fitted.rows, (v, k) => Math.abs(v - truth[k]!)));
    expect(worst).toBeLessThan(1e-3);
    expect(meanCosine(bag, fitted.rows, targets, 4)).toBeGreaterThan(0.999999);
  });

  it("keeps a piece no text contains at the scaled prior, and a large lambda stays near the scaled prior", () => {
    const { prior, bag, targets } = problem(200, 20, 4);
    const unseen = Float32Array.from({ length: 21 * 4 }, (_, k) => (k < 80 ? prior[k]! : 5));
    const fitted = fitRows(bag, targets, unseen, 21, 4, { lambda: 0.01, iterations: 50 });
    for (let j = 0; j < 4; j++) expect(fitted.rows[80 + j]).toBeCloseTo(fitted.scale * 5, 10);
    const stiff = fitRows(bag, targets, unseen, 21, 4, { lambda: 1e6, iterations: 50 });
    const drift = Math.max(...Array.from(stiff.rows, (v, k) => Math.abs(v - stiff.scale * unseen[k]!)));
    expect(drift).toBeLessThan(1e-3);
  });

  it("moves the text vectors closer to the targets than the prior's", () => {
    const { prior, bag, targets } = problem(300, 30, 6);
    const before = meanCosine(bag, prior, targets, 6);
    const fitted = fitRows(bag, targets, prior, 30, 6, { lambda: 0.01, iterations: 30 });
    expect(meanCosine(bag, fitted.rows, targets, 6)).toBeGreaterThan(before + 0.3);
  });
});
