import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { labelOf, observedCounts, oracleRate } from "../../src/data/csr.js";
import { datasetSplits } from "../../src/data/select.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { bestSingle, expectWellFormed } from "./helpers.js";

let ds: CorrectnessDataset;
beforeAll(async () => {
  ds = await loadDataset("mmlu-pro-29models");
});

describe("mmlu-pro-29models loader (real data, default data root)", () => {
  it("has 12,032 items and 29 models in a well-formed CSR", () => {
    expect(ds.name).toBe("mmlu-pro-29models");
    expect(ds.items.length).toBe(12_032);
    expect(ds.models.length).toBe(29);
    expect(ds.labelKind).toBe("binary");
    expect(ds.labels.cost).toBeUndefined();
    expectWellFormed(ds);
  });

  it("reproduces SOURCE.md's base rates", () => {
    const best = bestSingle(ds);
    expect(best.model).toBe("gemini-1.5-pro-002");
    expect(best.mean).toBeCloseTo(0.7025, 4);
    expect(oracleRate(ds)).toBeCloseTo(0.9468, 4);
  });

  it("keeps unobserved cells distinct from wrong answers", () => {
    const counts = observedCounts(ds);
    const count = (m: string) => counts[ds.models.indexOf(m)];
    expect(count("DeepSeek-Coder-V2")).toBe(10_351);
    expect(count("gemini-1.5-flash-002")).toBe(12_012);
    expect(count("gemini-1.5-pro-002")).toBe(12_020);
    expect(count("Llama-2-7b-hf")).toBe(12_032);
    // Item 83: gemini-1.5-pro-002 is blank (unobserved), gemini-1.5-flash-002 is 0 (wrong).
    const item = ds.items.findIndex((i) => i.id === "83");
    expect(labelOf(ds, item, ds.models.indexOf("gemini-1.5-pro-002"))).toBeUndefined();
    expect(labelOf(ds, item, ds.models.indexOf("gemini-1.5-flash-002"))).toBe(0);
    expect(ds.labels.y.length).toBe(counts.reduce((a, b) => a + b, 0));
  });

  it("splits 9,646 / 1,203 / 1,183 as BENCHMARK.md", () => {
    const s = datasetSplits(ds);
    expect([s.train.length, s.val.length, s.test.length]).toEqual([9_646, 1_203, 1_183]);
  });

  it("builds the text from the question and lettered options", () => {
    const item = ds.items.find((i) => i.id === "70")!;
    expect(item.category).toBe("business");
    expect(
      item.text.startsWith(
        "Typical advertising regulatory bodies suggest, for example that adverts must not: encourage _________,",
      ),
    ).toBe(true);
    expect(item.text.split("\n").slice(1)).toEqual([
      "A. Safe practices, Fear, Jealousy, Trivial",
      "B. Unsafe practices, Distress, Joy, Trivial",
      "C. Safe practices, Wants, Jealousy, Trivial",
      "D. Safe practices, Distress, Fear, Trivial",
      "E. Unsafe practices, Wants, Jealousy, Serious",
      "F. Safe practices, Distress, Jealousy, Serious",
      "G. Safe practices, Wants, Fear, Serious",
      "H. Unsafe practices, Wants, Fear, Trivial",
      "I. Unsafe practices, Distress, Fear, Serious",
    ]);
    // Python-style strip: the question of item 5215 ends in U+0085, which is removed.
    expect(ds.items.find((i) => i.id === "5215")!.text.startsWith("Role-learning theory suggests that\nA. ")).toBe(
      true,
    );
    expect(new Set(ds.items.map((i) => i.category)).size).toBe(14);
  });
});
