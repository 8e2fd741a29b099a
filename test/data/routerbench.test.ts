import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { costOf, oracleRate } from "../../src/data/csr.js";
import { datasetSplits } from "../../src/data/select.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { bestSingle, expectWellFormed, meanOf } from "./helpers.js";

let ds: CorrectnessDataset;
beforeAll(async () => {
  ds = await loadDataset("routerbench-subset-11models");
});

const text = (id: string) => ds.items.find((i) => i.id === id)!.text;

describe("routerbench-subset-11models loader (real data)", () => {
  it("has 3,164 fully observed items, 11 models and per-call cost", () => {
    expect(ds.items.length).toBe(3_164);
    expect(ds.models.length).toBe(11);
    expect(ds.labels.y.length).toBe(3_164 * 11);
    expect(ds.labels.cost).toBeDefined();
    expect(ds.labels.cost!.every((c) => Number.isFinite(c) && c > 0)).toBe(true);
    expectWellFormed(ds);
  });

  it("reproduces SOURCE.md's base rates and costs", () => {
    expect(bestSingle(ds).model).toBe("gpt-4-1106-preview");
    expect(meanOf(ds, "gpt-4-1106-preview")).toBeCloseTo(0.8799, 4);
    expect(meanOf(ds, "claude-v2")).toBeCloseTo(0.5506, 4);
    expect(oracleRate(ds)).toBeCloseTo(0.9757, 4);
    const gpt4 = ds.models.indexOf("gpt-4-1106-preview");
    let total = 0;
    for (let i = 0; i < ds.items.length; i++) total += costOf(ds, i, gpt4)!;
    expect(total).toBeCloseTo(15.868, 2);
    const first = ds.items.findIndex((i) => i.id === "arc-challenge.test.1");
    expect(costOf(ds, first, gpt4)).toBeCloseTo(0.00519, 7);
  });

  it("splits 2,541 / 323 / 300 as BENCHMARK.md", () => {
    const s = datasetSplits(ds);
    expect([s.train.length, s.val.length, s.test.length]).toEqual([2_541, 323, 300]);
  });

  it("embeds only the final question: few-shot prefix and instruction removed", () => {
    expect(text("arc-challenge.test.1")).toBe(
      "A group of engineers wanted to know how different building designs would respond during an earthquake. " +
        "They made several models of buildings and tested each for its ability to withstand earthquake conditions. " +
        "Which will most likely result from testing different building designs?\n" +
        "A) buildings will be made safer\nB) building materials will be cheaper\nC) building designs will look nicer\nD) buildings will be built faster",
    );
    expect(text("winogrande.dev.1")).toBe(
      "Sarah was a much better surgeon than Maria so _ always got the harder cases.\nA) Maria\nB) Sarah",
    );
    expect(text("mbpp.dev.1")).toBe("Write a python function to identify non-prime numbers.");
    expect(
      ds.items
        .filter((i) => /Print only a single choice|^Answer:$/m.test(i.text) || i.text !== i.text.trim())
        .map((i) => i.id),
    ).toEqual([]);
    // Escapes are decoded (\' -> ').
    expect(ds.items.some((i) => i.text.includes("'"))).toBe(true);
    expect(ds.items.some((i) => i.text.includes("\\'"))).toBe(false);
    const counts: Record<string, number> = {};
    for (const item of ds.items) counts[item.category!] = (counts[item.category!] ?? 0) + 1;
    expect(counts).toEqual({ "arc-challenge": 1_470, winogrande: 1_267, mbpp: 427 });
  });

  it("yields 3,162 distinct texts (2 MBPP texts repeat, as PITFALLS.md says)", () => {
    expect(new Set(ds.items.map((i) => i.text)).size).toBe(3_162);
  });
});
