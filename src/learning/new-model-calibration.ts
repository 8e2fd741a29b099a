/**
 * Adaptive calibration of a (new) model: ask it the probe questions that teach the posterior the
 * most, update after each answer, stop at the budget or once its predicted accuracy is pinned down.
 *
 * Probe choice. For each unasked probe i, with logit moments m_i = alpha_i . mu - beta_i,
 * s_i^2 = alpha_i^T Sigma alpha_i and predictive p_i (the answer's Fisher information about theta is
 * p_i (1 - p_i) alpha_i alpha_i^T):
 *
 * - "accuracy" (the default): maximum Fisher information about the quantity calibration is for, the
 *   predicted accuracy on the bank A(theta) = mean_i p_i (a c-optimal design). With g = dA/dtheta (delta
 *   method), it asks the probe whose answer most reduces Var(A) = g^T Sigma g under the linearised update,
 *
 *       p_i (1 - p_i) (alpha_i^T Sigma g)^2 / (1 + p_i (1 - p_i) s_i^2).
 *
 * - "fisher": maximum Fisher information about theta as a whole, projected on the posterior covariance,
 *   p_i (1 - p_i) s_i^2 (monotone in the expected information gain 0.5 log(1 + p_i (1 - p_i) s_i^2)). It also
 *   spends probes on directions of theta that barely move the predicted accuracy.
 *
 * The default was chosen on a validation-only development run (bench/dev/calibration.ts, docs/online.md).
 * Strategy "random" asks probes in a seeded random order (the benchmark's baseline).
 *
 * Hand-over: the first `randomFirst` probes (default 5) follow the seeded random order, the strategy picks the next
 * `adaptiveProbes` (default 1) in the order's places, and the rest follow the order again, so all but those are a random
 * sample of the bank and every probe after the adaptive ones is the one random order with the same seed asks at that
 * step (`handOver: "insert"` asks the adaptive ones before the order's next probes instead). The criteria trust the bank's item parameters;
 * on a bank that misleads about the model they keep asking items whose answers agree with it where asked, and the
 * posterior drifts from the truth (bench/dev/calibration-misspecified.ts). The default was chosen by
 * leave-one-dataset-out validation (`npm run bench:calibration-lodo`, docs/online.md). Stopping: `budget` probes, or the standard deviation of the predicted
 * probe-bank accuracy (delta method: g^T Sigma g, g = mean_i p_i (1 - p_i) alpha_i) falls below
 * `targetSd` after at least `minProbes` answers, or the bank is exhausted.
 */
import { z } from "zod";
import { FeedbackError, ValidationError } from "../errors.js";
import { functionSchema, parseWith } from "../util/validate.js";
import type { FeedbackEvent } from "./events.js";
import type { OnlineLearner } from "./learner.js";
import { ItemTracker } from "./tracker.js";
import { bankAccuracy, ProbePicker } from "./probe-picker.js";
import type { Probe, ProbeBank } from "./probe-bank.js";

export {
  DEFAULT_ADAPTIVE_PROBES,
  DEFAULT_HAND_OVER,
  DEFAULT_MIX_RANDOM,
  DEFAULT_RANDOM_FIRST,
  DEFAULT_RANDOM_SHARE,
} from "./probe-picker.js";
export type { HandOver } from "./probe-picker.js";
export type { Probe, ProbeBank } from "./probe-bank.js";

export interface CalibrationProgress {
  readonly asked: number;
  readonly budget: number;
  readonly probeId: string;
  readonly y: number;
  readonly predictedAccuracy: number;
  readonly accuracySd: number;
}

export type CalibrationStopReason = "budget" | "uncertainty" | "exhausted" | "ask-failed";

export interface CalibrationResult {
  readonly modelId: string;
  readonly asked: number;
  readonly answers: readonly { probeId: string; y: number }[];
  /** Predicted accuracy on the probe bank after calibration, and its standard deviation. */
  readonly predictedAccuracy: number;
  readonly accuracySd: number;
  readonly stopReason: CalibrationStopReason;
  /** `ask` calls that threw or returned a bad value (those probes were skipped), with the last message. */
  readonly failures: number;
  readonly lastFailure?: string;
}

const optionsSchema = z
  .object({
    modelId: z.string().min(1),
    budget: z.number().int().positive(),
    strategy: z.enum(["accuracy", "fisher", "random"]).default("accuracy"),
    /**
     * Share of the probes asked in the seeded random order, interleaved with the strategy's (0: none; 1: all).
     * Default `DEFAULT_RANDOM_SHARE`. Ignored by strategy "random".
     */
    randomShare: z.number().min(0).max(1).optional(),
    /**
     * When the random probes start: "always" from the first probe, "on-conflict" once the answers contradict the
     * prior (the sequential score test |sum(y - p) / sqrt(sum p (1 - p))| > 2, p the predictive p each probe had
     * when asked, after at least 3 answers). Default `DEFAULT_MIX_RANDOM`.
     */
    mixRandom: z.enum(["always", "on-conflict"]).optional(),
    /**
     * Probes the adaptive strategy picks; the rest follow the seeded random order, so the answers the posterior
     * rests on are, beyond these first few, a random sample of the bank ("all": the strategy picks every probe).
     * Default `DEFAULT_ADAPTIVE_PROBES`. Ignored by strategy "random".
     */
    adaptiveProbes: z.union([z.number().int().nonnegative(), z.literal("all")]).optional(),
    /**
     * Where the adaptive probes sit in the seeded random order: "replace" (they take its first `adaptiveProbes`
     * places, so every later probe is the one random order with the same seed asks at that step; the displaced
     * probes come after the rest) or "insert" (asked before it, the order's probes one step later per adaptive
     * probe). Default `DEFAULT_HAND_OVER`. Ignored by strategy "random" and by `adaptiveProbes: "all"`.
     */
    handOver: z.enum(["replace", "insert"]).optional(),
    /**
     * Probes asked in the seeded random order before the adaptive ones: the adaptive probes then take the order's
     * places `randomFirst` to `randomFirst + adaptiveProbes - 1`. Default `DEFAULT_RANDOM_FIRST` (5) with a bounded
     * `adaptiveProbes`, 0 with `adaptiveProbes: "all"` (the strategy picks every probe). Ignored by strategy "random".
     */
    randomFirst: z.number().int().nonnegative().optional(),
    /** Stop once the sd of the predicted bank accuracy is below this (default 0.015; 0 disables). */
    targetSd: z.number().min(0).max(1).default(0.015),
    minProbes: z.number().int().nonnegative().default(10),
    /** Consecutive `ask` failures after which calibration stops (default 5). */
    maxConsecutiveFailures: z.number().int().positive().default(5),
    seed: z.number().int().default(0),
    /** Prefix of the feedback event ids (default "calibrate"). */
    eventPrefix: z.string().min(1).default("calibrate"),
  })
  .strict();

export type CalibrationOptions = z.input<typeof optionsSchema>;

/** The shape of a {@link ProbeBank}, checked before calibration (the numbers' consistency is checked after). */
export const probeBankSchema = z.object(
  {
    dataset: z.string(),
    dim: z.number().int().positive(),
    ids: z.array(z.string()),
    alphas: z.instanceof(Float32Array),
    betas: z.instanceof(Float32Array),
  },
  { error: "expected a probe bank (buildProbeBank(scorer, dataset) or probeBankFrom(...))" },
);

/** The non-numeric arguments of {@link calibrateModel}: the learner, the bank and the callbacks. */
const argsSchema = z
  .object({
    learner: z.custom<OnlineLearner>(
      (v) =>
        typeof v === "object" &&
        v !== null &&
        ["has", "addModel", "posterior", "observe"].every(
          (k) => typeof (v as Record<string, unknown>)[k] === "function",
        ),
      { message: "must be an OnlineLearner (OnlineLearner.forScorer(scorer))" },
    ),
    probes: probeBankSchema,
    ask: functionSchema<CalibrateArgs["ask"]>("a function (probe) => Promise of a grade in [0, 1]"),
    onProgress: functionSchema<NonNullable<CalibrateArgs["onProgress"]>>("a function (progress) => void").optional(),
    onEvent: functionSchema<NonNullable<CalibrateArgs["onEvent"]>>(
      "a function (event) => void or a Promise",
    ).optional(),
    now: functionSchema<NonNullable<CalibrateArgs["now"]>>("a function () => milliseconds").optional(),
  })
  .loose();

export interface CalibrateArgs extends CalibrationOptions {
  readonly learner: OnlineLearner;
  readonly probes: ProbeBank;
  /** Asks the model one probe and returns its graded outcome in [0, 1]. */
  readonly ask: (probe: Probe) => Promise<number>;
  readonly onProgress?: (p: CalibrationProgress) => void;
  /**
   * Called with each feedback event BEFORE the learner applies it (e.g. `store.append([e])`, so an
   * answer is durable before it counts), after `learner.check(event)` accepted it (an event the learner rejects
   * is never handed over: calibration stops with that error). If it throws, calibration stops with that error.
   */
  readonly onEvent?: (event: FeedbackEvent) => Promise<void> | void;
  /** Time source for event timestamps (default Date.now). */
  readonly now?: () => number;
}

/**
 * Calibrates `modelId` (added at the population prior if the learner does not track it yet).
 *
 * @example
 * ```ts
 * const result = await calibrateModel({
 *   learner, modelId: "my-new-model", probes: bank, budget: 40,
 *   ask: async (probe) => gradeMultipleChoice(await callModel(textOf(probe.id)), keyOf(probe.id)),
 *   onProgress: (p) => console.log(p.asked, p.predictedAccuracy.toFixed(3)),
 * });
 * ```
 */
export async function calibrateModel(args: CalibrateArgs): Promise<CalibrationResult> {
  const o = checkedCalibration(args);
  const { learner, probes, ask, onProgress } = args;
  if (!learner.has(o.modelId)) learner.addModel(o.modelId);
  const posterior = learner.posterior(o.modelId);
  const tracker = new ItemTracker(posterior, probes.alphas, probes.betas);
  const picker = new ProbePicker(o, probes, tracker, posterior);
  const answers: { probeId: string; y: number }[] = [];
  const failed = { total: 0, consecutive: 0, last: undefined as string | undefined };
  let stopReason: CalibrationStopReason;
  const now = args.now ?? Date.now;
  let stats = bankAccuracy(tracker, probes, posterior.covariance, posterior.mode === "full");
  try {
    while (true) {
      if (answers.length >= o.budget) {
        stopReason = "budget";
        break;
      }
      if (o.targetSd > 0 && answers.length >= o.minProbes && stats.sd < o.targetSd) {
        stopReason = "uncertainty";
        break;
      }
      const probe = picker.next(stats.g);
      if (!probe) {
        stopReason = "exhausted";
        break;
      }
      const id = `${o.eventPrefix}:${o.modelId}:${probe.id}`;
      // A probe this model already answered (an earlier calibration restored from a store) is not asked again.
      if (learner.hasSeen(id)) continue;
      const pAsked = picker.predictive(probe.index);
      const y = await gradedAnswer(ask, probe, failed);
      if (y === undefined) {
        if (failed.consecutive >= o.maxConsecutiveFailures) {
          stopReason = "ask-failed";
          break;
        }
        continue;
      }
      const event: FeedbackEvent = {
        id,
        model: o.modelId,
        alpha: Array.from(probe.alpha),
        beta: probe.beta,
        y,
        at: now(),
      };
      // Checked against the learner before it is handed to onEvent (journaled): a stored event the learner
      // rejects would make every replay of the journal throw.
      if (typeof learner.check === "function") learner.check(event);
      if (args.onEvent) await args.onEvent(event);
      learner.observe(event);
      picker.answered(pAsked, y);
      answers.push({ probeId: probe.id, y });
      stats = bankAccuracy(tracker, probes, posterior.covariance, posterior.mode === "full");
      const progress = { asked: answers.length, budget: o.budget, probeId: probe.id, y };
      onProgress?.({ ...progress, predictedAccuracy: stats.mean, accuracySd: stats.sd });
    }
  } finally {
    tracker.dispose();
  }
  return {
    modelId: o.modelId,
    asked: answers.length,
    answers,
    predictedAccuracy: stats.mean,
    accuracySd: stats.sd,
    stopReason,
    failures: failed.total,
    lastFailure: failed.last,
  };
}

/** The arguments of {@link calibrateModel}, checked; its options parsed. A ValidationError or FeedbackError names the field. */
function checkedCalibration(args: CalibrateArgs): z.output<typeof optionsSchema> {
  if (typeof args !== "object" || args === null) {
    throw new ValidationError(
      "calibrateModel() takes one options object: { learner, modelId, probes, ask, budget, ... }.",
      { path: "calibrate" },
    );
  }
  parseWith(argsSchema, args, "calibrate");
  const { learner, probes } = args;
  const { modelId, budget, strategy, randomShare, mixRandom, targetSd, minProbes, maxConsecutiveFailures } = args;
  const { seed, eventPrefix, adaptiveProbes, handOver, randomFirst } = args;
  const o = parseWith(
    optionsSchema,
    {
      modelId,
      budget,
      strategy,
      randomShare,
      mixRandom,
      targetSd,
      minProbes,
      maxConsecutiveFailures,
      seed,
      eventPrefix,
      adaptiveProbes,
      handOver,
      randomFirst,
    },
    "calibrate",
  );
  const n = probes.ids.length;
  if (probes.dim !== learner.dim) {
    throw new FeedbackError(
      `Probe bank "${probes.dataset}" has dim ${probes.dim}, the learner's abilities have ${learner.dim}; build the bank with the same scorer.`,
      { path: "probes.dim" },
    );
  }
  if (probes.alphas.length !== n * probes.dim || probes.betas.length !== n) {
    throw new FeedbackError(
      `Probe bank "${probes.dataset}" is inconsistent: ${n} ids, ${probes.alphas.length} alpha numbers, ${probes.betas.length} betas`,
      { path: "probes" },
    );
  }
  return o;
}

/**
 * The model's graded answer to a probe, or undefined when `ask` failed or gave something other than a number in
 * [0, 1] (counted in `failed`; a success resets the consecutive count).
 */
async function gradedAnswer(
  ask: CalibrateArgs["ask"],
  probe: Probe,
  failed: { total: number; consecutive: number; last: string | undefined },
): Promise<number | undefined> {
  try {
    const y = await ask(probe);
    if (typeof y !== "number" || !Number.isFinite(y) || y < 0 || y > 1)
      throw new Error(`ask returned ${String(y)}, expected a number in [0, 1]`);
    failed.consecutive = 0;
    return y;
  } catch (error) {
    failed.total++;
    failed.consecutive++;
    failed.last = (error as Error)?.message ?? String(error);
    return undefined;
  }
}

/**
 * A probe bank from items with their parameters (e.g. `scorer.itemParams` of a dataset's items).
 *
 * @example
 * ```ts
 * const bank = probeBankFrom("mmlu-pro-29models", items.map((it, i) => ({ id: it.id, ...params[i] })));
 * ```
 */
export function probeBankFrom(
  dataset: string,
  items: readonly { id: string; alpha: ArrayLike<number>; beta: number }[],
): ProbeBank {
  if (items.length === 0) throw new FeedbackError(`Probe bank "${dataset}" has no items`, { path: "items" });
  const dim = items[0]!.alpha.length;
  const alphas = new Float32Array(items.length * dim);
  const betas = new Float32Array(items.length);
  items.forEach((it, i) => {
    if (it.alpha.length !== dim)
      throw new FeedbackError(`Probe "${it.id}" has alpha length ${it.alpha.length}, expected ${dim}`, {
        path: `items.${i}.alpha`,
      });
    alphas.set(it.alpha, i * dim);
    betas[i] = it.beta;
  });
  return { dataset, dim, ids: items.map((it) => it.id), alphas, betas };
}
