/** The run-level replay benchmark (../shared/BENCHMARK.md, "Agent runs with real outcomes"). */
export { replayRuns, DEFAULT_COST_WEIGHTS, DEFAULT_SINGLE_CAPS, DEFAULT_ESCALATION } from "./replay.js";
export { DEFAULT_ONLINE_EXPLORATION, type OnlinePoint } from "./online.js";
export type { ReplayResult, ReplayOptions, ReplayPoint, CrossFitPoint, EscalationSetting } from "./replay.js";
export {
  u,
  foldOf,
  streamOrder,
  drawnOutcome,
  anonymousNames,
  runTable,
  coverageOf,
  type Coverage,
  type RunTable,
} from "./protocol.js";
export { BetaThompson, bestFixed, oracleModel } from "./references.js";
