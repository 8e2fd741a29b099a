/**
 * The shapes of an evaluation: the dataset the harness evaluates on, its options and progress events, and the
 * report it returns (one row per method, reference rows, cost-aware figures).
 */
import type { CurvePoint } from "./cost.js";
import type { ModelCostEstimate } from "./expected-cost.js";
import type { EmbeddedLabelData, FitProgress, RoutingMethod } from "./types.js";

/** Name of the scorer's row; every other method's difference is measured against it. */
export const IRT_MOE = "irt-moe";

/** What the harness evaluates on: one dataset, embedded, with the protocol's split. */
export interface EvalDataset {
  /** Dataset name (`D` of the split rule). */
  readonly name: string;
  /** Model names, by model index. */
  readonly models: readonly string[];
  readonly data: EmbeddedLabelData;
  readonly split: {
    readonly train: readonly number[];
    readonly val: readonly number[];
    readonly test: readonly number[];
  };
  /** Category of each item (index-aligned; undefined = none), for the per-category breakdown. */
  readonly categories?: readonly (string | undefined)[];
  /** Item ids (index-aligned), to name items in notes; optional. */
  readonly itemIds?: readonly string[];
  /** Cost data, on datasets with per-query cost. */
  readonly cost?: {
    /**
     * RECORDED USD cost of each observed call, aligned with `data.y` (used only to account spend); NaN = unknown.
     * A val or test call without one leaves a router's spend unknown: then no cost-aware figure is computed
     * (`EvalReport.costAwareNotComputed` says why).
     */
    readonly recorded: Float32Array;
    /** EX-ANTE expected cost, `nItems x nModels` (what the policy decides on); NaN = no estimate (no cost-aware figures then). */
    readonly expected: ArrayLike<number>;
    /** How the expected cost was estimated (printed with the results). */
    readonly note?: string;
    /** Per model, how its expected cost was estimated (`estimateExpectedCosts`' `perModel`): a model without one is named with its reason. */
    readonly estimates?: readonly ModelCostEstimate[];
  };
}

/** Progress of an evaluation run. */
export type EvalProgress =
  | { readonly stage: "fit"; readonly method: string; readonly seed: number; readonly fit?: FitProgress }
  | { readonly stage: "done"; readonly method: string; readonly seed: number; readonly seconds: number };

export interface EvaluateOptions {
  /** Methods to fit and score (the scorer's row should be named "irt-moe"). */
  readonly methods: readonly RoutingMethod[];
  /** Seeds; seeded methods run once per seed, deterministic ones once. Default [1, 2, 3]. */
  readonly seeds?: readonly number[];
  /** Bootstrap resamples (default 1000) and seed (default 20260101). */
  readonly bootstrap?: { readonly resamples?: number; readonly seed?: number };
  /** Cost-weight grid of the cost-aware sweep (default {@link defaultLambdaGrid}). */
  readonly lambdas?: readonly number[];
  readonly onProgress?: (event: EvalProgress) => void;
}

/** The cost-aware figures of one seed's fitted method. */
export interface CostAwareSeed {
  readonly seed: number;
  /** Test accuracy at the lambda chosen on val under the 50% spend cap; null when no lambda met the cap on val. */
  readonly accuracyAtHalfCost: number | null;
  /** Test spend at that lambda / the best single model's test spend. */
  readonly halfCostSpendFraction: number | null;
  /** This seed's test curve's cheapest point reaching the best single model's test accuracy / that model's test spend; null: it never does. */
  readonly matchCostFraction: number | null;
  readonly hullArea: number | null;
}

/**
 * Cost-aware figures of one method. Each is computed per seed (one seed = one fitted router) and averaged over the
 * seeds where it exists; the counts say over how many, and `perSeed` holds every seed's values. A figure is null
 * only when no seed has it.
 */
export interface CostAwareReport {
  /** Test accuracy with lambda chosen on VAL as the most accurate setting at <= 50% of the best single model's val spend (mean over `halfCostSeeds`). */
  readonly accuracyAtHalfCost: number | null;
  readonly accuracyAtHalfCostSd: number | null;
  /** Test spend at that lambda as a fraction of the best single model's test spend (mean over `halfCostSeeds`). */
  readonly halfCostSpendFraction: number | null;
  /** Seeds in which some lambda met the 50% cap on val. */
  readonly halfCostSeeds: number;
  /**
   * Cheapest test point matching the best single model's test accuracy, as a fraction of its test spend: the mean over
   * the `matchedSeeds` seeds whose curve reaches that accuracy (null: no seed's curve does).
   */
  readonly matchCostFraction: number | null;
  readonly matchCostFractionSd: number | null;
  /** Seeds in which the curve reached the best single model's accuracy. */
  readonly matchedSeeds: number;
  /** Normalised area under the test curve's upper convex hull between the cheapest and the most expensive single model. */
  readonly hullArea: number | null;
  readonly hullAreaSd: number | null;
  /** Each seed's figures. */
  readonly perSeed: readonly CostAwareSeed[];
  /** Test accuracy-vs-mean-cost curve, averaged over seeds at each lambda. */
  readonly curve: readonly CurvePoint[];
}

/** One row of the results. */
export interface MethodReport {
  readonly name: string;
  /** "reference": best-single, random, oracle; "learned": everything fitted. */
  readonly kind: "learned" | "reference";
  /** What was fitted (chosen hyperparameters, per seed). */
  readonly description: readonly string[];
  /** Seeds this row was run with (one entry for deterministic methods). */
  readonly seeds: readonly number[];
  readonly routingAccuracy: number;
  readonly routingAccuracySd: number;
  readonly routingCi95: [number, number];
  readonly diffVsIrtMoe: number | null;
  readonly diffVsIrtMoeCi95: [number, number] | null;
  /** Task-hinted rows (`+task`) on datasets with categories: mean of this row minus `best-per-task`, paired by item. */
  readonly diffVsBestPerTask?: number;
  /** Paired bootstrap 95% interval of {@link MethodReport.diffVsBestPerTask}. */
  readonly diffVsBestPerTaskCi95?: [number, number];
  /** Correctness-prediction figures (means over seeds; null for rows without predictions). */
  readonly accuracy: number | null;
  readonly auc: number | null;
  readonly brier: number | null;
  readonly ece: number | null;
  readonly aucSd: number | null;
  readonly eceSd: number | null;
  readonly gapClosed: number;
  readonly trainSeconds: number | null;
  readonly inferMsPerQuery: number | null;
  readonly costAware?: CostAwareReport;
  /** Per-seed routing accuracy and AUC. */
  readonly perSeed: readonly { readonly seed: number; readonly routingAccuracy: number; readonly auc: number | null }[];
}

/** The full result of one evaluation. */
export interface EvalReport {
  readonly dataset: string;
  readonly counts: { readonly train: number; readonly val: number; readonly test: number };
  readonly seeds: readonly number[];
  readonly bootstrap: { readonly resamples: number; readonly seed: number };
  readonly models: readonly string[];
  readonly bestSingleModel: string;
  readonly methods: readonly MethodReport[];
  /** Test routing accuracy per category and method (seed-averaged per item). */
  readonly categories: readonly {
    readonly category: string;
    readonly n: number;
    readonly routing: Readonly<Record<string, number>>;
  }[];
  /** Single models' test accuracy and mean recorded cost, on datasets with cost. */
  readonly costReference?: {
    readonly singleModels: readonly { readonly model: string; readonly accuracy: number; readonly meanCost: number }[];
    readonly bestSingle: { readonly model: string; readonly accuracy: number; readonly meanCost: number };
    /** Train calls without a recorded cost (they cannot inform the ex-ante estimate; val and test have none, or there would be no figures). */
    readonly unknownTrainCost: number;
    readonly note?: string;
  };
  /**
   * On a dataset with cost data that cannot give the cost-aware figures (val or test calls without a recorded cost,
   * or a model without an ex-ante cost estimate): why, with the counts. No method then has `costAware`, and there is
   * no `costReference`: nothing is computed on part of the calls.
   */
  readonly costAwareNotComputed?: {
    readonly reason: string;
    /** Observed calls without a recorded cost, per split. */
    readonly unknownCost: { readonly train: number; readonly val: number; readonly test: number };
    /** Models observed on val or test items that have no ex-ante cost estimate. */
    readonly modelsWithoutEstimate: readonly string[];
  };
}
