/**
 * Escalation: after a visible failure of a step, the model that failed is passed over for that step and a stronger
 * bar applies. A failure is visible when the previous call's tool call came back with an error (a tool message with
 * `toolError` after the last assistant message), or when the agent sends the step again (the same user message once
 * more after an answer, or the same messages the run's last answered call had).
 */
import { rankCandidates } from "../../policy/rank.js";
import type { Candidate, PolicyConfig, PolicyContext, RankedCandidate } from "../../policy/types.js";
import type { RouteMessage } from "../contracts/route-message.js";
import { sharedPrefix, type PromptShape } from "./run-memory.js";
import type { EscalationRecord } from "../contracts/route-decision.js";

/** The `escalation` router option, resolved: which bar applies after a visible failure. */
export interface EscalationSettings {
  /**
   * `"stronger"`: only models with a higher p than the failed one's (on this step) are ranked by the policy; the
   * others follow as fallbacks, by p. `"best"`: the highest p among the models that have not failed, whatever it costs.
   */
  readonly bar: "stronger" | "best";
}

/** A visible failure of the current step: the models that failed it, the last one first. */
export interface StepFailure {
  readonly failed: readonly string[];
  readonly reason: "tool-error" | "retry";
}

const isAssistant = (m: RouteMessage): boolean => m.role === "assistant";
const isUser = (m: RouteMessage): boolean => m.role === "user";
const isToolError = (m: RouteMessage): boolean => m.role === "tool" && m.toolError === true;

/** Models whose AI message in `messages[from, to)` had a tool call answered with an error, the last one first. */
function toolErrorModels(messages: readonly RouteMessage[], from: number, to: number, lastModel?: string): string[] {
  const failed: string[] = [];
  let model: string | undefined;
  for (let i = from; i < to; i++) {
    const m = messages[i]!;
    if (isAssistant(m)) {
      model = m.model;
      const isLastAi = !messages.slice(i + 1, to).some(isAssistant);
      if (model === undefined && isLastAi) model = lastModel;
    } else if (isToolError(m) && model !== undefined && !failed.includes(model)) {
      failed.unshift(model);
    }
  }
  return failed;
}

function lastIndex(
  messages: readonly RouteMessage[],
  test: (m: RouteMessage) => boolean,
  before = messages.length,
): number {
  for (let i = before - 1; i >= 0; i--) if (test(messages[i]!)) return i;
  return -1;
}

/**
 * The visible failure of the step this call continues, if any. `lastServed` is the run's last answered call (model
 * and prompt keys), used when an AI message carries no decision and to see a step sent again unchanged.
 */
export function visibleFailure(
  messages: readonly RouteMessage[],
  shape: PromptShape,
  lastServed?: { readonly slotId: string; readonly keys: readonly string[] },
): StepFailure | undefined {
  const human = lastIndex(messages, isUser);
  const lastAi = lastIndex(messages, isAssistant);
  if (lastAi > human) {
    // The step is under way: a tool error after the last AI message fails the previous call.
    const answered = messages.slice(lastAi + 1).some(isToolError);
    if (!answered) return undefined;
    const failed = toolErrorModels(messages, human + 1, messages.length, lastServed?.slotId);
    return failed.length > 0 ? { failed, reason: "tool-error" } : undefined;
  }
  if (human >= 0) {
    // The same human message again after an answer: the agent retries the step.
    const previous = lastIndex(messages, isUser, human);
    const between = previous >= 0 ? lastIndex(messages, isAssistant, human) : -1;
    if (previous >= 0 && between > previous && messages[previous]!.text === messages[human]!.text) {
      const last = messages[between]!.model ?? lastServed?.slotId;
      const failed = toolErrorModels(messages, previous + 1, human, lastServed?.slotId).filter((m) => m !== last);
      return last !== undefined ? { failed: [last, ...failed], reason: "retry" } : undefined;
    }
  }
  // The very prompt of the run's last answered call, sent again.
  if (
    lastServed &&
    lastServed.keys.length === shape.keys.length &&
    sharedPrefix(lastServed.keys, shape.keys) === shape.keys.length
  ) {
    return { failed: [lastServed.slotId], reason: "retry" };
  }
  return undefined;
}

/**
 * Ranks the candidates of an escalated step: the failed models are passed over (unless no other model is left), and
 * the bar of `settings` applies to the rest. Returns the ranking, the passed-over ids and the record.
 */
export function rankEscalated(
  policy: PolicyConfig,
  candidates: readonly Candidate[],
  ctx: PolicyContext,
  failure: StepFailure,
  settings: EscalationSettings,
): { ranked: RankedCandidate[]; record: EscalationRecord } {
  const failed = candidates.filter((c) => failure.failed.includes(c.id));
  const rest = candidates.filter((c) => !failure.failed.includes(c.id));
  const from = failure.failed[0]!;
  if (failed.length === 0 || rest.length === 0) {
    return {
      ranked: rankCandidates(policy, candidates, ctx),
      record: { from, reason: failure.reason, passedOver: [] },
    };
  }
  const bar = Math.max(...failed.map((c) => c.p));
  const passedOver = failed.map((c) => c.id);
  if (settings.bar === "best") {
    return {
      ranked: rankCandidates({ kind: "quality" }, rest),
      record: { from, reason: failure.reason, passedOver, pAbove: bar },
    };
  }
  const stronger = rest.filter((c) => c.p > bar);
  const weaker = rest.filter((c) => c.p <= bar);
  const ranked = [...rankCandidates(policy, stronger, ctx), ...rankCandidates({ kind: "quality" }, weaker)];
  return { ranked, record: { from, reason: failure.reason, passedOver, pAbove: bar } };
}
