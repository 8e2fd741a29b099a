import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { runEvaluation } from "../../adapters/eval/run.js";
import { createRng } from "../../src/util/random.js";
import { formatEvalJson, formatEvalMarkdown } from "../../src/eval/format.js";
import { splitIndices } from "../../src/data/split.js";
import { embedDataset } from "../../adapters/data/embedding-cache.js";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { defaultUseLiteInfo, UseLiteEncoder } from "../../adapters/encoders/use-lite.js";
import { EncoderMismatchError, ValidationError } from "../../src/errors.js";
import { rejectedWith } from "../errors.js";
import { Sink } from "../cli/sink.js";
import { TestEncoder } from "../data/test-encoder.js";
import { saveToyScorer, TOY_ARCH } from "../scorer/helpers.js";

// A your-own-data folder where model "coder" is right on code items, "writer" on prose items and
// "big" (expensive) on 80% of both: routing must beat the best single model at a fraction of the cost.
const dir = mkdtempSync(join(tmpdir(), "irt-eval-"));
const folder = join(dir, "toy-logs");
const rng = createRng(9);
const items: string[] = ["item_id,text,category"];
const labels: string[] = ["item_id,model,correct,cost_usd"];
const n = 400;
const topic: number[] = [];
for (let i = 0; i < n; i++) {
  const t = i % 2;
  topic.push(t);
  items.push(
    `q${i},${t === 0 ? "write a python function" : "write a short poem"} number ${i},${t === 0 ? "code" : "prose"}`,
  );
  const hit = (p: number) => (rng.next() < p ? 1 : 0);
  labels.push(`q${i},coder,${hit(t === 0 ? 0.95 : 0.2)},0.0001`);
  labels.push(`q${i},writer,${hit(t === 1 ? 0.95 : 0.2)},0.0001`);
  labels.push(`q${i},big,${hit(0.8)},0.003`);
}

describe("runEvaluation on a your-own-data folder", async () => {
  mkdirSync(folder);
  writeFileSync(join(folder, "items.csv"), `${items.join("\n")}\n`);
  writeFileSync(join(folder, "labels.csv"), `${labels.join("\n")}\n`);
  writeFileSync(
    join(folder, "models.csv"),
    "model,input_usd_per_1m,output_usd_per_1m\ncoder,0.2,0.2\nwriter,0.2,0.2\nbig,10,30\n",
  );
  const sink = { write: () => true, isTTY: false } as unknown as NodeJS.WritableStream;
  const { report, dataset } = await runEvaluation({
    dataset: folder,
    seeds: 2,
    methods: ["knn", "logistic-regression"],
    log: sink,
    // Deterministic stand-in for the text encoder: the topic plus noise, 8 dims.
    embed: async (ds) => {
      const dim = 8;
      const X = new Float32Array(ds.items.length * dim);
      const r = createRng(1);
      ds.items.forEach((it, i) => {
        for (let k = 0; k < dim; k++) X[i * dim + k] = r.normal() * 0.3;
        X[i * dim + (it.category === "code" ? 0 : 1)]! += 2;
      });
      return { X, dim, encoderId: "toy" };
    },
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("evaluates on the protocol split of the folder with every row", () => {
    expect(dataset.name).toBe("toy-logs");
    expect(report.counts.train + report.counts.val + report.counts.test).toBe(n);
    expect(report.methods.map((m) => m.name)).toEqual([
      "knn",
      "logistic-regression",
      "best-single",
      "best-per-task",
      "random",
      "oracle",
    ]);
    expect(report.methods[1]!.perSeed).toHaveLength(2);
    expect(report.methods.every((m) => m.diffVsIrtMoe === null)).toBe(true); // no irt-moe row requested
  });

  it("routes by topic far above the best single model", () => {
    const best = report.methods.find((m) => m.name === "best-single")!.routingAccuracy;
    for (const name of ["knn", "logistic-regression"]) {
      expect(report.methods.find((m) => m.name === name)!.routingAccuracy).toBeGreaterThan(best + 0.05);
    }
    expect(report.categories.map((c) => c.category)).toEqual(["code", "prose"]);
  });

  it("uses the folder's list prices for the ex-ante cost and saves money at equal accuracy", () => {
    expect(report.costReference!.bestSingle.model).toBe("big");
    expect(report.costReference!.note).toMatch(/list prices for 3 of 3 models/);
    const knn = report.methods.find((m) => m.name === "knn")!.costAware!;
    expect(knn.matchCostFraction).not.toBeNull();
    expect(knn.matchCostFraction!).toBeLessThan(0.5);
    expect(JSON.parse(formatEvalJson(report)).methods[0].costAware).toHaveProperty("hullArea");
  });
});

describe("runEvaluation on a your-own-data folder with blank cost_usd cells", () => {
  const base = mkdtempSync(join(tmpdir(), "irt-eval-blank-"));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  const sink = { write: () => true, isTTY: false } as unknown as NodeJS.WritableStream;
  const embed = async (ds: { items: readonly { category?: string }[] }) => {
    const X = new Float32Array(ds.items.length * 2).map((_, k) =>
      (k % 2 === 0) === (ds.items[k >> 1]!.category === "code") ? 1 : 0,
    );
    return { X, dim: 2, encoderId: "toy" };
  };
  /** The toy folder with the cost of model "big" left blank on the items `blank` picks (from the protocol split of `name`). */
  function folderWithBlanks(
    name: string,
    blank: (split: { train: number[]; val: number[]; test: number[] }) => number[],
    modelsCsv?: string,
  ): string {
    const dir = join(base, name);
    mkdirSync(dir);
    if (modelsCsv) writeFileSync(join(dir, "models.csv"), modelsCsv);
    const split = splitIndices(
      name,
      Array.from({ length: n }, (_, i) => `q${i}`),
    );
    const blanks = new Set(blank(split).map((i) => `q${i},big,`));
    writeFileSync(join(dir, "items.csv"), `${items.join("\n")}\n`);
    writeFileSync(
      join(dir, "labels.csv"),
      `${labels.map((l) => ([...blanks].some((b) => l.startsWith(b)) ? l.replace(/,0\.003$/, ",") : l)).join("\n")}\n`,
    );
    return dir;
  }

  it("gives no cost-aware figures when val or test calls have no recorded cost, and names them", async () => {
    const dir = folderWithBlanks("blank-test", (s) => [s.test[0]!, s.test[1]!]);
    const { report } = await runEvaluation({ dataset: dir, seeds: 1, methods: ["knn"], log: sink, embed });
    expect(report.methods.every((m) => m.costAware === undefined)).toBe(true);
    expect(report.costAwareNotComputed!.unknownCost).toEqual({ train: 0, val: 0, test: 2 });
    expect(formatEvalMarkdown(report)).toMatch(
      /Cost-aware figures not computed: 2 of the \d+ observed val and test calls have no recorded cost .*item "q\d+" with model "big"/,
    );
  });

  it("with blanks in train only, computes them from the other calls and says how many were without a cost", async () => {
    const dir = folderWithBlanks("blank-train", (s) => s.train.slice(0, 7));
    const { report } = await runEvaluation({ dataset: dir, seeds: 1, methods: ["knn"], log: sink, embed });
    expect(report.costReference!.unknownTrainCost).toBe(7);
    expect(report.costReference!.note).toMatch(
      /big: train mean [0-9.e-]+ USD \(no list price\) \(from \d+ train calls; 7 without a recorded cost\)/,
    );
    expect(report.methods[0]!.costAware!.matchCostFraction).not.toBeNull();
  });

  it("a model with a list price but no recorded train cost is said to be just that, not to have no list price", async () => {
    const prices = "model,input_usd_per_1m,output_usd_per_1m\ncoder,0.2,0.2\nwriter,0.2,0.2\nbig,10,30\n";
    const dir = folderWithBlanks("blank-big-train", (s) => s.train, prices);
    const { report } = await runEvaluation({ dataset: dir, seeds: 1, methods: ["knn"], log: sink, embed });
    expect(report.costAwareNotComputed).toMatchObject({
      modelsWithoutEstimate: ["big"],
      unknownCost: { val: 0, test: 0 },
    });
    expect(report.costAwareNotComputed!.reason).toMatch(
      /no ex-ante cost estimate for "big" \(a list price, but no train call with a recorded cost to learn its expected output tokens from\)/,
    );
    expect(report.costAwareNotComputed!.reason).not.toMatch(/no list price/);
  });
});

describe("runEvaluation with a saved scorer", () => {
  const folder2 = mkdtempSync(join(tmpdir(), "irt-eval-model-"));
  const sink = { write: () => true, isTTY: false } as unknown as NodeJS.WritableStream;
  writeFileSync(join(folder2, "items.csv"), `${items.join("\n")}\n`);
  writeFileSync(join(folder2, "labels.csv"), `${labels.join("\n")}\n`);
  afterAll(() => rmSync(folder2, { recursive: true, force: true }));

  it("checks the artifact before embedding anything, and refuses a model without the irt-moe method", async () => {
    let embedded = 0;
    const embed = async () => {
      embedded++;
      return { X: new Float32Array(n * 2), dim: 2, encoderId: "toy" };
    };
    await expect(
      runEvaluation({ dataset: folder2, model: join(folder2, "no-such-artifact"), log: sink, embed }),
    ).rejects.toMatchObject({ code: "ARTIFACT_FORMAT" });
    await expect(
      runEvaluation({ dataset: folder2, model: "pretrained", methods: ["knn"], log: sink, embed }),
    ).rejects.toMatchObject({ path: "options.model" });
    // irt-moe's hyperparameters are checked up front too, and do not apply to a saved scorer
    await expect(
      runEvaluation({ dataset: folder2, irtMoeConfig: { expertz: 2 } as never, log: sink, embed }),
    ).rejects.toMatchObject({ path: "options.irtMoeConfig.expertz" });
    await expect(
      runEvaluation({ dataset: folder2, model: "pretrained", irtMoeConfig: { experts: 2 }, log: sink, embed }),
    ).rejects.toMatchObject({ path: "options.irtMoeConfig" });
    // ... and are refused, like model, when irt-moe is not among the methods (they would be silently ignored)
    const unused = await rejectedWith(
      ValidationError,
      runEvaluation({ dataset: folder2, methods: ["knn"], irtMoeConfig: { experts: 2 }, log: sink, embed }),
    );
    expect(unused).toMatchObject({ path: "options.irtMoeConfig" });
    expect(unused.message).toMatch(/add irt-moe to options\.methods, or leave irtMoeConfig out/);
    expect(embedded).toBe(0);
  });

  /** A toy scorer artifact built with the encoder "toy" (8-d), not the default one. */
  const toyScorer = () => saveToyScorer(join(folder2, "toy-scorer"), "toy", ["coder", "writer", "big"]);

  it("scores the embeddings with an artifact of any encoder, and names its manifest when the embeddings come from another", async () => {
    const dir = await toyScorer();
    const embedWith = (encoderId: string) => async () => ({
      X: new Float32Array(n * TOY_ARCH.inDim).map((_, k) => Math.sin(k)),
      dim: TOY_ARCH.inDim,
      encoderId,
    });
    // not the default encoder's artifact, but only embeddings are scored: no text encoder is needed
    const { report } = await runEvaluation({
      dataset: folder2,
      model: dir,
      methods: ["irt-moe"],
      seeds: 1,
      log: sink,
      embed: embedWith("toy"),
    });
    expect(report.methods[0]!.name).toBe("irt-moe");
    const err = await rejectedWith(
      EncoderMismatchError,
      runEvaluation({
        dataset: folder2,
        model: dir,
        methods: ["irt-moe"],
        seeds: 1,
        log: sink,
        embed: embedWith("other"),
      }),
    );
    expect(err).toMatchObject({ code: "ENCODER_MISMATCH", file: join(dir, "manifest.json"), path: "options.model" });
  });

  it("with the default embedder, refuses an artifact of another encoder before anything is embedded (the encoder is not even loaded)", async () => {
    const dir = await toyScorer();
    const cache = mkdtempSync(join(tmpdir(), "irt-eval-cache-"));
    const before = process.env.IRT_ROUTER_CACHE;
    process.env.IRT_ROUTER_CACHE = cache;
    const load = vi
      .spyOn(UseLiteEncoder, "load")
      .mockRejectedValue(new Error("the default encoder was loaded to embed the dataset"));
    try {
      const err = await rejectedWith(
        EncoderMismatchError,
        runEvaluation({ dataset: folder2, model: dir, methods: ["irt-moe"], seeds: 1, log: sink }),
      );
      expect(err).toMatchObject({
        code: "ENCODER_MISMATCH",
        file: join(dir, "manifest.json"),
        path: "options.model",
        expected: { id: "toy" },
        actual: await defaultUseLiteInfo(),
      });
      expect(err.message).toMatch(/irt-router train/);
      expect(load).not.toHaveBeenCalled();
    } finally {
      load.mockRestore();
      if (before === undefined) delete process.env.IRT_ROUTER_CACHE;
      else process.env.IRT_ROUTER_CACHE = before;
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it("the default embedder writes its lines to the given log, not to stderr", async () => {
    const cache = mkdtempSync(join(tmpdir(), "irt-eval-cache-"));
    const before = process.env.IRT_ROUTER_CACHE;
    process.env.IRT_ROUTER_CACHE = cache;
    try {
      // the dataset's vectors cached under the default encoder's id (stand-in vectors): served without loading it
      const info = await defaultUseLiteInfo();
      await embedDataset(await loadDataset(folder2), new TestEncoder(info.id, info.dim), { cacheDir: cache });
      const log = new Sink();
      const { embeddings } = await runEvaluation({
        dataset: folder2,
        methods: ["knn"],
        seeds: 1,
        log: log as unknown as NodeJS.WritableStream,
      });
      expect(embeddings.fromCache).toBe(true);
      expect(log.text).toMatch(/embedding irt-eval-model-\w+: 400 texts served from the cache/);
    } finally {
      if (before === undefined) delete process.env.IRT_ROUTER_CACHE;
      else process.env.IRT_ROUTER_CACHE = before;
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
