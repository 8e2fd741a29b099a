import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { oracleRate } from "../../src/data/csr.js";
import { datasetSplits } from "../../src/data/select.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { expectWellFormed, meanOf } from "./helpers.js";

let ds: CorrectnessDataset;
beforeAll(async () => {
  ds = await loadDataset("routellm-2models");
});

describe("routellm-2models loader (real data)", () => {
  it("has 15,361 items and the two model columns", () => {
    expect(ds.items.length).toBe(15_361);
    expect([...ds.models].sort()).toEqual(["gpt-4-1106-preview", "mistralai/Mixtral-8x7B-Instruct-v0.1"]);
    expect(ds.labels.y.length).toBe(15_361 * 2);
    expectWellFormed(ds);
  });

  it("reproduces SOURCE.md's base rates", () => {
    expect(meanOf(ds, "gpt-4-1106-preview")).toBeCloseTo(0.8102, 4);
    expect(meanOf(ds, "mistralai/Mixtral-8x7B-Instruct-v0.1")).toBeCloseTo(0.6772, 4);
    expect(oracleRate(ds)).toBeCloseTo(0.8647, 4);
  });

  it("splits 12,291 / 1,530 / 1,540 as BENCHMARK.md", () => {
    const s = datasetSplits(ds);
    expect([s.train.length, s.val.length, s.test.length]).toEqual([12_291, 1_530, 1_540]);
  });

  it("uses the prompt as text, the benchmark as category and keeps the subject", () => {
    const first = ds.items.find((i) => i.id === "0")!;
    expect(first.text).toBe(
      "Find the degree for the given field extension Q(sqrt(2), sqrt(3), sqrt(18)) over Q.\nA. 0\nB. 4\nC. 2\nD. 6\nAnswer:",
    );
    expect(first.category).toBe("mmlu");
    expect(first.meta?.subject).toBe("abstract_algebra");
    const counts: Record<string, number> = {};
    for (const item of ds.items) counts[item.category!] = (counts[item.category!] ?? 0) + 1;
    expect(counts).toEqual({ mmlu: 14_042, gsm8k: 1_319 });
  });
});
