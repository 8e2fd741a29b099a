/** The escalation loop of {@link RunRouter.escalate}: run, check, feed back, pick the next model knowing what failed. */
import { FeedbackError } from "../errors.js";
import { parseWith } from "../util/validate.js";
import { escalateOptionsSchema, type EscalateOptions } from "./options.js";
import type { RunDecision } from "./run-decision.js";
import type { RouteRunOptions, RunTask } from "./options.js";

/** What the escalation loop needs of a run router ({@link RunRouter} is one). */
export interface EscalationRouter {
  readonly modelIds: readonly string[];
  route(task: RunTask | string, options?: RouteRunOptions): RunDecision;
  runCost(modelId: string): number;
  feedback(task: RunTask | string, modelId: string, outcome: number): unknown;
}

/** Runs the agent on the task with a model (a fresh run each time); `attempt` counts from 1. */
export type RunFunction<R> = (modelId: string, attempt: number) => Promise<R>;

/** Whether a run passed: true/false or a grade in [0, 1] (passed when >= 0.5). */
export type RunCheck<R> = (result: R, modelId: string) => boolean | number | Promise<boolean | number>;

/** One attempt of an escalation. */
export interface EscalationAttempt<R> {
  readonly attempt: number;
  readonly modelId: string;
  readonly result: R;
  readonly passed: boolean;
  /** The check's outcome as fed back (1/0, or the grade). */
  readonly outcome: number;
  /** USD of the run by the router's estimate. */
  readonly cost: number;
  readonly decision: RunDecision;
}

/** Why an escalation ended. */
export type EscalationStop = "passed" | "max-attempts" | "cost-cap" | "not-worth" | "no-model";

export interface EscalationResult<R> {
  readonly passed: boolean;
  /** The passing run's result (else the last run's). */
  readonly result?: R;
  readonly attempts: readonly EscalationAttempt<R>[];
  /** USD of all attempts by the router's estimate. */
  readonly cost: number;
  readonly stopReason: EscalationStop;
}

export async function escalateTask<R>(
  router: EscalationRouter,
  task: { id: string; text: string; hint?: string },
  run: RunFunction<R>,
  check: RunCheck<R>,
  options: EscalateOptions,
): Promise<EscalationResult<R>> {
  const o = parseWith(escalateOptionsSchema, options, "options");
  const maxAttempts = o.maxAttempts ?? 3;
  const costWeight = o.pacer?.costWeight ?? o.costWeight;
  const learn = o.learn ?? true;
  const attempts: EscalationAttempt<R>[] = [];
  let cost = 0;
  const done = (stopReason: EscalationStop): EscalationResult<R> => ({
    passed: stopReason === "passed",
    result: attempts[attempts.length - 1]?.result,
    attempts,
    cost,
    stopReason,
  });
  try {
    while (attempts.length < maxAttempts) {
      const budget = o.costCap === undefined ? undefined : o.costCap - cost;
      const tried = attempts.map((a) => a.modelId);
      const allowRetry = o.allowRetry ?? false;
      if (!allowRetry && router.modelIds.every((id) => tried.includes(id))) return done("no-model");
      const decision = router.route(task, {
        costWeight,
        attemptsLeft: maxAttempts - attempts.length,
        budget: budget === undefined ? undefined : Math.max(0, budget),
        allowRetry,
        exclude: allowRetry ? [] : tried,
        outcomes: learn ? [] : attempts.map((a) => ({ modelId: a.modelId, outcome: a.outcome })),
      });
      const runCost = router.runCost(decision.chosen);
      if (budget !== undefined && runCost > budget + 1e-12)
        return done(attempts.length === 0 ? "no-model" : "cost-cap");
      if (attempts.length > 0 && !(decision.value > 0)) return done("not-worth");
      const attempt = attempts.length + 1;
      // A started run is billed, so a run that throws still counts for the pacer (the finally below).
      cost += runCost;
      const result = await run(decision.chosen, attempt);
      const verdict = await check(result, decision.chosen);
      const outcome = typeof verdict === "boolean" ? Number(verdict) : verdict;
      if (!Number.isFinite(outcome) || outcome < 0 || outcome > 1) {
        throw new FeedbackError(`check must return true, false or a number in [0, 1], got ${String(verdict)}`, {
          path: "check",
        });
      }
      attempts.push({
        attempt,
        modelId: decision.chosen,
        result,
        passed: outcome >= 0.5,
        outcome,
        cost: runCost,
        decision,
      });
      if (learn) router.feedback(task, decision.chosen, outcome);
      if (outcome >= 0.5) return done("passed");
    }
    return done("max-attempts");
  } finally {
    // However the escalation ended (a run or a check that threw included), what its started runs cost counts.
    o.pacer?.record(cost);
  }
}
