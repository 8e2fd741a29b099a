/**
 * The world of one seed of the online simulation: which models are left out, the item model trained
 * without them (IRT-MoE, temperature folded into alpha and beta), and every item's parameters.
 * Shared by `bench/online/main.ts` (the benchmark) and `bench/dev/calibration.ts` (validation-only development).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import type { Tf } from "../../adapters/tf.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { fitKnownPriorOnTraining, seededRng, type KnownPrior } from "../../src/learning/index.js";
import { foldedItemParams, trainIrtMoe, type EmbeddedLabels, type IrtMoeConfig } from "../../src/scorer/index.js";
import type { SimConfig, SimWorld } from "./sim.js";

/** The item model used in the simulation: a small IRT-MoE (documented in docs/online.md). */
export const SIM_SCORER_CONFIG: Partial<IrtMoeConfig> = {
  experts: 4,
  hidden: 128,
  out: 64,
  abilityDim: 64,
  maxEpochs: 20,
  patience: 3,
};

export const CHECKPOINTS = [0, 50, 100, 300, 1000, 3000];

/**
 * The leave-out of each built-in dataset: which models the item model never sees, chosen so the held-out models
 * would win items the known ones lose (a gap to close). Documented per dataset in docs/online.md.
 * - MMLU-Pro: the 3 strongest and 2 random of 29 models.
 * - RouterDC: the 3 strongest of 7, which are also the two math specialists (GSM8K 75-76% against 57% for the
 *   best remaining model) and the best on the Chinese exams; "top:2" would keep a math specialist known and leave no gap.
 * - RouterBench: the 2 strongest (gpt-4-1106-preview, Yi-34B-Chat) and 1 random of 11.
 * A dataset without an entry (a your-own-data folder) leaves out the 2 strongest and 1 random model.
 * RouteLLM has 2 models: holding one out leaves one known model, too few for an item model (refused).
 */
export const DEFAULT_LEAVE_OUT: Readonly<Record<string, string>> = {
  "mmlu-pro-29models": "top:3,random:2",
  "routerdc-7models": "top:3",
  "routerbench-subset-11models": "top:2,random:1",
};
export const GENERIC_LEAVE_OUT = "top:2,random:1";

/** The leave-out used for `dataset` when none is given. */
export function defaultLeaveOut(dataset: string): string {
  return DEFAULT_LEAVE_OUT[dataset] ?? GENERIC_LEAVE_OUT;
}

/** The benchmark's simulation settings for one seed (`npm run bench:online`; the dev scripts start from them). */
export function benchSimConfig(seed: number): SimConfig {
  return {
    seed,
    checkpoints: CHECKPOINTS,
    epsilon: 0.1,
    sgdEta: 0.1,
    ucbKappa: 2,
    calibrationCap: 300,
    calibrationBank: 2000,
    calibrationTolerance: 0.03,
    randomOrders: 5,
    bootstrap: 1000,
    // The default router ("learning") explores by Thompson sampling: a separate Thompson row would repeat it.
    routers: ["learning", "learningUcb", "greedy", "sgdEpsilon", "epsilonGreedy"],
  };
}

export function parseLeaveOut(
  spec: string,
  ds: CorrectnessDataset,
  trainItems: readonly number[],
  seed: number,
): number[] {
  const acc = trainAccuracy(ds, trainItems);
  const order = ds.models.map((_, m) => m).sort((a, b) => acc[b]! - acc[a]!);
  const chosen: number[] = [];
  for (const part of spec.split(",")) {
    const top = /^top:(\d+)$/.exec(part);
    const rnd = /^random:(\d+)$/.exec(part);
    if (top) {
      const want = Number(top[1]);
      let added = 0;
      for (const m of order) {
        if (added >= want) break;
        if (!chosen.includes(m)) {
          chosen.push(m);
          added++;
        }
      }
    } else if (rnd) {
      const rng = seededRng(seed * 1009 + 7);
      const pool = ds.models.map((_, m) => m).filter((m) => !chosen.includes(m));
      for (let k = 0; k < Number(rnd[1]) && pool.length > 0; k++)
        chosen.push(pool.splice(Math.floor(rng.next() * pool.length), 1)[0]!);
    } else {
      const m = ds.models.indexOf(part);
      if (m < 0) throw new Error(`--leave-out: model "${part}" is not in ${ds.name} (models: ${ds.models.join(", ")})`);
      if (!chosen.includes(m)) chosen.push(m);
    }
  }
  if (chosen.length >= ds.models.length - 1)
    throw new Error(
      `--leave-out "${spec}" leaves ${ds.models.length - chosen.length} of ${ds.name}'s ${ds.models.length} models in training; ` +
        `the item model needs at least 2 known models, so a held-out model needs a dataset with at least 3` +
        (ds.models.length < 3 ? ` (this one can show only the known models' learning: see docs/online.md)` : ""),
    );
  return chosen;
}

function trainAccuracy(ds: CorrectnessDataset, items: readonly number[]): number[] {
  const s = new Float64Array(ds.models.length);
  const n = new Float64Array(ds.models.length);
  for (const i of items) {
    for (let j = ds.labels.offsets[i]!; j < ds.labels.offsets[i + 1]!; j++) {
      s[ds.labels.model[j]!] += ds.labels.y[j]!;
      n[ds.labels.model[j]!]++;
    }
  }
  return Array.from(s, (v, m) => (n[m] ? v / n[m]! : 0));
}

/** CSR labels of the known models only (held-out columns removed, indices remapped). */
function knownLabels(ds: CorrectnessDataset, keep: readonly number[], X: Float32Array, dim: number): EmbeddedLabels {
  const remap = new Int32Array(ds.models.length).fill(-1);
  keep.forEach((m, k) => (remap[m] = k));
  const offsets = new Int32Array(ds.items.length + 1);
  const model: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < ds.items.length; i++) {
    for (let j = ds.labels.offsets[i]!; j < ds.labels.offsets[i + 1]!; j++) {
      const k = remap[ds.labels.model[j]!]!;
      if (k >= 0) {
        model.push(k);
        y.push(ds.labels.y[j]!);
      }
    }
    offsets[i + 1] = model.length;
  }
  return {
    X,
    dim,
    nItems: ds.items.length,
    nModels: keep.length,
    offsets,
    model: Int32Array.from(model),
    y: Float32Array.from(y),
    models: keep.map((m) => ds.models[m]!),
  };
}

/**
 * Trains the seed's item model without the left-out models and returns the simulation world.
 * `evalRows` (default: the test split) are the items routing and calibration are scored on.
 */
export async function buildWorld(
  tf: Tf,
  ds: CorrectnessDataset,
  emb: { X: Float32Array; dim: number },
  split: { train: readonly number[]; val: readonly number[]; test: readonly number[] },
  leaveOut: string,
  config: Partial<IrtMoeConfig>,
  seed: number,
  log: (s: string) => void,
  evalRows: readonly number[] = split.test,
  fitKnownPrior = true,
): Promise<SimWorld> {
  const heldOut = parseLeaveOut(leaveOut, ds, split.train, seed);
  const keep = ds.models.map((_, m) => m).filter((m) => !heldOut.includes(m));
  log(`seed ${seed}: leave out ${heldOut.map((m) => ds.models[m]).join(", ")}`);
  const ts = performance.now();
  const data = knownLabels(ds, keep, emb.X, emb.dim);
  const trained = await trainIrtMoe(tf, data, { train: split.train, val: split.val }, config, { seed });
  log(
    `  item model: ${trained.history.length} epochs, best ${trained.bestEpoch}, val AUC ${trained.val.auc.toFixed(4)}, T ${trained.temperature.toFixed(3)}, ${((performance.now() - ts) / 1000).toFixed(0)}s`,
  );
  const d = trained.weights.alpha.outDim;
  const { alphas, betas } = foldedItemParams(
    trained,
    emb.X,
    ds.items.map((_, i) => i),
  );
  const knownTheta = new Map<number, Float32Array>();
  keep.forEach((m, k) => knownTheta.set(m, trained.weights.theta.slice(k * d, (k + 1) * d)));
  const knownPrior = fitKnownPrior ? fitWorldKnownPrior(ds, split.train, knownTheta, alphas, betas, d, log) : undefined;
  return {
    models: ds.models,
    d,
    alphas,
    betas,
    offsets: ds.labels.offsets,
    model: ds.labels.model,
    y: ds.labels.y,
    train: split.train,
    test: evalRows,
    heldOut,
    knownTheta,
    knownPrior,
  };
}

/**
 * The known-model prior fitted on the world's train split, the way the training pipeline fits it for an
 * artifact (one workload per known model and category; src/learning/known-prior.ts). Undefined without categories.
 */
function fitWorldKnownPrior(
  ds: CorrectnessDataset,
  train: readonly number[],
  knownTheta: ReadonlyMap<number, Float32Array>,
  alphas: Float32Array,
  betas: Float32Array,
  d: number,
  log: (s: string) => void,
): KnownPrior | undefined {
  const t0 = performance.now();
  const abilities = ds.models.map((_, m) => knownTheta.get(m));
  const fit = fitKnownPriorOnTraining({
    dim: d,
    alphas,
    betas,
    abilities,
    labels: ds.labels,
    rows: train,
    groupOf: (i) => ds.items[i]!.category,
  });
  if (fit)
    log(
      `  known-model prior scale ${fit.scale.toFixed(4)}${fit.atBoundary ? " (at the end of the search range)" : ""} (${fit.groups} groups, ${((performance.now() - t0) / 1000).toFixed(0)}s)`,
    );
  return fit ? { scale: fit.scale, shrinkage: fit.shrinkage } : undefined;
}

/**
 * The seed's world with the VALIDATION split as its evaluation rows (for validation-only development runs:
 * bench/dev/calibration.ts, bench/dev/calibration-update.ts, bench/dev/exploration.ts), cached in .cache/online-bench
 * (item parameters, known abilities and the known-model prior fitted on the train split, as the benchmark's world has).
 */
export async function validationWorld(
  tf: Tf,
  ds: CorrectnessDataset,
  emb: { X: Float32Array; dim: number; source?: string },
  split: { train: readonly number[]; val: readonly number[]; test: readonly number[] },
  leaveOut: string,
  seed: number,
  log: (s: string) => void,
  /** Fit the known-model prior (minutes on MMLU-Pro); calibration studies, which never use it, skip it. */
  fitKnownPrior = true,
): Promise<SimWorld> {
  type Cached = {
    d: number;
    alphas: number[];
    betas: number[];
    heldOut: number[];
    knownTheta: [number, number[]][];
    knownPrior?: KnownPrior | null;
  };
  const key = createHash("sha256")
    .update(
      JSON.stringify({
        v: 1,
        data: ds.source.sha256,
        lo: leaveOut,
        config: SIM_SCORER_CONFIG,
        seed,
        // USE-lite worlds keep their earlier key (no encoder field); any other encoder's vectors are keyed by its id.
        ...(emb.source && !emb.source.startsWith("use-lite") ? { emb: emb.source.replace(/ \(.*$/, "") } : {}),
        ...(fitKnownPrior ? {} : { noKnownPrior: true }),
      }),
    )
    .digest("hex")
    .slice(0, 16);
  const file = join(
    dirname(fileURLToPath(import.meta.url)),
    "..",
    "..",
    ".cache",
    "online-bench",
    `world-val-${key}.json`,
  );
  const fromCache = (j: Cached): SimWorld => ({
    models: ds.models,
    d: j.d,
    alphas: Float32Array.from(j.alphas),
    betas: Float32Array.from(j.betas),
    offsets: ds.labels.offsets,
    model: ds.labels.model,
    y: ds.labels.y,
    train: split.train,
    test: split.val,
    heldOut: j.heldOut,
    knownTheta: new Map(j.knownTheta.map(([m, t]) => [m, Float32Array.from(t)])),
    ...(j.knownPrior ? { knownPrior: j.knownPrior } : {}),
  });
  if (existsSync(file)) {
    const j = JSON.parse(readFileSync(file, "utf8")) as Cached;
    if (j.knownPrior === undefined && fitKnownPrior) {
      // Cached before worlds kept their known-model prior: fit it on the cached item model (train split only).
      const w = fromCache(j);
      j.knownPrior = fitWorldKnownPrior(ds, split.train, w.knownTheta, w.alphas, w.betas, w.d, log) ?? null;
      writeFileSync(file, JSON.stringify(j));
    }
    return fromCache(j);
  }
  const w = await buildWorld(tf, ds, emb, split, leaveOut, SIM_SCORER_CONFIG, seed, log, split.val, fitKnownPrior);
  mkdirSync(dirname(file), { recursive: true });
  const cached: Cached = {
    d: w.d,
    alphas: Array.from(w.alphas),
    betas: Array.from(w.betas),
    heldOut: [...w.heldOut],
    knownTheta: [...w.knownTheta].map(([m, t]) => [m, Array.from(t)]),
    knownPrior: w.knownPrior ?? null,
  };
  writeFileSync(file, JSON.stringify(cached));
  return w;
}
