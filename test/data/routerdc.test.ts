import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { modelMeans, oracleRate } from "../../src/data/csr.js";
import { datasetSplits } from "../../src/data/select.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { bestSingle, expectWellFormed } from "./helpers.js";

let ds: CorrectnessDataset;
let soft: CorrectnessDataset;
beforeAll(async () => {
  [ds, soft] = await Promise.all([
    loadDataset("routerdc-7models"),
    loadDataset("routerdc-7models", { labels: "soft" }),
  ]);
});

describe("routerdc-7models loader (real data)", () => {
  it("has 20,600 items, 7 models, binarised labels by default", () => {
    expect(ds.items.length).toBe(20_600);
    expect(ds.models.length).toBe(7);
    expect(ds.labels.y.length).toBe(20_600 * 7);
    expect(ds.labelKind).toBe("binary");
    expectWellFormed(ds);
  });

  it("reproduces SOURCE.md's binarised base rates", () => {
    const best = bestSingle(ds);
    expect(best.model).toBe("meta-llama/Meta-Llama-3-8B");
    expect(best.mean).toBeCloseTo(0.5693, 4);
    expect(oracleRate(ds)).toBeCloseTo(0.8234, 4);
  });

  it("offers the soft scores as graded labels, with the same items and a different hash", () => {
    expect(soft.labelKind).toBe("graded");
    expect(soft.items).toEqual(ds.items);
    expect(soft.models).toEqual(ds.models);
    expect(soft.source.sha256).not.toBe(ds.source.sha256);
    const best = modelMeans(soft).reduce((a, b) => (b.mean > a.mean ? b : a));
    expect(best.model).toBe("cognitivecomputations/dolphin-2.9-llama3-8b");
    expect(best.mean).toBeCloseTo(0.4946, 4);
    // score > 0 means correct on multiple-choice tasks: binarised 1 wherever a MC soft score is > 0.
    const mc = new Set(["mmlu", "cmmlu", "arc_challenge", "arc_easy", "ceval"]);
    let checked = 0;
    let mismatched = 0;
    for (let i = 0; i < ds.items.length; i++) {
      if (!mc.has(ds.items[i]!.category!)) continue;
      for (let k = ds.labels.offsets[i]!; k < ds.labels.offsets[i + 1]!; k++) {
        if (ds.labels.y[k] !== (soft.labels.y[k]! > 0 ? 1 : 0)) mismatched++;
        checked++;
      }
    }
    expect(mismatched).toBe(0);
    expect(checked).toBeGreaterThan(100_000);
  });

  it("splits 16,409 / 2,086 / 2,105 as BENCHMARK.md", () => {
    const s = datasetSplits(ds);
    expect([s.train.length, s.val.length, s.test.length]).toEqual([16_409, 2_086, 2_105]);
  });

  it("takes the question as the text with line endings normalised, and the task as category", () => {
    const first = ds.items.find((i) => i.id === "1")!;
    expect(first.text).toBe("What is the smallest multiple of $5$ which is greater than $-32$?");
    expect(first.category).toBe("MATH_prealgebra");
    expect(ds.items.some((i) => i.text.includes("\r"))).toBe(false);
    expect(new Set(ds.items.map((i) => i.category)).size).toBe(10);
  });
});
