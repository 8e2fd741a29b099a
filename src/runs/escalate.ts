/** The escalation loop of {@link RunRouter.escalate}: run, check, feed back, pick the next model knowing what failed. */
import { UnknownModelError } from "../errors.js";
import { functionSchema, parseWith } from "../util/validate.js";
import { escalateOptionsSchema, outcomeValue, type EscalateOptions } from "./options.js";
import { watchAbort, type AbortWatch } from "./abort.js";
import type { RunDecision } from "./run-decision.js";
import type { RouteRunOptions, RunTask } from "./options.js";
import { ATTEMPT_SPAN, ESCALATION_SPAN, type RunTracer, type SpanOutcome } from "../tracing/run-span.js";

/** What the escalation loop needs of a run router ({@link RunRouter} is one). */
export interface EscalationRouter {
  readonly modelIds: readonly string[];
  route(task: RunTask | string, options?: RouteRunOptions): RunDecision;
  runCost(modelId: string): number;
  feedback(task: RunTask | string, modelId: string, outcome: number): unknown;
}

/** What each attempt's `run` and `check` are given besides their own arguments. */
export interface AttemptContext {
  /**
   * The escalation's `signal` (undefined without one): hand it to your agent run and check (the AI SDK's
   * `abortSignal`, LangChain's `signal` call option, `fetch`'s `signal`) so that they stop when it aborts. The
   * escalation itself rejects at once on abort, whether or not they stop.
   */
  readonly signal: AbortSignal | undefined;
}

/**
 * Runs the agent on the task with a model (a fresh run each time); `attempt` counts from 1. The third argument,
 * `{ signal }`, is the escalation's abort signal ({@link AttemptContext}); a function of `(modelId, attempt)` only
 * is one too.
 */
export type RunFunction<R> = (modelId: string, attempt: number, context: AttemptContext) => Promise<R>;

/** Whether a run passed: true/false or a grade in [0, 1] (passed when >= 0.5); `{ signal }` as for the run. */
export type RunCheck<R> = (
  result: R,
  modelId: string,
  context: AttemptContext,
) => boolean | number | Promise<boolean | number>;

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
  tracer?: RunTracer,
): Promise<EscalationResult<R>> {
  // before any run is billed: a `run` that is no function started nothing, yet a pacer recorded its cost
  parseWith(functionSchema("a function (modelId, attempt) => Promise of the run's result"), run, "run");
  parseWith(functionSchema("a function (result, modelId) => true, false or a grade in [0, 1]"), check, "check");
  const o = parseWith(escalateOptionsSchema, options, "options");
  // a misspelt id excluded nothing, and the model meant ran
  (o.exclude ?? []).forEach((id, k) => {
    if (!router.modelIds.includes(id)) {
      throw new UnknownModelError(id, router.modelIds.slice(0, 5), { path: `options.exclude.${k}` });
    }
  });
  if (!tracer) return escalationLoop(router, task, run, check, o, undefined);
  const attributes = { "irt_router.max_attempts": o.maxAttempts ?? 3 };
  return tracer.span(ESCALATION_SPAN, attributes, task, (outcome) =>
    escalationLoop(router, task, run, check, o, { tracer, outcome }),
  );
}

/** What every attempt of one escalation shares. */
interface AttemptSteps<R> {
  readonly tracer: RunTracer | undefined;
  readonly run: RunFunction<R>;
  readonly check: RunCheck<R>;
  readonly abort: AbortWatch;
  readonly context: AttemptContext;
}

/**
 * One run of `modelId` and its check, in an attempt span when tracing: the result and the check's outcome. Each
 * races the abort; `started` is called just before the run is (not when the escalation was aborted first).
 */
async function attemptOnce<R>(
  steps: AttemptSteps<R>,
  decision: RunDecision,
  attempt: number,
  runCost: number,
  started: () => void,
): Promise<{ result: R; outcome: number }> {
  const { tracer, run, check, abort, context } = steps;
  const body = async (out?: SpanOutcome) => {
    const result = await abort.race(() => {
      started();
      return run(decision.chosen, attempt, context);
    });
    const verdict = await abort.race(() => check(result, decision.chosen, context));
    const outcome = outcomeValue(verdict, "check", "check must return");
    out?.({ "irt_router.passed": outcome >= 0.5, "irt_router.outcome": outcome });
    return { result, outcome };
  };
  if (!tracer) return body();
  const p = decision.candidates.find((c) => c.modelId === decision.chosen)?.p;
  const attributes = {
    "irt_router.model": decision.chosen,
    "irt_router.attempt": attempt,
    "irt_router.expected_cost_usd": runCost,
    ...(p !== undefined && { "irt_router.p": p }),
  };
  return tracer.span(ATTEMPT_SPAN, attributes, undefined, body);
}

async function escalationLoop<R>(
  router: EscalationRouter,
  task: { id: string; text: string; hint?: string },
  run: RunFunction<R>,
  check: RunCheck<R>,
  o: ReturnType<typeof escalateOptionsSchema.parse>,
  traced: { readonly tracer: RunTracer; readonly outcome: SpanOutcome } | undefined,
): Promise<EscalationResult<R>> {
  const maxAttempts = o.maxAttempts ?? 3;
  const costWeight = o.pacer?.costWeight ?? o.costWeight;
  const learn = o.learn ?? true;
  const attempts: EscalationAttempt<R>[] = [];
  let cost = 0;
  let runsStarted = 0;
  const abort = watchAbort(o.signal);
  const steps = { tracer: traced?.tracer, run, check, abort, context: { signal: o.signal } };
  const done = (stopReason: EscalationStop): EscalationResult<R> => {
    traced?.outcome({
      "irt_router.passed": stopReason === "passed",
      "irt_router.attempts": attempts.length,
      "irt_router.cost_usd": cost,
      "irt_router.stop_reason": stopReason,
      ...(attempts.length > 0 && { "irt_router.model": attempts[attempts.length - 1]!.modelId }),
    });
    return {
      passed: stopReason === "passed",
      result: attempts[attempts.length - 1]?.result,
      attempts,
      cost,
      stopReason,
    };
  };
  try {
    while (attempts.length < maxAttempts) {
      abort.throwIfAborted(); // aborted before this attempt (or the first): it does not start
      const budget = o.costCap === undefined ? undefined : o.costCap - cost;
      const tried = attempts.map((a) => a.modelId);
      const allowRetry = o.allowRetry ?? false;
      const barred = [...(o.exclude ?? []), ...(allowRetry ? [] : tried)];
      if (router.modelIds.every((id) => barred.includes(id))) return done("no-model");
      const decision = router.route(task, {
        costWeight,
        attemptsLeft: maxAttempts - attempts.length,
        budget: budget === undefined ? undefined : Math.max(0, budget),
        allowRetry,
        exclude: barred,
        outcomes: learn ? [] : attempts.map((a) => ({ modelId: a.modelId, outcome: a.outcome })),
      });
      const runCost = router.runCost(decision.chosen);
      if (budget !== undefined && runCost > budget + 1e-12)
        return done(attempts.length === 0 ? "no-model" : "cost-cap");
      if (attempts.length > 0 && !(decision.value > 0)) return done("not-worth");
      const attempt = attempts.length + 1;
      // A started run is billed, so a run that throws or is aborted still counts for the pacer (the finally below).
      const { result, outcome } = await attemptOnce(steps, decision, attempt, runCost, () => {
        cost += runCost;
        runsStarted += 1;
      });
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
    // A long-lived signal keeps no listener of an escalation that has ended. However the escalation ended (a run or a
    // check that threw, or an abort, included), what its started runs cost counts; but one aborted before any run
    // started was no task for the pacer (the loop checks the signal after its every await, so aborted here with no
    // run started means it was aborted before the first run).
    abort.dispose();
    if (runsStarted > 0 || !o.signal?.aborted) o.pacer?.record(cost);
  }
}
