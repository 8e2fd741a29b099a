/**
 * Predicting a model's accuracy on a set of items it was never run on (the IRT-MoE paper's second use of the
 * learned abilities): the mean over the items of p = sigmoid(alpha_i . theta - beta_i), with theta the model's
 * ability, and an interval that carries the uncertainty about theta.
 *
 * The ability is a Gaussian posterior ({@link AbilityPosterior}) started at the prior the online learner gives the
 * model ({@link OnlineLearner.forScorer}): a catalogued model at N(theta_pretrained, knownScale x Sigma_pop), the
 * scale fitted on the scorer's training labels as the shift of a model's ability between workloads; a model the
 * scorer does not know at the new-model prior (population mean, inflated population covariance), which is why such
 * a model needs probes. Each probe outcome (the model's graded answer on an item with known parameters) updates the
 * posterior. Then:
 *
 * - `accuracy` = mean_i E[p_i] over the posterior (probit approximation, {@link predictiveP}); an item that was
 *   itself a probe (`item` set) counts with its observed outcome;
 * - `interval` = percentiles of A(theta_s) = mean_i sigmoid(alpha_i . theta_s - beta_i) over `samples` draws
 *   theta_s ~ N(mu, Sigma) of the posterior (so it is the uncertainty about the model, not about which items
 *   were drawn: the items are taken as given).
 *
 * With a degenerate posterior (Sigma -> 0) `accuracy` is the plain mean p and the interval shrinks to it. Pure: no I/O.
 */
import { z } from "zod";
import { IrtRouterError, ValidationError } from "../errors.js";
import { percentileInterval } from "../stats/bootstrap.js";
import { parseWith } from "../util/validate.js";
import { OnlineLearner, type LearnerOptions, type ModelStart, type ScorerPriorSource } from "./learner.js";
import { cholesky } from "./linalg.js";
import { type AbilityPosterior, predictiveP, sigmoid } from "./posterior.js";
import { seededRng } from "../util/random.js";
import { calibratedAccuracy, predictCalibrationSchema, type PredictCalibration } from "./interval-calibration.js";

/** The items to predict on: `alphas` is n x dim row-major, temperature folded in (a {@link ProbeBank} is one). */
export interface PredictionItems {
  readonly dim: number;
  readonly alphas: Float32Array;
  readonly betas: Float32Array;
}

/** One probe outcome of a model: its graded answer y in [0, 1] on an item with parameters (alpha, beta). */
export interface ProbeOutcome {
  readonly alpha: ArrayLike<number>;
  readonly beta: number;
  readonly y: number;
  /** Index of the probed item among the predicted items, when it is one of them (it then counts with y). */
  readonly item?: number;
}

/** A model to predict, with the probe outcomes that refine its ability (none: the scorer alone). */
export interface ModelToPredict {
  readonly id: string;
  readonly probes?: readonly ProbeOutcome[];
  /**
   * Where a model the scorer does not know starts, instead of the new-model prior: an ability and how sure it is,
   * such as its current-models catalog prior on this scorer (`ModelCatalog.priorOn`, as a router starts it), so it
   * can be predicted without probes. Ignored for a model the scorer knows.
   */
  readonly start?: ModelStart;
}

export interface PredictAccuracyArgs {
  /** The scorer's catalog abilities and fitted known-model prior (an `IrtMoeScorer` is one). */
  readonly scorer: ScorerPriorSource;
  readonly items: PredictionItems;
  /** Catalog ids (known models) or other ids (new models: they need probes). */
  readonly models: readonly (string | ModelToPredict)[];
  /** Draws of theta behind the interval (default 1000). */
  readonly samples?: number;
  /** Interval level (default 0.95). */
  readonly level?: number;
  /** Seed of the draws (default 0). */
  readonly seed?: number;
  /** Options of the learner whose priors are used (default: the scorer's fitted ones, `OnlineLearner.forScorer`). */
  readonly learner?: LearnerOptions;
  /**
   * Calibration for a benchmark unlike the scorer's training data (the shipped scorer's:
   * `loadPredictCalibration()` from `irt-router/adapters`). When given, a catalogued model's `accuracy` and
   * `interval` are the calibrated ones (shrunk toward its catalog accuracy; a predictive interval that includes the
   * scorer's error on unseen work), and `scorer` keeps the scorer's own figures. Models the scorer does not know are
   * not calibrated (they have no catalog accuracy).
   */
  readonly calibration?: PredictCalibration;
}

/** Predicted accuracy of one model on the items. */
export interface AccuracyPrediction {
  readonly model: string;
  /** Whether the scorer knows the model (prior at its pretrained ability). */
  readonly known: boolean;
  /** Where its ability started: the scorer's row, the `start` given, or the new-model prior. */
  readonly prior: "scorer" | "start" | "new-model";
  /** Probe outcomes absorbed. */
  readonly probes: number;
  /** Mean predicted p over the items (in [0, 1]). */
  readonly accuracy: number;
  /** Percentile interval of the accuracy over the ability posterior, at `level`. */
  readonly interval: readonly [number, number];
  /** Standard deviation of the accuracy over the ability posterior. */
  readonly sd: number;
  readonly items: number;
  /** Whether `accuracy` and `interval` are calibrated (see `calibration`). */
  readonly calibrated: boolean;
  /** The scorer's own prediction and its ability-posterior interval, when `accuracy` is calibrated. */
  readonly scorer?: { readonly accuracy: number; readonly interval: readonly [number, number] };
}

const arrayLike = z.custom<ArrayLike<number>>(
  (v) => typeof v === "object" && v !== null && typeof (v as { length?: unknown }).length === "number",
  "must be an array of numbers",
);
const probeSchema = z.object({
  alpha: arrayLike,
  beta: z.number().finite(),
  y: z.number().min(0, "must be in [0, 1]").max(1, "must be in [0, 1]"),
  item: z.number().int().nonnegative().optional(),
});

const argsSchema = z
  .object({
    scorer: z.object({ models: z.array(z.object({ id: z.string() }).loose()) }).loose(),
    items: z
      .object({
        dim: z.number().int().positive(),
        alphas: z.instanceof(Float32Array),
        betas: z.instanceof(Float32Array),
      })
      .loose(),
    models: z
      .array(
        z.union([
          z.string().min(1),
          z
            .object({
              id: z.string().min(1),
              probes: z.array(probeSchema).optional(),
              start: z
                .object({ ability: arrayLike, placement: z.object({}).loose().optional() })
                .strict()
                .optional(),
            })
            .strict(),
        ]),
      )
      .min(1),
    samples: z.number().int().min(2).max(1_000_000).default(1000),
    level: z.number().gt(0).lt(1).default(0.95),
    seed: z.number().int().default(0),
    learner: z.record(z.string(), z.unknown()).optional(),
    calibration: predictCalibrationSchema.optional(),
  })
  .strict();

/**
 * Each model's predicted accuracy on `items`, from the scorer's abilities alone or refined by probe outcomes
 * (see the module comment).
 *
 * @example
 * ```ts
 * const bank = probeBankFrom("my-eval", items.map((it, i) => ({ id: it.id, ...params[i] })));
 * const [p] = predictAccuracy({ scorer, items: bank, models: ["gpt-4o"] });
 * console.log(p.accuracy, p.interval);
 * ```
 */
export function predictAccuracy(args: PredictAccuracyArgs): AccuracyPrediction[] {
  const o = parseWith(argsSchema, args, "predictAccuracy");
  const { items } = args;
  const n = items.betas.length;
  if (n === 0)
    throw new ValidationError("predictAccuracy: there are no items to predict on.", { path: "predictAccuracy.items" });
  if (items.alphas.length !== n * items.dim) {
    throw new ValidationError(
      `predictAccuracy: items has ${n} betas but ${items.alphas.length} alpha numbers (expected ${n} x ${items.dim}).`,
      {
        path: "predictAccuracy.items.alphas",
      },
    );
  }
  const learner = OnlineLearner.forScorer(args.scorer, { ...(args.learner ?? {}), unknownModels: "error" });
  if (learner.dim !== items.dim) {
    throw new ValidationError(
      `predictAccuracy: the items have dim ${items.dim}, the scorer's abilities ${learner.dim}; compute the items' parameters with the same scorer.`,
      {
        path: "predictAccuracy.items.dim",
      },
    );
  }
  const seen = new Set<string>();
  return args.models.map((entry, k) => {
    const model: ModelToPredict = typeof entry === "string" ? { id: entry } : entry;
    const path = `predictAccuracy.models.${k}`;
    if (seen.has(model.id))
      throw new ValidationError(`model "${model.id}" is listed twice; list each model once.`, { path });
    seen.add(model.id);
    const probes = model.probes ?? [];
    const known = learner.has(model.id);
    const prior: AccuracyPrediction["prior"] = known ? "scorer" : model.start ? "start" : "new-model";
    if (prior === "new-model" && probes.length === 0) throw nothingToPredictFrom(model.id, learner, path);
    const posterior = known ? learner.posterior(model.id) : added(learner, model, path);
    const observed = new Map<number, number>();
    probes.forEach((p, j) => {
      if (p.alpha.length !== items.dim) {
        throw new ValidationError(
          `probe ${j} of "${model.id}" has alpha of length ${p.alpha.length}, expected ${items.dim}.`,
          { path: `${path}.probes.${j}.alpha` },
        );
      }
      if (p.item !== undefined && p.item >= n) {
        throw new ValidationError(`probe ${j} of "${model.id}" names item ${p.item}, but there are ${n} items.`, {
          path: `${path}.probes.${j}.item`,
        });
      }
      posterior.update(p.alpha, p.beta, p.y);
      if (p.item !== undefined) observed.set(p.item, p.y);
    });
    const accuracy = meanPredictiveP(posterior, items, observed);
    const draws = sampledAccuracies(posterior, items, observed, o.samples, o.seed + k);
    const own = {
      model: model.id,
      known,
      prior,
      probes: probes.length,
      accuracy,
      ...summarise(draws, o.level),
      items: n,
    };
    const baseline = catalogAccuracy(args.scorer, model.id);
    if (!args.calibration || !known || baseline === undefined) return { ...own, calibrated: false };
    // The scorer's 0-probe figure is what the calibration shrinks; probes then update it by empirical Bayes.
    const cal = calibratedAccuracy({
      calibration: args.calibration,
      scorer: probes.length > 0 ? priorAccuracy(args, items, model.id) : accuracy,
      baseline,
      correct: probes.reduce((t, p) => t + p.y, 0),
      asked: probes.length,
      items: n,
      level: o.level,
    });
    return { ...own, ...cal, calibrated: true, scorer: { accuracy, interval: own.interval } };
  });
}

/** The error for a model without a scorer row, a start or probes. */
function nothingToPredictFrom(id: string, learner: OnlineLearner, path: string): IrtRouterError {
  const known = learner.models();
  return new IrtRouterError(
    "UNKNOWN_MODEL",
    `The scorer does not know model "${id}" and no probe results were given, so there is nothing to predict its accuracy from. ` +
      `Give some probe outcomes of it (probes: [{ alpha, beta, y }], e.g. its graded answers on a few of the items), a start ` +
      `(its current-models catalog prior: ModelCatalog.priorOn), or use a catalog id ` +
      `(known: ${known.slice(0, 8).join(", ")}${known.length > 8 ? ", ..." : ""}).`,
    { path, details: { model: id } },
  );
}

/** A model the scorer does not know, added at its `start` (checked: a bad one names the field) or the new-model prior. */
function added(learner: OnlineLearner, model: ModelToPredict, path: string): AbilityPosterior {
  try {
    return learner.addModel(model.id, model.start ?? {});
  } catch (error) {
    const field = (error as { path?: string }).path;
    throw new ValidationError(
      `predictAccuracy: the start of "${model.id}" is not usable: ${(error as Error).message}`,
      {
        path: `${path}.start${field && field !== "modelId" && field !== "init" ? `.${field}` : ""}`,
        cause: error,
      },
    );
  }
}

/** The catalog accuracy of a scorer's model (its accuracy on the training data), when the scorer records one. */
function catalogAccuracy(scorer: ScorerPriorSource, id: string): number | undefined {
  const entry = scorer.models.find((m) => m.id === id) as { accuracy?: unknown } | undefined;
  return typeof entry?.accuracy === "number" && Number.isFinite(entry.accuracy) ? entry.accuracy : undefined;
}

/** The scorer's prediction for a catalogued model before any probe (its prior ability). */
function priorAccuracy(args: PredictAccuracyArgs, items: PredictionItems, id: string): number {
  const fresh = OnlineLearner.forScorer(args.scorer, { ...(args.learner ?? {}), unknownModels: "error" });
  return meanPredictiveP(fresh.posterior(id), items, new Map());
}

/** mean_i E[p_i] under the posterior (observed items count with their outcome). */
function meanPredictiveP(
  posterior: AbilityPosterior,
  items: PredictionItems,
  observed: ReadonlyMap<number, number>,
): number {
  const d = items.dim;
  let s = 0;
  for (let i = 0; i < items.betas.length; i++) {
    const y = observed.get(i);
    if (y !== undefined) {
      s += y;
      continue;
    }
    const { mean, variance } = posterior.logit(items.alphas.subarray(i * d, (i + 1) * d), items.betas[i]!);
    s += predictiveP(mean, variance);
  }
  return s / items.betas.length;
}

/**
 * Accuracies A(theta_s) at `samples` draws theta_s ~ N(mu, Sigma). The logit of item i at theta_s is
 * m_i + (L^T alpha_i) . z_s with Sigma = L L^T, so each item's projected alpha is computed once.
 * @internal
 */
export function sampledAccuracies(
  posterior: AbilityPosterior,
  items: PredictionItems,
  observed: ReadonlyMap<number, number>,
  samples: number,
  seed: number,
): Float64Array {
  const d = items.dim;
  const n = items.betas.length;
  const L = choleskyFactor(posterior);
  const free: number[] = [];
  let fixed = 0;
  for (let i = 0; i < n; i++) {
    const y = observed.get(i);
    if (y === undefined) free.push(i);
    else fixed += y;
  }
  const means = new Float64Array(free.length);
  const proj = new Float64Array(free.length * d);
  free.forEach((i, r) => {
    const a = items.alphas.subarray(i * d, (i + 1) * d);
    means[r] = posterior.logit(a, items.betas[i]!).mean;
    // (L^T a)_k = sum_j L[j][k] a_j
    for (let k = 0; k < d; k++) {
      let s = 0;
      for (let j = k; j < d; j++) s += L[j * d + k]! * a[j]!;
      proj[r * d + k] = s;
    }
  });
  const rng = seededRng(seed);
  const z = new Float64Array(d);
  const out = new Float64Array(samples);
  for (let s = 0; s < samples; s++) {
    for (let k = 0; k < d; k++) z[k] = rng.normal();
    let sum = fixed;
    for (let r = 0; r < free.length; r++) {
      let logit = means[r]!;
      const off = r * d;
      for (let k = 0; k < d; k++) logit += proj[off + k]! * z[k]!;
      sum += sigmoid(logit);
    }
    out[s] = sum / n;
  }
  return out;
}

/** Lower-triangular L with L L^T = Sigma (a diagonal posterior: the square roots of its variances). */
function choleskyFactor(posterior: AbilityPosterior): Float64Array {
  const d = posterior.dim;
  if (posterior.mode === "full") return cholesky(Float64Array.from(posterior.covariance), d).L;
  const L = new Float64Array(d * d);
  for (let k = 0; k < d; k++) L[k * d + k] = Math.sqrt(Math.max(0, posterior.covariance[k]!));
  return L;
}

function summarise(draws: Float64Array, level: number): { interval: [number, number]; sd: number } {
  let mean = 0;
  for (const v of draws) mean += v / draws.length;
  let ss = 0;
  for (const v of draws) ss += (v - mean) ** 2;
  return { interval: percentileInterval(draws, level), sd: Math.sqrt(ss / (draws.length - 1)) };
}
