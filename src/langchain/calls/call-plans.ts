/**
 * The plans of one call through BaseChatModel's own machinery (`generate`, `_streamIterator`): the router chooses
 * before BaseChatModel opens its run, so the run reports the chosen child (`getLsParams`), and the plans ride on the
 * call options to `_generate` / `_streamResponseChunks`, which call the planned models without planning again.
 */
import type { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { CallbackManager, type CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseChatModelCallOptions } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { CallNeeds } from "../../core/routing/model-slots.js";
import { runIdOf } from "./delegate.js";
import { taskOf } from "../../core/routing/task-hint.js";
import type { ChatEngine, ChatPlan } from "../bridge/chat-engine.js";
import { toRouteMessages } from "../bridge/route-messages.js";

/**
 * Key of the plans on the call options. A symbol, so that no serializer, cache key or child sees it: BaseChatModel
 * copies the options object (`{ ...options }`) before `getLsParams` and again before each `_generate`, so a WeakMap
 * keyed on one of those objects would lose it, while an own enumerable symbol survives every spread.
 */
export const PLANNED = Symbol("irt-router.planned");

export type PlanOrError = { plan: ChatPlan } | { error: unknown };

/** The plans of one call, one per prompt (or the error planning gave), and what the call gives each attempt. */
export interface Planned {
  /** The prompts, as the message objects BaseChatModel hands on: a plan is found by its prompt (see {@link takePlan}). */
  readonly prompts: readonly (readonly BaseMessage[])[];
  readonly plans: readonly PlanOrError[];
  /** Whether each plan was taken by the `_generate` / `_streamResponseChunks` call of its prompt. */
  readonly taken: boolean[];
  /** Bounds each attempt: taken out before BaseChatModel would turn it into one signal for the whole call. */
  readonly timeout?: number;
  /** The call's `configurable`, which BaseChatModel keeps for the router's run but a configurable child needs. */
  readonly configurable?: Record<string, unknown>;
}

export type WithPlanned<T> = T & { [PLANNED]?: Planned };

/** Plans every prompt (the errors kept per prompt, so each fails inside its own run). */
export async function planPrompts(
  engine: ChatEngine,
  prompts: readonly (readonly BaseMessage[])[],
  needs: CallNeeds,
  runId: string | undefined,
  task?: string,
): Promise<PlanOrError[]> {
  const routed = prompts.map(toRouteMessages);
  for (const prompt of routed) engine.noteToolErrors(prompt);
  return Promise.all(
    routed.map((prompt) =>
      engine.plan(prompt, { ...needs, runId, task }).then(
        (plan) => ({ plan }),
        (error: unknown) => ({ error }),
      ),
    ),
  );
}

/** Drops from the decision log the plans no `_generate` took (prompts a cache served, or a call that failed first). */
export function dropUntaken(engine: ChatEngine, planned: Planned): void {
  planned.plans.forEach((p, i) => {
    if (!planned.taken[i] && "plan" in p) engine.log.remove(p.plan.decision.decisionId);
  });
}

/**
 * The child's config inside the router's own run: the call options without the plans, with the call's
 * `configurable`, and callbacks nesting the child under the router's run (see {@link childCallbacks}); plus the
 * plan made for these messages, if any, and the call's timeout.
 */
export function delegated(
  messages: readonly BaseMessage[],
  options: WithPlanned<BaseChatModelCallOptions & { promptIndex?: number }>,
  runManager?: CallbackManagerForLLMRun,
): { config: Partial<BaseChatModelCallOptions>; planned?: PlanOrError; timeout?: number } {
  const { [PLANNED]: planned, promptIndex: _index, ...rest } = options;
  const config: Partial<BaseChatModelCallOptions> = { ...rest, callbacks: childCallbacks(runManager) };
  if (planned?.configurable !== undefined) config.configurable = planned.configurable;
  if (planned?.timeout !== undefined) config.timeout = planned.timeout;
  return { config, planned: planned && takePlan(planned, messages), timeout: planned?.timeout };
}

/**
 * The plan of the prompt made of exactly these message objects (BaseChatModel hands each prompt's messages on as
 * given), taken once. Found by the prompt, not by BaseChatModel's `promptIndex`: with a cache, only the prompts the
 * cache missed reach `_generate`, and `promptIndex` counts within those. Undefined when no untaken plan matches (the
 * call then plans itself).
 */
export function takePlan(planned: Planned, messages: readonly BaseMessage[]): PlanOrError | undefined {
  const i = planned.prompts.findIndex(
    (prompt, k) => !planned.taken[k] && prompt.length === messages.length && prompt.every((m, j) => m === messages[j]),
  );
  if (i < 0) return undefined;
  planned.taken[i] = true;
  return planned.plans[i];
}

/** A handler that consumes the token stream (`streamEvents`, `streamLog`, LangGraph's "messages" stream). */
function streamsTokens(handler: BaseCallbackHandler): boolean {
  const h = handler as { lc_prefer_streaming?: boolean; lc_prefer_chat_model_stream_events?: boolean };
  return h.lc_prefer_streaming === true || h.lc_prefer_chat_model_stream_events === true;
}

/**
 * Callbacks for a child called inside the router's own run: the run's inheritable handlers, tags and metadata, with
 * the router's run as parent. Handlers that consume the token stream are left out: the router's run reports every
 * token itself, so `streamEvents` and LangGraph's messages stream see each token once, from the router; tracers
 * (LangSmith) and other handlers see the child's run nested under the router's.
 */
export function childCallbacks(runManager?: CallbackManagerForLLMRun): CallbackManager | undefined {
  if (!runManager) return undefined;
  const run = runManager as unknown as {
    runId: string;
    inheritableHandlers: BaseCallbackHandler[];
    inheritableTags: string[];
    inheritableMetadata: Record<string, unknown>;
  };
  const manager = new CallbackManager(run.runId);
  manager.setHandlers(run.inheritableHandlers.filter((h) => !streamsTokens(h)));
  manager.addTags(run.inheritableTags);
  manager.addMetadata(run.inheritableMetadata);
  return manager;
}

/**
 * Plans each prompt of a call (its run id and task hint read from the call's metadata over the router's own) and
 * packs the plans with what every attempt of the call needs.
 */
export async function planCall(
  engine: ChatEngine,
  prompts: BaseMessage[][],
  options: Partial<BaseChatModelCallOptions>,
  call: { needs: CallNeeds; ownMetadata?: Record<string, unknown>; timeout?: number },
): Promise<Planned> {
  const config = { ...options, metadata: { ...call.ownMetadata, ...options.metadata } };
  const plans = await planPrompts(engine, prompts, call.needs, runIdOf(config), taskOf(config));
  return { prompts, plans, taken: plans.map(() => false), timeout: call.timeout, configurable: options.configurable };
}
