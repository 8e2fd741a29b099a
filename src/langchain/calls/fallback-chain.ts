/**
 * The router's calls of its children: the child prepared for the call (tools bound, or the structured-output schema
 * replayed), and the planned models tried best first, each attempt bounded (attempt.ts).
 */
import { taskOf } from "../../core/routing/task-hint.js";
import type { BaseChatModelCallOptions, BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import { AttemptBound, attemptMs, checkReply } from "./attempt.js";
import { childConfig, isAbort } from "./delegate.js";
import { callInOrder } from "../../core/call-order.js";
import type { PlanOrError } from "./call-plans.js";
import type { CallNeeds } from "../../core/routing/model-slots.js";
import type { ChatEngine, ChatPlan, ChatSlot } from "../bridge/chat-engine.js";
import { toRouteMessages } from "../bridge/route-messages.js";

/** What one call gives its attempts: how to call a child, and the plan and timeout when the call has them. */
export interface AttemptHow<T> {
  call: (child: Runnable, config: Record<string, unknown>, bound: AttemptBound) => Promise<T>;
  /** A stream: the bound is handed on, to be disposed when the stream ends. */
  stream?: boolean;
  runId?: string;
  planned?: PlanOrError;
  timeout?: number;
}

/** The child as a router uses it: with the bound tools or the structured-output schema replayed. */
export function prepareChild(
  slot: ChatSlot,
  bound: { tools: BindToolsInput[]; kwargs?: Partial<BaseChatModelCallOptions> } | undefined,
  structured: [unknown, unknown] | undefined,
): Runnable {
  if (bound && bound.tools.length === 0 && typeof slot.model.bindTools !== "function") {
    // an empty tool list on a model that cannot bind tools: nothing to bind, so the model is called as it is
    return slot.model as unknown as Runnable;
  }
  if (bound) {
    if (typeof slot.model.bindTools !== "function") throw new TypeError(`model "${slot.id}" has no bindTools()`);
    return slot.model.bindTools(bound.tools, bound.kwargs) as Runnable;
  }
  if (structured) return slot.model.withStructuredOutput(structured[0] as never, structured[1] as never) as Runnable;
  return slot.model as unknown as Runnable;
}

/**
 * Plans the call (unless `generate()` did) and calls its models best first. Each attempt is bounded by the call's
 * `timeout` (else the router's `attemptTimeout`) and by the caller's signal, and abandoned at that point whether or
 * not the child honours its signal; a reply that is no chat message is a failed attempt.
 */
export async function attemptInOrder<T>(
  parts: {
    engine: ChatEngine;
    needs: CallNeeds;
    attemptTimeout?: number;
    structured: boolean;
    prepare: (slot: ChatSlot) => Runnable;
  },
  messages: BaseMessage[],
  config: Partial<BaseChatModelCallOptions> | undefined,
  how: AttemptHow<T>,
): Promise<{ out: T; plan: ChatPlan; slot: ChatSlot; bound: AttemptBound }> {
  const { engine } = parts;
  let plan: ChatPlan;
  if (how.planned && "error" in how.planned) throw how.planned.error;
  else if (how.planned) plan = how.planned.plan;
  else {
    config?.signal?.throwIfAborted();
    const routed = toRouteMessages(messages);
    engine.noteToolErrors(routed);
    plan = await engine.plan(routed, { ...parts.needs, runId: how.runId, task: taskOf(config) });
  }
  const ms = attemptMs(how.timeout ?? config?.timeout, parts.attemptTimeout);
  const signal = config?.signal;
  const attempt = async (slot: ChatSlot, i: number) => {
    const bound = new AttemptBound(slot.id, ms, signal);
    try {
      const cfg = { ...childConfig(config, plan.decision, slot.id, i), signal: bound.signal };
      const out = await bound.race(Promise.resolve().then(() => how.call(parts.prepare(slot), cfg, bound)));
      checkReply(out, slot.id, parts.structured || how.stream === true);
      if (!how.stream) bound.dispose();
      return { out, bound };
    } catch (error) {
      bound.dispose();
      throw error;
    }
  };
  const { out, slot } = await callInOrder(plan, attempt, {
    signal,
    cancelled: (error) => isAbort(error, signal),
    fallbackOn: engine.fallbackOn,
  }).catch((error: unknown) => {
    engine.settle(plan); // every model tried failed: the call is over
    throw error;
  });
  return { out: out.out, plan, slot, bound: out.bound };
}
