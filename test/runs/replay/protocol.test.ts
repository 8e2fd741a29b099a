import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CsrBuilder } from "../../../src/data/csr.js";
import type { CorrectnessDataset } from "../../../src/data/types.js";
import { anonymousNames, drawnOutcome, foldOf, runTable, streamOrder, u } from "../../../src/runs/replay/index.js";

const D = "terminal-bench-2-32models";

describe("the run-level protocol's hash u()", () => {
  it("matches the check values of BENCHMARK.md (computed by hand there)", () => {
    const checks: [string, number][] = [
      [`${D}/adaptive-rejection-sampler/fold/1`, 0.447775],
      [`${D}/adaptive-rejection-sampler/order/3`, 0.185019],
      [`${D}/adaptive-rejection-sampler/gpt-5-mini/2`, 0.514313],
      [`${D}/fix-git/fold/1`, 0.557712],
      [`${D}/fix-git/order/3`, 0.546792],
      [`${D}/fix-git/gpt-5-mini/2`, 0.332639],
      [`${D}/sqlite-with-gcov/fold/1`, 0.460871],
      [`${D}/sqlite-with-gcov/order/3`, 0.459559],
      [`${D}/sqlite-with-gcov/gpt-5-mini/2`, 0.905661],
    ];
    for (const [key, value] of checks) expect(u(key)).toBeCloseTo(value, 6);
  });

  it("is the first 8 hex digits of sha256 over 2^32", () => {
    const hex = createHash("sha256").update("x/y", "utf8").digest("hex").slice(0, 8);
    expect(u("x/y")).toBe(parseInt(hex, 16) / 4294967296);
  });
});

describe("folds, stream order and outcome draws", () => {
  it("puts an item in fold floor(5 u(D/ID/fold/s))", () => {
    expect(foldOf(D, "adaptive-rejection-sampler", 1)).toBe(2); // floor(5 x 0.447775)
    expect(foldOf(D, "fix-git", 1)).toBe(2); // floor(5 x 0.557712)
    expect(foldOf(D, "sqlite-with-gcov", 1)).toBe(2); // floor(5 x 0.460871)
    const ids = Array.from({ length: 200 }, (_, i) => `item-${i}`);
    const folds = new Set(ids.map((id) => foldOf(D, id, 4)));
    expect([...folds].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it("orders the stream by ascending u(D/ID/order/s)", () => {
    const ids = ["fix-git", "adaptive-rejection-sampler", "sqlite-with-gcov"];
    // order/3: adaptive 0.185019 < sqlite 0.459559 < fix-git 0.546792
    expect(streamOrder(D, ids, 3).map((i) => ids[i])).toEqual([
      "adaptive-rejection-sampler",
      "sqlite-with-gcov",
      "fix-git",
    ]);
  });

  it("draws a success iff u(D/ID/M/s) < rate", () => {
    expect(drawnOutcome(D, "fix-git", "gpt-5-mini", 2, 0.34)).toBe(true); // 0.332639 < 0.34
    expect(drawnOutcome(D, "fix-git", "gpt-5-mini", 2, 0.33)).toBe(false);
    expect(drawnOutcome(D, "sqlite-with-gcov", "gpt-5-mini", 2, 0.9)).toBe(false); // 0.905661
    expect(drawnOutcome(D, "sqlite-with-gcov", "gpt-5-mini", 2, 1)).toBe(true);
  });

  it("names models m01.. in alphabetical order of their ids", () => {
    expect([...anonymousNames(["zeta", "alpha", "mid"])]).toEqual([
      ["alpha", "m01"],
      ["mid", "m02"],
      ["zeta", "m03"],
    ]);
  });
});

function dataset(withCost: boolean): CorrectnessDataset {
  const b = new CsrBuilder(withCost);
  b.add(0, 1, 0.5);
  b.add(1, 0.2, 2);
  b.endItem();
  b.add(0, 0, 0.7);
  b.endItem();
  return {
    name: "toy",
    models: ["a", "b"],
    items: [
      { id: "i1", text: "one" },
      { id: "i2", text: "two" },
    ],
    labels: b.build(),
    prices: { a: { inputPer1M: 1, outputPer1M: 10 }, b: { inputPer1M: 5, outputPer1M: 25 } },
    source: { dir: "/toy", files: [], sha256: "" },
  };
}

describe("runTable", () => {
  it("costs a run at 400k input + 40k output tokens at the prices, and keeps rates (NaN where unlabelled)", () => {
    const t = runTable(dataset(false));
    expect(Array.from(t.runCost)).toEqual([0.8, 3]);
    expect(t.costAssumption).toContain("400,000 input + 40,000 output tokens");
    expect(Array.from(t.rate[0]!)).toEqual([1, Float32Array.from([0.2])[0]]);
    expect(Number.isNaN(t.rate[1]![1]!)).toBe(true);
  });

  it("uses the recorded costs when the folder gives them", () => {
    const t = runTable(dataset(true));
    expect(t.runCost[0]).toBeCloseTo(0.6, 6);
    expect(t.runCost[1]).toBeCloseTo(2, 6);
    expect(t.costAssumption).toContain("recorded cost_usd");
  });

  it("per model: recorded costs where the folder gives them, list prices for the others (BENCHMARK.md)", () => {
    const b = new CsrBuilder(true);
    b.add(0, 1, 0.5); // a: recorded
    b.add(1, 0.2); // b: no cost on any label
    b.endItem();
    b.add(0, 0, 0.7);
    b.add(1, 1);
    b.endItem();
    const t = runTable({ ...dataset(true), labels: b.build() });
    expect(t.runCost[0]).toBeCloseTo(0.6, 6); // not a's list price (0.8)
    expect(t.runCost[1]).toBeCloseTo(3, 6); // b's list price at 400k + 40k tokens
    expect(t.costAssumption).toBe(
      "run cost = the mean recorded cost_usd of the model's runs in labels for a; 400,000 input + 40,000 output " +
        "tokens at models.csv prices (no cached input) for b",
    );
    const unpriced = runTable({
      ...dataset(true),
      labels: b.build(),
      prices: { a: { inputPer1M: 1, outputPer1M: 1 } },
    });
    expect(unpriced.runCost[0]).toBeCloseTo(0.6, 6);
    expect(Number.isNaN(unpriced.runCost[1]!)).toBe(true); // neither a cost nor a price: loadRunTable names it
  });
});
