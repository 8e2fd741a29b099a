/**
 * The online-learning simulation (pure: no I/O). Given a fixed item model (alpha_q, beta_q for
 * every item, theta for the known models), stream train-split items as bandit feedback and measure
 * test-split routing accuracy of several routers at checkpoints; then measure adaptive calibration.
 * Used by bench/online/main.ts; see docs/online.md for the protocol.
 */
import {
  calibrateModel,
  ItemTracker,
  OnlineLearner,
  probeBankFrom,
  seededRng,
  type Exploration,
  type KnownPrior,
  type LearnerOptions,
} from "../../src/learning/index.js";
import { cholesky, choleskySolve } from "../../src/learning/linalg.js";
import type { PopulationPrior } from "../../src/learning/prior.js";
import { sigmoid } from "../../src/util/maths.js";

/** Everything the simulation needs about one seed's world. */
export interface SimWorld {
  /** All model ids of the dataset (index = model index in the labels). */
  readonly models: readonly string[];
  readonly d: number;
  /** Item parameters of every item (temperature folded in): nItems x d, and nItems. */
  readonly alphas: Float32Array;
  readonly betas: Float32Array;
  /** CSR labels of the full dataset. */
  readonly offsets: Int32Array;
  readonly model: Int32Array;
  readonly y: Float32Array;
  readonly train: readonly number[];
  readonly test: readonly number[];
  /** Model indices left out of the item model's training. */
  readonly heldOut: readonly number[];
  /** Known abilities from the item model, by model index (held-out ones absent). */
  readonly knownTheta: ReadonlyMap<number, Float32Array>;
  /** Known-model prior fitted on the train split (absent: the learner's default). */
  readonly knownPrior?: KnownPrior;
}

export interface SimConfig {
  readonly seed: number;
  readonly checkpoints: readonly number[];
  /** Exploration rate of the SGD ablation and the per-model bandit. */
  readonly epsilon: number;
  /** Normalised SGD step: theta += eta (y - p) alpha / |alpha|^2. */
  readonly sgdEta: number;
  readonly ucbKappa: number;
  readonly calibrationCap: number;
  /** Probe bank size per held-out model: a seeded sample of its train-split items. */
  readonly calibrationBank: number;
  readonly calibrationTolerance: number;
  /** Random probe orders per held-out model (the random baseline's median pools all of them). */
  readonly randomOrders: number;
  readonly bootstrap: number;
  /** Prior options of the posterior routers (defaults of OnlineLearner when absent). */
  readonly learner?: Pick<LearnerOptions, "inflate" | "knownScale" | "shrinkage">;
  /** Skip the calibration study (tuning runs). */
  readonly skipCalibration?: boolean;
  /**
   * Routers to run (default: all). "static" and "oracle" always run (the gap needs them); a router left out has no
   * curve, and without "learning" `heldOutShare` is NaN. Each router has its own generator, so the ones run give
   * the same curves as in a full run.
   */
  readonly routers?: readonly RouterName[];
}

export interface SeedResult {
  readonly seed: number;
  readonly heldOut: string[];
  /** router name -> test routing accuracy at each checkpoint. */
  readonly curves: Record<string, number[]>;
  readonly gap: { points: number; ci95: [number, number] };
  readonly calibration: {
    model: string;
    trueTestAccuracy: number;
    /** Probes until within tolerance with the default rule ("accuracy": Fisher information about the predicted accuracy). */
    adaptiveProbes: number;
    adaptiveErrorAt100: number;
    /** The same for each seeded random order (`randomOrders` of them); error averaged over the orders. */
    randomProbes: number[];
    randomErrorAt100: number;
    /** The same for the "fisher" rule (Fisher information about theta as a whole). */
    fisherProbes: number;
    fisherErrorAt100: number;
    oracleError: number;
  }[];
  /** Share of exploring-router events routed to held-out models. */
  readonly heldOutShare: number;
  /** Events actually streamed: the last checkpoint, or fewer when the train split is smaller. */
  readonly streamEvents: number;
  /** Known-model prior scale the posterior routers used (fitted on the train split; null: the learner default). */
  readonly knownScale: number | null;
  /** Per test item: oracle minus static correctness (for pooled bootstrap intervals). */
  readonly gapDiffs: Float64Array;
}

/**
 * "learning": the learner at its default exploration (the library's defaults: what a user gets); "thompson": Thompson
 * sampling; "learningUcb": UCB at `ucbKappa`; "greedy": no exploration; the rest are baselines.
 */
const ROUTERS = [
  "learning",
  "thompson",
  "learningUcb",
  "greedy",
  "sgdEpsilon",
  "static",
  "oracle",
  "epsilonGreedy",
] as const;
export type RouterName = (typeof ROUTERS)[number];

function logit(alphas: Float32Array, d: number, i: number, theta: ArrayLike<number>, beta: number): number {
  let z = -beta;
  const o = i * d;
  for (let k = 0; k < d; k++) z += alphas[o + k]! * theta[k]!;
  return z;
}

/** MAP ability of one model on its labels under a Gaussian prior (Newton's method). */
export function fitAbilityMap(w: SimWorld, m: number, items: readonly number[], prior: PopulationPrior): Float64Array {
  const d = w.d;
  const { L } = cholesky(Float64Array.from(prior.covariance), d);
  // prior precision applied via solves: Lambda0 v = solve(Sigma0, v)
  const theta = Float64Array.from(prior.mean);
  const rows: { i: number; y: number }[] = [];
  for (const i of items)
    for (let j = w.offsets[i]!; j < w.offsets[i + 1]!; j++) if (w.model[j] === m) rows.push({ i, y: w.y[j]! });
  for (let iter = 0; iter < 30; iter++) {
    const diff = Float64Array.from(theta, (t, k) => t - prior.mean[k]!);
    const pd = choleskySolve(L, d, diff);
    const g = Float64Array.from(pd, (v) => -v);
    // H = Lambda0 + sum w a a^T ; Lambda0 = Sigma0^{-1}
    const H = new Float64Array(d * d);
    for (let c = 0; c < d; c++) {
      const e = new Float64Array(d);
      e[c] = 1;
      const col = choleskySolve(L, d, e);
      for (let r = 0; r < d; r++) H[r * d + c] = col[r]!;
    }
    for (const { i, y } of rows) {
      const p = sigmoid(logit(w.alphas, d, i, theta, w.betas[i]!));
      const wt = p * (1 - p);
      const o = i * d;
      for (let r = 0; r < d; r++) {
        const ar = w.alphas[o + r]!;
        g[r] += (y - p) * ar;
        const war = wt * ar;
        for (let c = 0; c < d; c++) H[r * d + c] += war * w.alphas[o + c]!;
      }
    }
    const { L: LH } = cholesky(H, d);
    const step = choleskySolve(LH, d, g);
    let norm = 0;
    for (let k = 0; k < d; k++) {
      theta[k] += step[k]!;
      norm += step[k]! * step[k]!;
    }
    if (Math.sqrt(norm) < 1e-6) break;
  }
  return theta;
}

/** Test routing: per-item correctness (0/1 or graded) of the argmax of `score(i, m)` among observed candidates. */
function routeTest(w: SimWorld, score: (i: number, m: number) => number): Float64Array {
  const out = new Float64Array(w.test.length);
  w.test.forEach((i, t) => {
    let best = -Infinity;
    let label = 0;
    for (let j = w.offsets[i]!; j < w.offsets[i + 1]!; j++) {
      const s = score(i, w.model[j]!);
      if (s > best) {
        best = s;
        label = w.y[j]!;
      }
    }
    out[t] = label;
  });
  return out;
}

export const mean = (a: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]!;
  return a.length ? s / a.length : NaN;
};

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Paired bootstrap 95% interval of mean(b - a) over items (one seed of {@link itemBootstrapCi}). */
export function pairedBootstrap(a: Float64Array, b: Float64Array, n: number, seed: number): [number, number] {
  return itemBootstrapCi([Float64Array.from(a, (v, i) => b[i]! - v)], n, seed);
}

/**
 * 95% bootstrap interval of the mean over items of per-item differences, averaged over seeds that score the SAME
 * items in the same order (the benchmark's test split is one set of items for every seed). Each of the `resamples`
 * resamples draws ONE vector of item indices and applies it to every seed, i.e. the seeds' differences are averaged
 * per item inside the resample: the items are the sampling unit, and seeds that repeat an item's noise do not count
 * as more items (resampling each seed's items independently would shrink the interval about sqrt(seeds) times).
 * With one seed this is the plain paired bootstrap. Percentile interval; `seed` seeds the draws.
 */
export function itemBootstrapCi(
  diffsBySeed: readonly ArrayLike<number>[],
  resamples: number,
  seed: number,
): [number, number] {
  const n = diffsBySeed[0]?.length ?? 0;
  if (n === 0) throw new RangeError("itemBootstrapCi needs at least one seed with at least one item");
  for (const [s, d] of diffsBySeed.entries()) {
    if (d.length !== n)
      throw new RangeError(
        `itemBootstrapCi: seed ${s} has ${d.length} items, seed 0 has ${n}; the seeds must score the same items`,
      );
  }
  const perItem = new Float64Array(n);
  for (const d of diffsBySeed) for (let k = 0; k < n; k++) perItem[k] += d[k]!;
  for (let k = 0; k < n; k++) perItem[k] /= diffsBySeed.length;
  const rng = seededRng(seed);
  const stats: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let k = 0; k < n; k++) s += perItem[Math.floor(rng.next() * n)]!;
    stats.push(s / n);
  }
  stats.sort((x, y) => x - y);
  return [stats[Math.floor(0.025 * (resamples - 1))]!, stats[Math.ceil(0.975 * (resamples - 1))]!];
}

/** A held-out model's calibration setup: its probe bank (a seeded sample of its train items, with its
 * recorded labels to replay) and its evaluation items (`w.test`) with their parameters and its true accuracy. */
export function calibrationSetup(w: SimWorld, m: number, seed: number, bankSize: number) {
  const d = w.d;
  const alphaOf = (i: number) => w.alphas.subarray(i * d, (i + 1) * d);
  const bankItems: number[] = [];
  const label = new Map<number, number>();
  const sample = [...w.train];
  const rs = seededRng(seed * 271 + m);
  for (let k = sample.length - 1; k > 0; k--) {
    const j = Math.floor(rs.next() * (k + 1));
    [sample[k], sample[j]] = [sample[j]!, sample[k]!];
  }
  for (const i of sample) {
    if (bankItems.length >= bankSize) break;
    for (let j = w.offsets[i]!; j < w.offsets[i + 1]!; j++) {
      if (w.model[j] === m) {
        bankItems.push(i);
        label.set(i, w.y[j]!);
      }
    }
  }
  const testItems: number[] = [];
  let trueSum = 0;
  for (const i of w.test) {
    for (let j = w.offsets[i]!; j < w.offsets[i + 1]!; j++) {
      if (w.model[j] === m) {
        testItems.push(i);
        trueSum += w.y[j]!;
      }
    }
  }
  const bank = probeBankFrom(
    "sim",
    bankItems.map((i) => ({ id: String(i), alpha: alphaOf(i), beta: w.betas[i]! })),
  );
  const testAlphas = new Float32Array(testItems.length * d);
  testItems.forEach((i, k) => testAlphas.set(alphaOf(i), k * d));
  const testBetas = Float32Array.from(testItems, (i) => w.betas[i]!);
  return { bank, label, testItems, testAlphas, testBetas, trueAcc: trueSum / testItems.length };
}

/** What {@link calibrationSetup} returns. */
export type CalibrationSetup = ReturnType<typeof calibrationSetup>;

/** Mean p over `items` of a model with ability `theta` (point estimate). */
export function predictedAccuracyOf(w: SimWorld, items: readonly number[], theta: ArrayLike<number>): number {
  return mean(items.map((i) => sigmoid(logit(w.alphas, w.d, i, theta, w.betas[i]!))));
}

/**
 * Calibrates one held-out model from the new-model prior with one probe rule, answering from its recorded
 * labels: the number of probes after which its predicted accuracy on the setup's evaluation items is first
 * within `tolerance` of the true one (`cap + 1`: never), and the error after 100 probes. `seed` sets the
 * random rule's order (the adaptive rules are deterministic).
 */
export async function probesToTolerance(args: {
  known: readonly { id: string; ability: ArrayLike<number> }[];
  learner?: LearnerOptions;
  modelId: string;
  setup: CalibrationSetup;
  strategy: "fisher" | "accuracy" | "random";
  /** Share of probes asked in random order, interleaved with the strategy's (calibrateModel's `randomShare`). */
  randomShare?: number;
  /** When the random probes start (calibrateModel's `mixRandom`). */
  mixRandom?: "always" | "on-conflict";
  /**
   * Probes the strategy picks before the seeded random order takes over (calibrateModel's `adaptiveProbes`; default
   * "all": this benchmark measures the strategies themselves, the shipped default is measured by bench:calibration-lodo).
   */
  adaptiveProbes?: number | "all";
  seed: number;
  cap: number;
  tolerance: number;
  /** Development only: ask this many probes by Fisher information about theta first, then go on with `strategy`. */
  warmup?: number;
}): Promise<{ probes: number; at100: number }> {
  const { setup, modelId, cap } = args;
  const learner = new OnlineLearner(args.known, { ...args.learner });
  learner.addModel(modelId);
  const tracker = new ItemTracker(learner.posterior(modelId), setup.testAlphas, setup.testBetas);
  let first = -1;
  let at100 = NaN;
  const check = (asked: number) => {
    const err = Math.abs(tracker.predictedAccuracy() - setup.trueAcc);
    if (first < 0 && err <= args.tolerance) first = asked;
    if (asked === 100) at100 = err;
  };
  check(0);
  const warmup = Math.min(cap, args.warmup ?? 0);
  const phases: ["fisher" | "accuracy" | "random", number][] =
    warmup > 0
      ? [
          ["fisher", warmup],
          [args.strategy, cap - warmup],
        ]
      : [[args.strategy, cap]];
  let done = 0;
  for (const [strategy, budget] of phases) {
    if (budget <= 0) continue;
    const r = await calibrateModel({
      learner,
      modelId,
      probes: setup.bank,
      budget,
      strategy,
      ...(args.randomShare !== undefined ? { randomShare: args.randomShare } : {}),
      ...(args.mixRandom !== undefined ? { mixRandom: args.mixRandom } : {}),
      adaptiveProbes: args.adaptiveProbes ?? "all",
      seed: args.seed,
      targetSd: 0,
      ask: async (probe) => setup.label.get(Number(probe.id))!,
      onProgress: (p) => check(done + p.asked),
    });
    done += r.asked;
  }
  tracker.dispose();
  return { probes: first < 0 ? cap + 1 : first, at100 };
}

/**
 * Epsilon-greedy choice among label entries lo..hi-1: a uniform draw first (always taken, so the generator
 * advances the same way either way), kept with probability epsilon, else the entry with the highest value.
 */
function epsilonGreedyPick(
  r: { next(): number },
  lo: number,
  hi: number,
  epsilon: number,
  value: (k: number) => number,
): number {
  let j = lo + Math.floor(r.next() * (hi - lo));
  if (r.next() >= epsilon) {
    let best = -Infinity;
    for (let k = lo; k < hi; k++) {
      const v = value(k);
      if (v > best) {
        best = v;
        j = k;
      }
    }
  }
  return j;
}

/** Runs every router and the calibration study for one seed. */
export async function simulateSeed(
  w: SimWorld,
  cfg: SimConfig,
  log: (s: string) => void = () => {},
): Promise<SeedResult> {
  const d = w.d;
  const ids = w.models;
  const known = [...w.knownTheta.entries()].map(([m, theta]) => ({ id: ids[m]!, ability: theta }));
  const alphaOf = (i: number) => w.alphas.subarray(i * d, (i + 1) * d);
  const heldOutSet = new Set(w.heldOut);

  // Oracle abilities: item model fixed, each held-out ability fitted on all its train labels.
  // Known models start at the prior scale fitted on the train split (as OnlineLearner.forScorer does for an artifact).
  const learnerOpts = OnlineLearner.optionsForScorer(w, cfg.learner);
  const refLearner = new OnlineLearner(known, learnerOpts);
  const oracleTheta = new Map<number, ArrayLike<number>>(w.knownTheta);
  for (const m of w.heldOut) oracleTheta.set(m, fitAbilityMap(w, m, w.train, refLearner.population));

  // Stream: a seeded permutation of the train items.
  const rng = seededRng(cfg.seed * 7919 + 13);
  const stream = [...w.train];
  for (let i = stream.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [stream[i], stream[j]] = [stream[j]!, stream[i]!];
  }
  const maxEvents = Math.min(stream.length, Math.max(...cfg.checkpoints));

  const curves: Record<string, number[]> = {};
  const perItem: Record<string, Float64Array> = {};

  // Posterior routers (through the public OnlineLearner API).
  // "default": the learner's own exploration defaults (explore, ucbKappa), as a user gets them.
  const runPosterior = (name: RouterName, explore: Exploration | "frozen" | "default") => {
    const learner = new OnlineLearner(known, {
      ...learnerOpts,
      seed: cfg.seed,
      ...(explore === "default" ? {} : { ucbKappa: cfg.ucbKappa, explore: explore === "frozen" ? "none" : explore }),
    });
    for (const m of w.heldOut) learner.addModel(ids[m]!);
    const post = ids.map((id) => learner.posterior(id));
    const evalScore = (i: number, m: number) => post[m]!.predict(alphaOf(i), w.betas[i]!);
    const curve: number[] = [];
    let heldOutPicks = 0;
    let e = 0;
    for (const cp of cfg.checkpoints) {
      if (explore !== "frozen") {
        for (; e < Math.min(cp, maxEvents); e++) {
          const i = stream[e]!;
          const cands: string[] = [];
          for (let j = w.offsets[i]!; j < w.offsets[i + 1]!; j++) cands.push(ids[w.model[j]!]!);
          const chosen = learner.choose({ alpha: alphaOf(i), beta: w.betas[i]! }, cands);
          const mi = ids.indexOf(chosen);
          if (heldOutSet.has(mi)) heldOutPicks++;
          let y = 0;
          for (let j = w.offsets[i]!; j < w.offsets[i + 1]!; j++) if (w.model[j] === mi) y = w.y[j]!;
          learner.observe({
            id: `${cfg.seed}:${e}`,
            model: chosen,
            alpha: Array.from(alphaOf(i)),
            beta: w.betas[i]!,
            y,
            at: e,
          });
        }
      }
      const acc = routeTest(w, evalScore);
      curve.push(mean(acc));
      if (cp === 0) perItem[`${name}@0`] = acc;
    }
    curves[name] = curve;
    return maxEvents > 0 ? heldOutPicks / maxEvents : 0;
  };

  const runs = (name: RouterName) =>
    !cfg.routers || cfg.routers.includes(name) || name === "static" || name === "oracle";
  const t0 = performance.now();
  const heldOutShare = runs("learning") ? runPosterior("learning", "default") : NaN;
  if (runs("thompson")) runPosterior("thompson", "thompson");
  if (runs("learningUcb")) runPosterior("learningUcb", "ucb");
  if (runs("greedy")) runPosterior("greedy", "none");
  runPosterior("static", "frozen");
  log(`  posterior routers ${((performance.now() - t0) / 1000).toFixed(1)}s`);

  // Oracle-ability router (point abilities, fixed).
  {
    const oracleAcc = routeTest(w, (i, m) => logit(w.alphas, d, i, oracleTheta.get(m)!, w.betas[i]!));
    curves.oracle = cfg.checkpoints.map(() => mean(oracleAcc));
    perItem.oracle = oracleAcc;
  }

  // SGD + epsilon ablation: same item model, point-estimate abilities, no posterior.
  if (runs("sgdEpsilon")) {
    const theta = ids.map((id, m) => Float64Array.from(w.knownTheta.get(m) ?? refLearner.population.mean));
    const r = seededRng(cfg.seed * 31 + 1);
    const curve: number[] = [];
    let e = 0;
    for (const cp of cfg.checkpoints) {
      for (; e < Math.min(cp, maxEvents); e++) {
        const i = stream[e]!;
        const j = epsilonGreedyPick(r, w.offsets[i]!, w.offsets[i + 1]!, cfg.epsilon, (k) =>
          logit(w.alphas, d, i, theta[w.model[k]!]!, w.betas[i]!),
        );
        const m = w.model[j]!;
        const a = alphaOf(i);
        const p = sigmoid(logit(w.alphas, d, i, theta[m]!, w.betas[i]!));
        let n2 = 0;
        for (let k = 0; k < d; k++) n2 += a[k]! * a[k]!;
        const step = (cfg.sgdEta * (w.y[j]! - p)) / Math.max(n2, 1e-12);
        for (let k = 0; k < d; k++) theta[m]![k] += step * a[k]!;
      }
      curve.push(mean(routeTest(w, (i, m) => logit(w.alphas, d, i, theta[m]!, w.betas[i]!))));
    }
    curves.sgdEpsilon = curve;
  }

  // Epsilon-greedy per-model mean-accuracy bandit (ignores the query).
  if (runs("epsilonGreedy")) {
    const trainAcc = ids.map((_, m) => {
      let s = 0;
      let n = 0;
      for (const i of w.train)
        for (let j = w.offsets[i]!; j < w.offsets[i + 1]!; j++) {
          if (w.model[j] === m) {
            s += w.y[j]!;
            n++;
          }
        }
      return n ? s / n : 0;
    });
    const knownMean = mean(
      w.heldOut.length
        ? ids
            .map((_, m) => m)
            .filter((m) => !heldOutSet.has(m))
            .map((m) => trainAcc[m]!)
        : trainAcc,
    );
    // Catalog accuracy as a prior (20 pseudo-observations) for known models; held-out start at the known mean (1 pseudo-observation).
    const succ = ids.map((_, m) => (heldOutSet.has(m) ? knownMean : 20 * trainAcc[m]!));
    const cnt = ids.map((_, m) => (heldOutSet.has(m) ? 1 : 20));
    const r = seededRng(cfg.seed * 37 + 5);
    const curve: number[] = [];
    let e = 0;
    for (const cp of cfg.checkpoints) {
      for (; e < Math.min(cp, maxEvents); e++) {
        const i = stream[e]!;
        const j = epsilonGreedyPick(
          r,
          w.offsets[i]!,
          w.offsets[i + 1]!,
          cfg.epsilon,
          (k) => succ[w.model[k]!]! / cnt[w.model[k]!]!,
        );
        succ[w.model[j]!] += w.y[j]!;
        cnt[w.model[j]!] += 1;
      }
      curve.push(mean(routeTest(w, (_i, m) => succ[m]! / cnt[m]!)));
    }
    curves.epsilonGreedy = curve;
  }

  const staticAcc = perItem["static@0"]!;
  const gapPoints = 100 * (mean(perItem.oracle!) - mean(staticAcc));
  const ci = pairedBootstrap(staticAcc, perItem.oracle!, cfg.bootstrap, cfg.seed);
  const gap = { points: gapPoints, ci95: [100 * ci[0], 100 * ci[1]] as [number, number] };

  // Calibration of each held-out model: probes from its train items, replayed from recorded labels.
  const calibration: SeedResult["calibration"] = [];
  const t1 = performance.now();
  for (const m of cfg.skipCalibration ? [] : w.heldOut) {
    const setup = calibrationSetup(w, m, cfg.seed, cfg.calibrationBank);
    const { trueAcc } = setup;
    const oraclePred = predictedAccuracyOf(w, setup.testItems, oracleTheta.get(m)!);
    const run = (strategy: "fisher" | "accuracy" | "random", order: number) =>
      probesToTolerance({
        known,
        learner: learnerOpts,
        modelId: ids[m]!,
        setup,
        strategy,
        seed: cfg.seed * 101 + m + 7777 * order,
        cap: cfg.calibrationCap,
        tolerance: cfg.calibrationTolerance,
      });
    const adaptive = await run("accuracy", 0);
    const fisher = await run("fisher", 0);
    const random: { probes: number; at100: number }[] = [];
    for (let o = 0; o < cfg.randomOrders; o++) random.push(await run("random", o));
    calibration.push({
      model: ids[m]!,
      trueTestAccuracy: trueAcc,
      adaptiveProbes: adaptive.probes,
      adaptiveErrorAt100: adaptive.at100,
      randomProbes: random.map((r) => r.probes),
      randomErrorAt100: mean(random.map((r) => r.at100)),
      fisherProbes: fisher.probes,
      fisherErrorAt100: fisher.at100,
      oracleError: Math.abs(oraclePred - trueAcc),
    });
  }
  log(`  calibration ${((performance.now() - t1) / 1000).toFixed(1)}s`);
  const gapDiffs = Float64Array.from(staticAcc, (v, k) => perItem.oracle![k]! - v);
  return {
    seed: cfg.seed,
    heldOut: w.heldOut.map((m) => ids[m]!),
    curves,
    gap,
    calibration,
    heldOutShare,
    streamEvents: maxEvents,
    knownScale: w.knownPrior?.scale ?? null,
    gapDiffs,
  };
}

export { ROUTERS };
