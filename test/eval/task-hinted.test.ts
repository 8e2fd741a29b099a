import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { evaluate } from "../../src/eval/evaluate.js";
import { summarise } from "../../src/eval/format.js";
import { chooseHintedCategories, offsetSd, taskHintedPair, withTaskHints } from "../../src/eval/task-hinted.js";
import type { EmbeddedLabelData, RoutingMethod } from "../../src/eval/types.js";
import { fitTaskOffset } from "../../src/learning/task-offsets.js";
import { createRng } from "../../src/util/random.js";
import { runEvaluation } from "../../adapters/eval/run.js";

/**
 * Items of 3 categories whose embeddings say nothing about the category (pure noise); model m is right on 90% of
 * category m's items and 40% of the others: only the category tells which model to use.
 */
function hiddenCategories(n: number, seed = 3) {
  const rng = createRng(seed);
  const cats = ["alpha", "beta", "gamma"];
  const dim = 4;
  const X = new Float32Array(n * dim).map(() => rng.normal());
  const categories: string[] = [];
  const offsets = [0];
  const model: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = i % 3;
    categories.push(cats[c]!);
    for (let m = 0; m < 3; m++) {
      model.push(m);
      y.push(rng.next() < (m === c ? 0.9 : 0.4) + (m === 0 ? 0.05 : 0) ? 1 : 0);
    }
    offsets.push(model.length);
  }
  const data: EmbeddedLabelData = {
    X,
    dim,
    nItems: n,
    nModels: 3,
    offsets: Int32Array.from(offsets),
    model: Int32Array.from(model),
    y: Float32Array.from(y),
  };
  const split = { train: [] as number[], val: [] as number[], test: [] as number[] };
  for (let i = 0; i < n; i++) (i % 10 < 6 ? split.train : i % 10 < 8 ? split.val : split.test).push(i);
  return { data, categories, split };
}

/** A method blind to the text: each model's train accuracy as its p on every item (counts its fits). */
function trainAccuracyMethod(): RoutingMethod & { fits: number } {
  const method = {
    name: "train-accuracy",
    seeded: true,
    fits: 0,
    async fit(data: EmbeddedLabelData, split: { train: readonly number[] }, _options?: unknown) {
      method.fits++;
      const sum = new Float64Array(data.nModels);
      const count = new Float64Array(data.nModels);
      for (const i of split.train)
        for (let k = data.offsets[i]!; k < data.offsets[i + 1]!; k++) {
          sum[data.model[k]!]! += data.y[k]!;
          count[data.model[k]!]!++;
        }
      return {
        description: "constant p",
        predict: (_X: Float32Array, rows: readonly number[]) => {
          const out = new Float32Array(rows.length * data.nModels);
          rows.forEach((_, r) => {
            for (let m = 0; m < data.nModels; m++) out[r * data.nModels + m] = sum[m]! / count[m]!;
          });
          return out;
        },
      };
    },
  };
  return method;
}

/** A method whose p is noise of sd 4 logits per (item, model), the same at every fit: argmax is a coin toss. */
function noisyMethod(): RoutingMethod {
  return {
    name: "noisy",
    seeded: true,
    async fit(data: EmbeddedLabelData) {
      return {
        description: "noise",
        predict: (_X: Float32Array, rows: readonly number[]) => {
          const out = new Float32Array(rows.length * data.nModels);
          rows.forEach((item, r) => {
            const rng = createRng(1000 + item);
            for (let m = 0; m < data.nModels; m++) out[r * data.nModels + m] = 1 / (1 + Math.exp(-4 * rng.normal()));
          });
          return out;
        },
      };
    },
  };
}

describe("chooseHintedCategories", () => {
  // 3 val items per category a (hints right, best wrong on all) and b (one win, one loss, one tie)
  const labels = {
    offsets: Int32Array.from([0, 1, 2, 3, 4, 5, 6]),
    model: Int32Array.from([0, 0, 0, 1, 1, 1]),
    y: Float32Array.from([0, 0, 0, 1, 0, 1]),
  } as unknown as EmbeddedLabelData;
  const val = [0, 1, 2, 3, 4, 5];
  const categories = ["a", "a", "a", "b", "b", "b"];
  const best = new Map([
    ["a", 0],
    ["b", 1],
  ]);
  it("keeps the hints only where they beat the best model by more than the margin", () => {
    const hinted = [1, 1, 1, 0, 1, 1];
    expect([...chooseHintedCategories(labels, val, hinted, categories, best)]).toEqual(["a"]);
    // a: sum d = 3 > 1 * sqrt(3) but not > 2 * sqrt(3)
    expect(chooseHintedCategories(labels, val, hinted, categories, best, 2).size).toBe(0);
    // no evidence (NaN hinted scores): the best model
    expect(
      chooseHintedCategories(
        labels,
        val,
        hinted.map(() => NaN),
        categories,
        best,
      ).size,
    ).toBe(0);
  });
});

describe("fitTaskOffset", () => {
  it("is the prior without calls and moves the logit toward the labels with them", () => {
    expect(fitTaskOffset([], [], 1)).toEqual({ mean: 0, variance: 1 });
    const up = fitTaskOffset(Array(50).fill(0), Array(50).fill(1), 1);
    expect(up.mean).toBeGreaterThan(1.5);
    expect(up.variance).toBeLessThan(0.5);
    // 80% right at logit 0: the MAP sits a little below logit(0.8) = 1.386 (the prior pulls it to 0)
    const mixed = fitTaskOffset(Array(100).fill(0), [...Array(80).fill(1), ...Array(20).fill(0)], 1);
    expect(mixed.mean).toBeGreaterThan(1.2);
    expect(mixed.mean).toBeLessThan(1.386);
  });

  it("names the mismatch and a bad prior", () => {
    expect(() => fitTaskOffset([0], [], 1)).toThrow(/1 logits but 0 labels/);
    expect(() => fitTaskOffset([0], [1], 0)).toThrow(/taskOffsetSd/);
  });
});

describe("withTaskHints", () => {
  it("routes by category where the method cannot, matching best-per-task", async () => {
    const { data, categories, split } = hiddenCategories(900);
    const base = trainAccuracyMethod();
    const [shared, hinted] = taskHintedPair(base, categories);
    const report = await evaluate(
      { name: "hidden", models: ["m0", "m1", "m2"], data, split, categories },
      { methods: [shared, hinted], seeds: [1, 2] },
    );
    const row = (name: string) => report.methods.find((m) => m.name === name)!;
    expect(row("train-accuracy+task").routingAccuracy).toBeGreaterThanOrEqual(row("best-per-task").routingAccuracy);
    expect(row("train-accuracy+task").routingAccuracy).toBeGreaterThan(row("train-accuracy").routingAccuracy + 0.2);
    expect(base.fits).toBe(2); // one fit per seed, shared by both rows
  });

  it("shrinks the offsets to about 0 when the categories do not separate the models", async () => {
    // 12 models, 8 categories; every model right 60% of the time whatever the category: the offsets are val noise.
    const rng = createRng(11);
    const n = 800;
    const nModels = 12;
    const categories = Array.from({ length: n }, (_, i) => `c${i % 8}`);
    const offsets = [0];
    const model: number[] = [];
    const y: number[] = [];
    for (let i = 0; i < n; i++) {
      for (let m = 0; m < nModels; m++) {
        model.push(m);
        y.push(rng.next() < 0.6 ? 1 : 0);
      }
      offsets.push(model.length);
    }
    const data: EmbeddedLabelData = {
      X: new Float32Array(n * 4).map(() => rng.normal()),
      dim: 4,
      nItems: n,
      nModels,
      offsets: Int32Array.from(offsets),
      model: Int32Array.from(model),
      y: Float32Array.from(y),
    };
    const split = { train: [] as number[], val: [] as number[], test: [] as number[] };
    for (let i = 0; i < n; i++) (i % 10 < 6 ? split.train : i % 10 < 8 ? split.val : split.test).push(i);
    // margin -Infinity: keep the hints in every category, to see the offsets themselves
    const hinted = await withTaskHints(trainAccuracyMethod(), categories, { margin: -Infinity }).fit(data, split, {
      seed: 1,
    });
    const plain = await trainAccuracyMethod().fit(data, split, { seed: 1 });
    const a = await hinted.predict(data.X, split.test);
    const b = await plain.predict(data.X, split.test);
    const logit = (p: number) => Math.log(p / (1 - p));
    let largest = 0;
    for (let k = 0; k < a.length; k++) largest = Math.max(largest, Math.abs(logit(a[k]!) - logit(b[k]!)));
    // With a fixed prior sd of 1, 20 val calls a pair (SE about 0.46 logit) would move the largest of 96 offsets by ~1.
    expect(largest).toBeLessThan(0.2);
    expect(hinted.description).toMatch(/prior sd 0\.[01]\d\d\)/);
  });

  it("falls back to each category's best model where the hinted scorer routes worse, matching best-per-task", async () => {
    const { data, categories, split } = hiddenCategories(900);
    const [shared, hinted] = taskHintedPair(noisyMethod(), categories);
    const forced = withTaskHints(noisyMethod(), categories, { name: "forced", margin: -Infinity });
    const report = await evaluate(
      { name: "hidden", models: ["m0", "m1", "m2"], data, split, categories },
      { methods: [shared, hinted, forced], seeds: [1] },
    );
    const row = (name: string) => report.methods.find((m) => m.name === name)!;
    // Offsets cannot undo per-item noise of sd 4 logits: the hints alone route below best-per-task ...
    expect(row("forced").routingAccuracy).toBeLessThan(row("best-per-task").routingAccuracy - 0.1);
    // ... and the cross-fitted choice sends every category to its best train model instead.
    expect(row("noisy+task").routingAccuracy).toBeCloseTo(row("best-per-task").routingAccuracy, 9);
    expect(row("noisy+task").diffVsBestPerTaskCi95).toEqual([0, 0]); // the same model on every test item
    expect(row("forced").diffVsBestPerTask).toBeUndefined(); // only +task rows carry it
  });

  it("estimates the offsets' prior sd: near the true spread when the categories matter, at most the cap", () => {
    const rng = createRng(5);
    const pairs = Array.from({ length: 60 }, () => {
      const delta = rng.normal() * 0.8; // true spread 0.8
      const logits = Array(200).fill(0);
      const ys = logits.map(() => (rng.next() < 1 / (1 + Math.exp(-delta)) ? 1 : 0));
      return { logits, ys };
    });
    const sd = offsetSd(pairs, 2);
    expect(sd).toBeGreaterThan(0.6);
    expect(sd).toBeLessThan(1);
    expect(offsetSd(pairs, 0.5)).toBe(0.5);
    expect(offsetSd([], 1)).toBe(1);
  });

  it("keeps the method's p for items without a category", async () => {
    const { data, categories, split } = hiddenCategories(300);
    const none = categories.map(() => undefined);
    const fitted = await withTaskHints(trainAccuracyMethod(), none).fit(data, split, { seed: 1 });
    const plain = await trainAccuracyMethod().fit(data, split, { seed: 1 });
    expect(Array.from(await fitted.predict(data.X, split.test))).toEqual(
      Array.from(await plain.predict(data.X, split.test)),
    );
  });
});

describe("irt-router eval on a folder whose categories matter", async () => {
  const dir = mkdtempSync(join(tmpdir(), "irt-task-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const { data, categories } = hiddenCategories(600, 11);
  const items = ["item_id,text,category", ...categories.map((c, i) => `q${i},question number ${i},${c}`)];
  const labels = ["item_id,model,correct"];
  for (let i = 0; i < data.nItems; i++)
    for (let k = data.offsets[i]!; k < data.offsets[i + 1]!; k++) labels.push(`q${i},m${data.model[k]},${data.y[k]}`);
  mkdirSync(join(dir, "hidden"));
  writeFileSync(join(dir, "hidden", "items.csv"), `${items.join("\n")}\n`);
  writeFileSync(join(dir, "hidden", "labels.csv"), `${labels.join("\n")}\n`);
  const { report } = await runEvaluation({
    dataset: join(dir, "hidden"),
    seeds: 1,
    methods: ["irt-moe"],
    irtMoeConfig: { maxEpochs: 15 },
    log: { write: () => true, isTTY: false } as unknown as NodeJS.WritableStream,
    // Embeddings that carry no trace of the category.
    embed: async (ds) => {
      const r = createRng(5);
      return { X: new Float32Array(ds.items.length * 8).map(() => r.normal()), dim: 8, encoderId: "noise" };
    },
  });

  it("adds the irt-moe+task row, at or above best-per-task", () => {
    const names = report.methods.map((m) => m.name);
    expect(names.slice(0, 2)).toEqual(["irt-moe", "irt-moe+task"]);
    const row = (name: string) => report.methods.find((m) => m.name === name)!.routingAccuracy;
    expect(row("irt-moe+task")).toBeGreaterThanOrEqual(row("best-per-task") - 1e-9);
    expect(row("irt-moe+task")).toBeGreaterThan(row("irt-moe") + 0.1);
    expect(summarise(report)).toMatch(/irt-moe\+task vs best-per-task: [+-−]?\d\.\d+, paired 95% CI \[/);
  });
});
