import { randomUUID } from "node:crypto";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { AIMessage, isBaseMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { RunnableConfig } from "@langchain/core/runnables";
import { ModelFaultError, ValidationError } from "../../errors.js";
import type { RouteDecision } from "../../core/contracts/route-decision.js";
import { childConfig, runIdOf, withDecision } from "../calls/delegate.js";
import { attemptMs } from "../calls/attempt.js";
import { profileOf } from "../bridge/chat-model-slots.js";
import type { IrtRouterOptions } from "../bridge/options.js";
import { IrtRouter } from "../model/router.js";
import { taskOf } from "../../core/routing/task-hint.js";
import { revokeAnswer } from "../../core/call-order.js";
import { loadLangchain } from "./langchain-package.js";
import type { ChatSlot } from "../bridge/chat-engine.js";
import { z } from "zod";
import { parseWith } from "../../util/validate.js";

/** The config of the running LangGraph step (what `getConfig()` of @langchain/langgraph returns, without that package). */
const getConfig = () => AsyncLocalStorageProviderSingleton.getRunnableConfig() as RunnableConfig | undefined;

/** How {@link irtRouterMiddleware} routes: per model call (default) or once per agent run. */
export interface MiddlewareRoutingOptions {
  /**
   * `"step"` (default): every model call of the run is routed on its own. `"run"`: one model for the whole run, chosen
   * at its start from the task (the last human message before the first model call, and the call's
   * `metadata.irtRouterTask` as its hint) by `router.routeRun`, and pinned for the run (the prompt cache of its
   * provider stays warm). The decision, with p per model, run cost and policy, is in state as `irtRouterRun`.
   */
  readonly routing?: "step" | "run";
  /** Cost weight of the run-level decision (default: the router's `runs.costWeight`, else 0). Only with `routing: "run"`. */
  readonly runCostWeight?: number;
}

export const MIDDLEWARE_ROUTING_KEYS = ["routing", "runCostWeight"] as const;

// built on its first parse (z.lazy), not when irt-router/langchain is imported
const routingSchema = z.lazy(() =>
  z.strictObject({
    routing: z.enum(["step", "run"]).optional(),
    runCostWeight: z.number().finite().nonnegative().optional(),
  }),
);

/** The middleware's routing options, validated (the router's own options are checked by the router). */
export function middlewareRouting(options: Record<string, unknown>): MiddlewareRoutingOptions {
  const picked = Object.fromEntries(MIDDLEWARE_ROUTING_KEYS.filter((k) => k in options).map((k) => [k, options[k]]));
  const parsed = parseWith(routingSchema, picked, "options");
  if (parsed.runCostWeight !== undefined && parsed.routing !== "run") {
    throw new ValidationError('options.runCostWeight applies to routing: "run" only.', {
      path: "options.runCostWeight",
    });
  }
  return parsed;
}

/**
 * Options of {@link irtRouterMiddleware}: an existing router, or the options to make one, with how it routes
 * (`routing`: per step, the default, or once per run).
 */
export type IrtRouterMiddlewareOptions = (IrtRouterOptions | { readonly router: IrtRouter }) & MiddlewareRoutingOptions;

/** Keys of the middleware's own options, beside the router's. */
const OWN_KEYS = new Set<string>(MIDDLEWARE_ROUTING_KEYS);

/** The middleware's router: the one given as `{ router }`, else one made from the options (validated either way). */
export function routerOf(options: IrtRouterMiddlewareOptions): IrtRouter {
  if (!(options && typeof options === "object" && "router" in options)) {
    const rest = Object.fromEntries(Object.entries(options ?? {}).filter(([k]) => !OWN_KEYS.has(k)));
    return new IrtRouter(rest as IrtRouterOptions);
  }
  if (!(options.router instanceof IrtRouter)) {
    throw new ValidationError("options.router must be an IrtRouter (new IrtRouter({ models, ... })).", {
      path: "options.router",
    });
  }
  const keys = Object.keys(options).filter((k) => k !== "router" && !OWN_KEYS.has(k));
  if (keys.length > 0) {
    throw new ValidationError(`Give either { router } or router options, not both (also got: ${keys.join(", ")}).`, {
      path: `options.${keys[0]}`,
    });
  }
  return options.router;
}

/**
 * The id of the agent run that starts now: the caller's `metadata.irtRouterRunId` when given, else a fresh UUID.
 * A middleware's `runtime` has no metadata, so it is read from the step's config, which LangGraph keeps for the
 * running step (`getConfig()`).
 */
export function agentRunId(): string {
  return runIdOf(getConfig()) ?? randomUUID();
}

/** Deadlines (epoch ms) of the running agent calls given a `timeout`, by run id (see {@link noteDeadline}). */
const DEADLINES = new Map<string, number>();

/**
 * Notes when the agent call that starts now must be over: LangChain turns the call's `timeout` into an abort signal
 * (keeping the milliseconds as `metadata.timeoutMs`), and Node holds that signal's timeout source weakly inside
 * `AbortSignal.any()` (nodejs/node#57736): after a full GC it may never fire. The middleware arms a timer of its own
 * for what is left (see {@link deadlineOf}), held by the event loop like every `setTimeout`.
 */
export function noteDeadline(runId: string): void {
  const now = Date.now();
  for (const [id, at] of DEADLINES) if (at < now - 60_000) DEADLINES.delete(id); // runs long over (no hook runs after a run that threw)
  const ms = getConfig()?.metadata?.timeoutMs;
  if (typeof ms === "number" && Number.isFinite(ms) && ms > 0) DEADLINES.set(runId, now + ms);
  else DEADLINES.delete(runId);
}

/** The deadline {@link noteDeadline} noted for a run, if its call has a `timeout`. */
export function deadlineOf(runId: string | undefined): number | undefined {
  return runId === undefined ? undefined : DEADLINES.get(runId);
}

/** How long an attempt of an agent step may take, and whether the step's call is over (see {@link stepBound}). */
export interface StepBound {
  /** Milliseconds for the next attempt: the router's `attemptTimeout`, within what is left of the call's `timeout`. */
  ms(): number;
  /** Whether the call's `timeout` has passed (no fallback then). */
  pastDeadline(): boolean;
}

/**
 * The bound of each model call of an agent step, as the router's own attempts are (calls/attempt.ts): abandoned at
 * `attemptTimeout` (the router's option) whatever the model does, and within the call's own `timeout` by a timer of
 * ours (its abort signal may never fire: see {@link noteDeadline}).
 */
export function stepBound(runId: string | undefined, attemptTimeout: number | undefined): StepBound {
  const deadline = deadlineOf(runId);
  const routerMs = attemptMs(undefined, attemptTimeout);
  return {
    ms: () => (deadline === undefined ? routerMs : Math.max(1, Math.min(routerMs, deadline - Date.now()))),
    pastDeadline: () => deadline !== undefined && Date.now() >= deadline,
  };
}

/** The task hint of the agent step that runs now (`metadata.irtRouterTask` of the run's config), read as {@link agentRunId}. */
export function agentTask(): string | undefined {
  return taskOf(getConfig());
}

/**
 * The request of one attempt: the candidate's model, carrying the decision in its run's metadata and tags as the
 * router's children do (see {@link childConfig}), with the agent's response format kept as it would be for that model.
 */
export async function routedRequest<R extends { responseFormat?: unknown }>(
  request: R,
  slot: ChatSlot,
  decision: RouteDecision,
  attempt: number,
  witness?: AnswerWitness,
): Promise<R & { model: BaseChatModel }> {
  const { metadata, tags } = childConfig<RunnableConfig>({}, decision, slot.id, attempt);
  const model = slot.model.withConfig({
    metadata,
    tags,
    ...(witness ? { callbacks: [witness] } : {}),
  }) as unknown as BaseChatModel;
  return { ...request, model, responseFormat: await nativeIfSupported(request.responseFormat, slot.model) };
}

/**
 * Sees whether the model an attempt was handed answered itself: a middleware inside the router's (e.g.
 * `modelFallbackMiddleware`) may answer with a model of its own, and that answer must not be credited to the
 * routed model.
 */
export class AnswerWitness extends BaseCallbackHandler {
  name = "irt-router-answer-witness";
  override awaitHandlers = true;
  answered = false;
  override handleLLMEnd(): void {
    this.answered = true;
  }
}

/**
 * Records on the decision that the routed model did not answer (another middleware's model did): its attempt becomes
 * a failed one, so `feedback()` credits no model for the step.
 */
export function markSubstituted(decision: RouteDecision, slotId: string): void {
  revokeAnswer(
    decision,
    slotId,
    "answered by another middleware's model (e.g. modelFallbackMiddleware inside irtRouterMiddleware), not credited",
  );
}

/**
 * Keep the agent's structured-output choice as it would be for the chosen model itself: a raw schema
 * becomes a provider (native) strategy when the model's profile says it supports structured output.
 * Needed because the model is passed wrapped (`withConfig`, for the trace metadata), which hides its
 * profile from the agent.
 */
export async function nativeIfSupported<T>(responseFormat: T, model: BaseChatModel): Promise<T> {
  if (responseFormat === undefined || responseFormat === null || Array.isArray(responseFormat)) return responseFormat;
  const read = profileOf(model);
  if (!("profile" in read) || read.profile.structuredOutput !== true) return responseFormat;
  // the agent that calls this step was made by langchain's createAgent: the module is loaded, the import is a lookup
  const { providerStrategy, ProviderStrategy, ToolStrategy } = await loadLangchain("irtRouterMiddleware");
  if (responseFormat instanceof ToolStrategy || responseFormat instanceof ProviderStrategy) return responseFormat;
  return providerStrategy(responseFormat as never) as unknown as T;
}

/**
 * The handler's response when it is one an agent step may give (an AIMessage, a LangGraph `Command`, or
 * `{ structuredResponse, messages }`), else a {@link ModelFaultError} (kind "reply") naming the model: a child that
 * returns null or a bare string is a fault of that child, so the step falls back to the next candidate, as on the
 * IrtRouter path (calls/attempt.ts, `checkReply`), instead of ending in LangChain's MiddlewareError.
 */
export function checkStepReply<T>(out: T, modelId: string): T {
  if (AIMessage.isInstance(out) || isCommandLike(out)) return out;
  if (typeof out === "object" && out !== null && "structuredResponse" in out && "messages" in out) return out;
  const shown =
    out === null || typeof out !== "object"
      ? (JSON.stringify(out) ?? String(out))
      : `an object with keys [${Object.keys(out).join(", ")}]`;
  throw new ModelFaultError(
    modelId,
    "reply",
    `model "${modelId}" returned ${shown} instead of a chat message; the step falls back to the next candidate.`,
  );
}

/** A LangGraph `Command` (as its `isCommand` tells one, without importing @langchain/langgraph). */
function isCommandLike(x: unknown): boolean {
  if (typeof x !== "object" || x === null) return false;
  const proto = Object.getPrototypeOf(x);
  return proto !== Object.prototype && proto !== null && (x as { lg_name?: unknown }).lg_name === "Command";
}

/** The AIMessage inside whatever the handler returned (a message, or `{ structuredResponse, messages }`). */
export function aiMessageOf(response: unknown): AIMessage | undefined {
  if (AIMessage.isInstance(response)) return response;
  const messages = (response as { messages?: unknown })?.messages;
  if (Array.isArray(messages)) {
    for (const m of messages) if (isBaseMessage(m) && AIMessage.isInstance(m)) return m;
  }
  return undefined;
}

/**
 * The decision behind each model message the middleware returned a copy of, by the model's own message: when the
 * agent retries a structured output (tool strategy), the message it puts in state is the original, carried by its
 * own Command, not the copy.
 */
const DECIDED = new WeakMap<BaseMessage, RouteDecision>();

/**
 * The handler's response with the decision on a copy of its AIMessage (see {@link withDecision}), in the same shape.
 * A message without an id is given one first, as LangGraph's message reducer would give it in state: when the agent
 * retries a structured output it puts the original in state next to the copy, and one id keeps them one message.
 */
export function responseWithDecision<R>(response: R, decision: RouteDecision): R {
  const message = aiMessageOf(response);
  if (!message) return response;
  if (message.id === undefined || message.id === null) message._updateId(randomUUID());
  const copy = withDecision(message, decision);
  DECIDED.set(message, copy.response_metadata.irtRouter as RouteDecision);
  if (message === response) return copy as R;
  const { messages } = response as { messages: BaseMessage[] };
  return { ...response, messages: messages.map((m) => (m === message ? copy : m)) };
}

/** The latest decision found on the run's messages that the route log does not have yet, if any. */
export function unloggedDecision(state: {
  messages: BaseMessage[];
  irtRouterRoutes?: RouteDecision[];
}): RouteDecision | undefined {
  const logged = new Set((state.irtRouterRoutes ?? []).map((d) => d.decisionId));
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const m = state.messages[i]!;
    const decision = AIMessage.isInstance(m)
      ? ((m.response_metadata?.irtRouter as RouteDecision | undefined) ?? DECIDED.get(m))
      : undefined;
    if (decision && !logged.has(decision.decisionId)) return decision;
  }
  return undefined;
}
