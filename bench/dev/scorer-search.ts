/**
 * Validation-only hyperparameter and ensemble search for the IRT-MoE scorer (`npm run search:scorer`).
 *
 * For each dataset and named variant it trains the scorer once per seed on the train split (early-stopped
 * on val), keeps the raw validation logits in `.cache/scorer-search/`, and prints validation metrics of each
 * run, of each variant's mean over seeds, and of logit-averaged ensembles over its seeds. The test split is
 * never read: every choice recorded in docs/scorer.md was made on these validation figures.
 *
 *   npx tsx bench/dev/scorer-search.ts --dataset mmlu-pro-29models --variants default,d64 --seeds 1,2,3
 *   npx tsx bench/dev/scorer-search.ts --variants default,baseline:knn --blend default+baseline:knn
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { createHash } from "node:crypto";
import { getDatasetEmbeddings } from "../../adapters/data/index.js";
import { getTf } from "../../adapters/tf.js";
import type { IrtMoeConfig } from "../../src/scorer/config.js";
import { sigmoid } from "../../src/util/maths.js";
import { joinDatasets } from "../../src/scorer/dataset.js";
import { predictItems } from "../../src/scorer/forward.js";
import { ece, logLoss, observedPairs, rocAuc, routingAccuracy } from "../../src/scorer/metrics.js";
import { trainIrtMoe } from "../../src/scorer/train.js";
import { fitTemperature } from "../../src/scorer/temperature-scaling.js";
import {
  embedLlmMfBaseline,
  knnBaseline,
  linearMirtBaseline,
  logisticRegressionBaseline,
} from "../../src/baselines/index.js";
import type { RoutingMethod } from "../../src/eval/types.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { ngramHashFeatures } from "./ngram-hash.js";
import { scriptFlags, seedListFlag } from "../flags.js";

/** Baselines whose validation figures are printed beside the variants (`--variants baseline:linear-mirt`). */
const BASELINES: Record<string, () => RoutingMethod> = {
  knn: () => knnBaseline(),
  "logistic-regression": () => logisticRegressionBaseline(),
  "linear-mirt": () => linearMirtBaseline(),
  "embedllm-mf": () => embedLlmMfBaseline(),
};

/** The bench/ folder (this study's entry sits one level below it). */
const here = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The variants searched; each is a partial config over the defaults. */
export const SEARCH_VARIANTS: Record<string, Partial<IrtMoeConfig>> = {
  default: {},
  d64: { abilityDim: 64 },
  reg: { dropout: 0.5, inputNoise: 0.05 },
  lr5e4: { learningRate: 5e-4, maxEpochs: 40, patience: 5 },
  auc: { earlyStopOn: "auc" },
  ema: { emaDecay: 0.99 },
  /** The configuration the authors' code did best with on this data (issue #8): 8 experts, H = 256, d = 64. */
  authors: { experts: 8, hidden: 256, out: 128, abilityDim: 64 },
  /** BCE plus the per-item listwise loss (rankWeight) at two weights. */
  rank03: { rankWeight: 0.3 },
  rank1: { rankWeight: 1 },
};

const values = scriptFlags(
  "search:scorer",
  {
    dataset: { type: "string", multiple: true },
    variants: { type: "string" },
    seeds: { type: "string" },
    config: { type: "string" },
    ngram: { type: "string" },
    blend: { type: "string", multiple: true },
  },
  z
    .object({
      dataset: z.array(z.string().min(1)).optional(),
      variants: z.string().min(1).default("default"),
      seeds: seedListFlag().default([1, 2, 3]),
      config: z.string().optional(),
      /** Hashed n-gram features beside the embedding: "<buckets>" or "<buckets>:<scale>" (kept as typed: a cache key). */
      ngram: z
        .string()
        .regex(/^[1-9][0-9]*(:[0-9]*\.?[0-9]+)?$/, "takes <buckets> or <buckets>:<scale>, e.g. 4096 or 4096:0.5")
        .optional(),
      /** Seed-wise logit blends of two of the variants run, "<a>+<b>" (e.g. default+baseline:knn), at weights 0.25 / 0.5 / 0.75 on <a>. */
      blend: z.array(z.string()).optional(),
    })
    .strict(),
);

interface Run {
  logits: Float32Array;
  bestEpoch: number;
  epochs: number;
  seconds: number;
}

function metrics(
  logits: Float32Array,
  nModels: number,
  labels: Parameters<typeof observedPairs>[2],
  rows: readonly number[],
) {
  const zPairs = observedPairs(logits, nModels, labels, rows);
  const cal = fitTemperature(zPairs.p, zPairs.y);
  const p = Float32Array.from(logits, (z) => sigmoid(z / cal.temperature));
  const pairs = observedPairs(p, nModels, labels, rows);
  return {
    loss: logLoss(pairs.p, pairs.y),
    auc: rocAuc(pairs.p, pairs.y),
    ece: ece(pairs.p, pairs.y),
    routing: routingAccuracy(p, nModels, labels, rows),
  };
}

/** Mean of `f` over runs. */
const meanOf = <T>(xs: readonly T[], f: (x: T) => number): number => xs.reduce((s, x) => s + f(x), 0) / xs.length;

const fmt = (m: ReturnType<typeof metrics>) =>
  `loss ${m.loss.toFixed(4)} AUC ${m.auc.toFixed(4)} routing ${m.routing.toFixed(4)} ECE ${m.ece.toFixed(4)}`;

/**
 * Reference points on validation: the best single model (highest train accuracy) and a subject-label router
 * (per item category, the model with the highest train accuracy in that category). The second uses dataset
 * metadata that no user has at routing time, so it is a yardstick, never a method.
 */
function printReferences(
  name: string,
  ds: CorrectnessDataset,
  split: { train: readonly number[]; val: readonly number[] },
): void {
  const accuracy = (rows: readonly number[]) => {
    const s = new Float64Array(ds.models.length);
    const n = new Float64Array(ds.models.length);
    for (const i of rows) {
      for (let j = ds.labels.offsets[i]!; j < ds.labels.offsets[i + 1]!; j++) {
        s[ds.labels.model[j]!] += ds.labels.y[j]!;
        n[ds.labels.model[j]!]++;
      }
    }
    return Array.from(s, (v, m) => (n[m] ? v / n[m]! : 0));
  };
  const argmax = (a: number[]) => a.indexOf(Math.max(...a));
  const label = (i: number, m: number) => {
    for (let j = ds.labels.offsets[i]!; j < ds.labels.offsets[i + 1]!; j++)
      if (ds.labels.model[j] === m) return ds.labels.y[j]!;
    return undefined;
  };
  const scoreOn = (rows: readonly number[], pick: (i: number) => number) => {
    let sum = 0;
    let n = 0;
    for (const i of rows) {
      const y = label(i, pick(i));
      if (y === undefined) continue;
      sum += y;
      n++;
    }
    return sum / n;
  };
  const best = argmax(accuracy(split.train));
  const byCategory = new Map<string, number>();
  for (const c of new Set(ds.items.map((it) => it.category ?? "")))
    byCategory.set(c, argmax(accuracy(split.train.filter((i) => (ds.items[i]!.category ?? "") === c))));
  console.log(
    `${name} references on val: best single (${ds.models[best]}) ${scoreOn(split.val, () => best).toFixed(4)}; ` +
      `subject-label router (uses item categories: not a method) ${scoreOn(split.val, (i) => byCategory.get(ds.items[i]!.category ?? "")!).toFixed(4)}`,
  );
}

const { tf } = await getTf();
const seeds = values.seeds;
const extra: Partial<IrtMoeConfig> = values.config ? JSON.parse(values.config) : {};
for (const name of values.dataset ?? ["mmlu-pro-29models"]) {
  const emb = await getDatasetEmbeddings(name);
  let vectors = emb.vectors;
  let dim = emb.dim;
  if (values.ngram) {
    const [buckets, scale] = values.ngram.split(":").map(Number);
    const opts = { buckets: buckets!, scale: scale ?? 1 };
    dim = emb.dim + opts.buckets;
    vectors = new Float32Array(emb.dataset.items.length * dim);
    const f = new Float32Array(opts.buckets);
    emb.dataset.items.forEach((it, i) => {
      vectors.set(emb.vectors.subarray(i * emb.dim, (i + 1) * emb.dim), i * dim);
      vectors.set(ngramHashFeatures(it.text, opts, f), i * dim + emb.dim);
    });
  }
  const joined = joinDatasets([{ dataset: emb.dataset, vectors, dim }]);
  const { data, split } = joined;
  const val = split.val;
  printReferences(name, emb.dataset, split);
  const logitsOf = (p: Float32Array) =>
    Float32Array.from(p, (q) => Math.log(Math.max(1e-7, q) / Math.max(1e-7, 1 - q)));
  const tag = values.ngram ? ` +ngram ${values.ngram}` : "";
  const runsOf = new Map<string, Run[]>();
  for (const variant of values.variants.split(",")) {
    const baseline = variant.startsWith("baseline:") ? BASELINES[variant.slice(9)] : undefined;
    const config = { ...SEARCH_VARIANTS[variant], ...extra };
    if (!SEARCH_VARIANTS[variant] && !baseline)
      throw new Error(`unknown variant ${variant}; known: ${Object.keys(SEARCH_VARIANTS).join(", ")}`);
    const runs: Run[] = [];
    for (const seed of seeds) {
      const key = createHash("sha256")
        .update(
          JSON.stringify({
            v: 1,
            data: emb.dataset.source.sha256,
            config,
            seed,
            ...(values.ngram ? { ngram: values.ngram } : {}),
          }),
        )
        .digest("hex")
        .slice(0, 16);
      const file = join(
        here,
        "..",
        ".cache",
        "scorer-search",
        `${name}-${variant}${values.ngram ? `-ng${values.ngram}` : ""}-s${seed}-${key}.json`,
      );
      let run: Run;
      if (existsSync(file)) {
        const j = JSON.parse(await readFile(file, "utf8"));
        run = { ...j, logits: Float32Array.from(j.logits) };
      } else {
        if (baseline) {
          const t0 = performance.now();
          const fitted = await baseline().fit(data, split, { seed });
          run = {
            logits: logitsOf(await fitted.predict(data.X, val)),
            bestEpoch: 0,
            epochs: 0,
            seconds: (performance.now() - t0) / 1000,
          };
        } else {
          const t = await trainIrtMoe(tf, data, split, config, { seed });
          const p = predictItems({ weights: t.weights, temperature: 1 }, data.X, val);
          run = { logits: logitsOf(p), bestEpoch: t.bestEpoch, epochs: t.history.length, seconds: t.trainSeconds };
        }
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, JSON.stringify({ ...run, logits: Array.from(run.logits) }));
      }
      runs.push(run);
      console.log(
        `${name} ${variant}${tag} seed ${seed}: ${fmt(metrics(run.logits, data.nModels, data, val))} (best epoch ${run.bestEpoch}/${run.epochs}, ${run.seconds.toFixed(0)} s)`,
      );
    }
    runsOf.set(variant, runs);
    const each = runs.map((r) => metrics(r.logits, data.nModels, data, val));
    const mean = (f: (m: (typeof each)[number]) => number) => meanOf(each, f);
    const sd = (f: (m: (typeof each)[number]) => number) =>
      Math.sqrt(each.reduce((s, m) => s + (f(m) - mean(f)) ** 2, 0) / Math.max(1, each.length - 1));
    console.log(
      `${name} ${variant}${tag} mean of ${runs.length}: loss ${mean((m) => m.loss).toFixed(4)} AUC ${mean((m) => m.auc).toFixed(4)} routing ${mean((m) => m.routing).toFixed(4)} ± ${sd((m) => m.routing).toFixed(4)} ECE ${mean((m) => m.ece).toFixed(4)}`,
    );
    if (runs.length > 1) {
      const avg = new Float32Array(runs[0]!.logits.length);
      for (const r of runs) r.logits.forEach((z, i) => (avg[i]! += z / runs.length));
      console.log(`${name} ${variant}${tag} ensemble of ${runs.length}: ${fmt(metrics(avg, data.nModels, data, val))}`);
    }
  }
  for (const pair of values.blend ?? []) {
    const [a, b] = pair.split("+");
    const ra = runsOf.get(a!);
    const rb = runsOf.get(b!);
    if (!ra || !rb) throw new Error(`--blend ${pair}: run both variants (--variants ${a},${b})`);
    for (const w of [0.25, 0.5, 0.75]) {
      const each = ra.map((r, k) =>
        metrics(
          Float32Array.from(r.logits, (z, i) => w * z + (1 - w) * rb[k]!.logits[i]!),
          data.nModels,
          data,
          val,
        ),
      );
      const mean = (f: (m: (typeof each)[number]) => number) => meanOf(each, f);
      console.log(
        `${name} blend ${w} x ${a} + ${1 - w} x ${b}${tag} mean of ${each.length}: loss ${mean((m) => m.loss).toFixed(4)} AUC ${mean((m) => m.auc).toFixed(4)} routing ${mean((m) => m.routing).toFixed(4)} ECE ${mean((m) => m.ece).toFixed(4)} (per seed ${each.map((m) => m.routing.toFixed(4)).join(", ")})`,
      );
    }
  }
}
