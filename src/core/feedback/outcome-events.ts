/**
 * What `router.feedback()` writes: its options, the events of one call (a decision's outcome, or a run's outcome
 * spread over its steps by {@link attributeRun}), and the tool errors an agent's messages show for each step.
 */
import { z } from "zod";
import { FeedbackError, ValidationError } from "../../errors.js";
import {
  attributeRun,
  attributionSchema,
  DEFAULT_ATTRIBUTION,
  stepEventId,
  type Attribution,
} from "../../learning/attribution.js";
import type { FeedbackEvent } from "../../learning/events.js";
import { parseWith } from "../../util/validate.js";
import type { RouteDecision } from "../contracts/route-decision.js";
import type { RouteMessage } from "../contracts/route-message.js";
import type { DecisionLog, LoggedDecision } from "../routing/decision-log.js";

const finite = z.number().refine(Number.isFinite, "must be a finite number");

/** Options of `router.feedback()`. Unknown keys are errors. */
export const feedbackOptionsSchema = z.strictObject({
  /** Credit weight in (0, 1] of the outcome given (default 1); multiplies the weight attribution gives each step. */
  weight: finite.refine((w) => w > 0 && w <= 1, "weight must be a number in (0, 1]").optional(),
  /** How a run id's outcome is spread over the run's steps (a decision id takes the outcome as given). */
  attribution: attributionSchema.optional(),
  /**
   * Who gives this outcome (a user, tenant or grader id of the application), recorded on the events and charged for
   * their weight against the router's `feedbackLimits.sourceBudget`, at full weight. Set it only from an identity your
   * application has authenticated. Default: one shared source for all unattributed outcomes, whose weight is scaled
   * by `feedbackLimits.unattributedWeight` (default 0.1; docs/online.md, "Threat model").
   */
  source: z
    .string()
    .refine((v) => v.trim().length > 0, "source must be a non-empty string")
    .optional(),
});

/** Options of `router.feedback()`. */
export type FeedbackOptions = z.input<typeof feedbackOptionsSchema>;

/** The feedback options, checked; a bad one is a FeedbackError naming it (`options.attribution.mode`). */
export function parseFeedbackOptions(options: unknown): z.output<typeof feedbackOptionsSchema> {
  if (options === null || options === undefined) return {};
  if (typeof options !== "object" || Array.isArray(options)) {
    throw new FeedbackError(`feedback() options must be an object such as { weight: 0.5 }, got ${typeof options}.`, {
      path: "options",
    });
  }
  return asFeedbackError(() => parseWith(feedbackOptionsSchema, options, "options"));
}

/**
 * The event id of one decision's outcome: the id {@link attributeRun} gives the step (`${runId}:${decisionId}`) when the
 * decision belongs to a run, else `${decisionId}:feedback`. One id per decision however the outcome arrives (by
 * decision id, by run id, or through `attributeRun` on the run's route log), so a store or learner applies it once.
 */
export function feedbackEventId(decision: Pick<RouteDecision, "decisionId" | "runId">): string {
  return decision.runId !== undefined
    ? stepEventId(decision.runId, decision.decisionId)
    : `${decision.decisionId}:feedback`;
}

const modelOf = (t: LoggedDecision): string => t.catalogIds[t.decision.chosen] ?? t.decision.chosen;

/** The event of one decision's outcome, as given (weight omitted when 1). */
export function decisionEvent(t: LoggedDecision, y: number, weight: number, at: number): FeedbackEvent {
  return {
    id: feedbackEventId(t.decision),
    model: modelOf(t),
    alpha: Array.from(t.alpha),
    beta: t.beta,
    y,
    ...(weight !== 1 ? { weight } : {}),
    decisionId: t.decision.decisionId,
    ...(t.decision.runId !== undefined ? { runId: t.decision.runId } : {}),
    at,
    ...(t.decision.task !== undefined ? { task: t.decision.task } : {}),
  };
}

/**
 * The events of a run's outcome: {@link attributeRun} over the run's answered steps (oldest first), as the parsed
 * `attribution` says (the router's defaults, {@link DEFAULT_ATTRIBUTION}, when none was given); `weight`
 * scales the credit of the outcome (a tool-error failure is an observation of its own and keeps weight 1). A weight
 * of 1 is left out of the event.
 */
export function runEvents(
  runId: string,
  steps: readonly LoggedDecision[],
  y: number,
  weight: number,
  at: number,
  attribution: Attribution = DEFAULT_ATTRIBUTION,
): FeedbackEvent[] {
  const run = {
    runId,
    outcome: y,
    at,
    steps: steps.map((t) => ({
      decisionId: t.decision.decisionId,
      model: modelOf(t),
      alpha: t.alpha,
      beta: t.beta,
      toolError: t.toolError === true,
      ...(attribution.mode === "posterior" ? { p: predictedP(t) } : {}),
    })),
  };
  const attributed = asFeedbackError(() => attributeRun(run, attribution));
  // A failed run with a step whose tool error the agent never recovered from is explained by that step: the run
  // fails whatever its other steps did, so they carry no evidence and are left out (blaming them would charge a
  // failure to steps that were right, the strongest model's most of all).
  const explained = y < 1 && attribution.toolErrorsAsFailures && unrecoveredToolError(steps);
  const events = explained
    ? attributed.filter((e) => steps.some((t) => t.toolError && t.decision.decisionId === e.decisionId))
    : attributed;
  const failed = new Set(
    attribution.toolErrorsAsFailures ? steps.filter((t) => t.toolError).map((t) => t.decision.decisionId) : [],
  );
  const tasks = new Map(steps.map((t) => [t.decision.decisionId, t.decision.task]));
  return events.map(({ weight: w = 1, ...event }) => {
    const credit = failed.has(event.decisionId!) ? w : w * weight;
    const task = tasks.get(event.decisionId!);
    const hinted = task !== undefined ? { ...event, task } : event;
    return credit !== 1 ? { ...hinted, weight: credit } : hinted;
  });
}

/**
 * Whether a step of the run ended in a tool error the agent did not recover from: a step whose tool call failed and
 * that no later step of the run sent again (the same query, by its item parameters) without a tool error.
 */
function unrecoveredToolError(steps: readonly LoggedDecision[]): boolean {
  const same = (a: LoggedDecision, b: LoggedDecision) =>
    a.beta === b.beta && a.alpha.length === b.alpha.length && a.alpha.every((v, k) => v === b.alpha[k]);
  return steps.some((t, k) => t.toolError === true && !steps.slice(k + 1).some((u) => !u.toolError && same(t, u)));
}

/**
 * The p(correct) the router predicted for the model that answered a logged step: its predictive p (learner) or the
 * scorer's p, else (a decision logged without it) the chosen candidate's recorded p; kept inside (0, 1).
 */
function predictedP(t: LoggedDecision): number {
  const chosen = t.decision.chosen;
  const p = t.predicted?.[chosen] ?? t.decision.candidates.find((c) => c.id === chosen)?.p ?? 0.5;
  return Math.min(1 - 1e-6, Math.max(1e-6, p));
}

/** Runs `fn`, reporting a ValidationError it throws (e.g. a logged alpha that is not finite) as a FeedbackError, like every feedback() error. */
function asFeedbackError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new FeedbackError(error.message, { path: error.path, details: error.details, cause: error });
  }
}

/**
 * Marks the logged decisions whose tool calls failed: an assistant message carrying a decision of this router
 * (`decisionId`; in LangChain `response_metadata.irtRouter.decisionId`) whose tool call is answered by a tool message
 * with `toolError` (what LangChain's ToolNode returns for a tool that threw, a tool the model named that does not
 * exist, or arguments that do not parse). Reads the conversation a routed call receives: a step's tool errors are
 * known once the next model call of the run is routed, which in an agent always follows a tool error (the agent
 * hands the error back to the model, also for a `returnDirect` tool).
 */
export function markToolErrors(log: DecisionLog, messages: readonly RouteMessage[]): void {
  const stepOfCall = new Map<string, LoggedDecision>();
  for (const m of messages) {
    if (m.role === "assistant") {
      const logged = m.decisionId !== undefined ? log.get(m.decisionId) : undefined;
      if (logged) for (const call of m.toolCalls ?? []) if (call.id) stepOfCall.set(call.id, logged);
    } else if (m.role === "tool" && m.toolError === true && m.toolCallId !== undefined) {
      const logged = stepOfCall.get(m.toolCallId);
      if (logged) logged.toolError = true;
    }
  }
}
