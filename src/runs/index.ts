/**
 * Run-level routing: one model per agent run, chosen from the task text, learned from run outcomes, with escalation
 * to another model after a failed run. Framework-neutral (no LangChain). Also the run-level replay benchmark.
 *
 * @packageDocumentation
 */
export { RunRouter, type RunDecision, type RunCandidate } from "./run-router.js";
export type {
  RunRouterOptions,
  RunModelConfig,
  RunPriors,
  RunTask,
  RouteRunOptions,
  EscalateOptions,
} from "./options.js";
export { DEFAULT_RUN_TOKENS, DEFAULT_RUN_PRIORS, DEFAULT_MAX_OUTCOMES } from "./options.js";
export { SpendPacer, type SpendPacerOptions } from "./spend-pacer.js";
export type {
  EscalationResult,
  EscalationAttempt,
  EscalationStop,
  RunFunction,
  RunCheck,
  AttemptContext,
} from "./escalate.js";
export type { RunObservation } from "./fit.js";
export { runRouterOf } from "./registered.js";
export { RUN_PRIOR_FORMAT, type RunPrior } from "./run-prior.js";
export type { RunSyncCheckpoint } from "./sync-checkpoint.js";
export type { RunOutcomeCursor, RunOutcomeLog, RunOutcomePage, SharedRunOutcome } from "./run-outcome-log.js";
export type { RunSyncResult, RunSyncSkip } from "./run-sync.js";
export { trainRunPrior, type TrainRunPriorOptions } from "./train-prior.js";
export type { RunRoutingOptions } from "./options.js";

// The run-level replay benchmark (../shared/BENCHMARK.md, "Agent runs with real outcomes")
export * from "./replay/index.js";
export type { RouteTracingOptions } from "../tracing/route-span.js";
