import { describe, expect, it } from "vitest";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { resolveDataset } from "../../adapters/data/load-dataset.js";
import { readRouterBenchPrompts } from "../../adapters/policy/full-prompts.js";
import { datasetSplits } from "../../src/data/select.js";
import { ROUTERBENCH_PRICES } from "../../src/policy/prices.js";
import { estimateTokens } from "../../src/policy/tokens.js";
import { impliedOutputTokens } from "../../src/eval/policy-replay.js";

const DATASET = "routerbench-subset-11models";
let available = true;
try {
  resolveDataset(DATASET);
} catch {
  available = false;
}

describe.skipIf(!available)("RouterBench list prices against the recorded costs (real data)", () => {
  it("recorded cost covers the input at list price, and implied output lengths are plausible", async () => {
    const ds = await loadDataset(DATASET);
    const prompts = await readRouterBenchPrompts(DATASET);
    const n = ds.models.length;
    const y = new Float64Array(ds.items.length * n).fill(NaN);
    const cost = new Float64Array(ds.items.length * n).fill(NaN);
    for (let i = 0; i < ds.items.length; i++) {
      for (let e = ds.labels.offsets[i]!; e < ds.labels.offsets[i + 1]!; e++) {
        y[i * n + ds.labels.model[e]!] = ds.labels.y[e]!;
        cost[i * n + ds.labels.model[e]!] = ds.labels.cost![e]!;
      }
    }
    const tokens = ds.items.map((it) => estimateTokens(prompts.get(it.id)!));
    const prices = ds.models.map((m) => ROUTERBENCH_PRICES[m]!);
    expect(prices.every(Boolean)).toBe(true);
    const train = datasetSplits(ds).train;
    const mc = train.filter((i) => ds.items[i]!.category !== "mbpp");
    const code = train.filter((i) => ds.items[i]!.category === "mbpp");
    const table = { models: ds.models, nItems: ds.items.length, y, cost };
    const onMc = impliedOutputTokens(table, mc, tokens, prices);
    const onCode = impliedOutputTokens(table, code, tokens, prices);
    ds.models.forEach((m, k) => {
      // A price 2x too high would put most recorded costs below the input cost; 10x too low would imply huge answers.
      expect(onMc[k]!.belowInputCost / onMc[k]!.n, m).toBeLessThan(0.01);
      expect(onMc[k]!.median, m).toBeLessThan(5); // one answer letter
      expect(onCode[k]!.median, m).toBeGreaterThan(50); // a Python function
      expect(onCode[k]!.median, m).toBeLessThan(600);
    });
  });
});
