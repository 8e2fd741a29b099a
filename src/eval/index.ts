/**
 * The evaluation harness of ../shared/BENCHMARK.md as pure functions on typed arrays:
 * correctness metrics, routing accuracy, reference rows, paired bootstrap, cost-aware figures,
 * and {@link evaluate}, which runs them all for a list of methods.
 */
export type {
  LabelMatrix,
  EmbeddedLabelData,
  PredictionBlock,
  FitSplit,
  FittedMethod,
  FitProgress,
  FitOptions,
  RoutingMethod,
} from "./types.js";
export {
  ECE_BINS,
  rocAucWithTies,
  brierScore,
  expectedCalibrationError,
  thresholdAccuracy,
  observedCells,
  correctnessMetrics,
  nanMean,
  meanSd,
  type CorrectnessMetrics,
} from "../stats/metrics.js";
export {
  routeByPrediction,
  modelAccuracies,
  bestSingleModel,
  singleModelScores,
  randomChoiceScores,
  oracleScores,
  gapClosed,
  type RoutingOutcome,
} from "../stats/routing-scores.js";
export { spearman, kendall, midRanks } from "./rank-correlation.js";
export {
  bootstrapPlan,
  bootstrapMeanCi,
  bootstrapDiffCi,
  percentileInterval,
  type BootstrapPlan,
} from "../stats/bootstrap.js";
export {
  defaultLambdaGrid,
  costAwarePoint,
  costCurve,
  singleModelPoint,
  upperHull,
  hullValue,
  hullArea,
  matchCostFraction,
  chooseLambdaUnderCap,
  type CostLabelMatrix,
  type CurvePoint,
} from "./cost.js";
export { estimateExpectedCosts, type ExpectedCostMatrix, type ModelCostEstimate } from "./expected-cost.js";
export {
  evaluate,
  IRT_MOE,
  type EvalDataset,
  type EvalProgress,
  type EvaluateOptions,
  type EvalReport,
  type MethodReport,
  type CostAwareReport,
  type CostAwareSeed,
} from "./evaluate.js";
export { irtMoeMethod } from "./irt-moe-method.js";
export { savedScorerMethod } from "./scorer-method.js";
export { formatEvalMarkdown, formatEvalJson, summarise, verdict } from "./format.js";

// Replay of routing policies over a dataset (the demo's accuracy-vs-cost table).
export {
  replayPolicy,
  replayAlways,
  bestUnderCap,
  logGrid,
  impliedOutputTokens,
  type ReplayTable,
  type ReplayResult,
  type SettingPoint,
} from "./policy-replay.js";
export {
  runDemo,
  buildReplayTables,
  DEFAULT_DEMO_SETTINGS,
  type DemoSettings,
  type DemoRow,
  type DemoReport,
  type CurveRow,
  type ReplayTableInputs,
  type OutputTokenEstimate,
} from "./policy-demo.js";
export { bestPerTaskModels, bestPerTaskScores, type BestPerTask } from "./best-per-task.js";
