import type { RunnableConfig } from "@langchain/core/runnables";
import { isBaseMessage, type BaseMessage } from "@langchain/core/messages";
import { snapshot, type RouteDecision } from "../../core/contracts/route-decision.js";

/** Metadata key under which a call's run id is read (`config.metadata.irtRouterRunId`). */
export const RUN_ID_METADATA_KEY = "irtRouterRunId";

/**
 * The run a call belongs to: `metadata.irtRouterRunId` when set, else the call's own `runId`. Metadata is what
 * reaches a call made inside an agent or a chain: LangGraph keeps the `runId` given to `agent.invoke` for the
 * graph's own run and hands its steps none (nor an `executionInfo.runId`, as of @langchain/langgraph 1.7).
 */
export function runIdOf(config: Partial<RunnableConfig> | undefined): string | undefined {
  const fromMetadata = config?.metadata?.[RUN_ID_METADATA_KEY];
  if (typeof fromMetadata === "string" && fromMetadata.length > 0) return fromMetadata;
  return typeof config?.runId === "string" ? config.runId : undefined;
}

/**
 * The config handed to the chosen child: every call option unchanged (callbacks, signal, stop,
 * timeout, tags, metadata, runName, configurable, tool options), plus the decision in
 * `metadata.irtRouter` and the tags `irt-router` and `irt-router:<model>`, so the child's run in a
 * trace shows the choice. A fallback attempt drops `runId` so that two runs never share one id.
 */
export function childConfig<C extends Partial<RunnableConfig>>(
  config: C | undefined,
  decision: RouteDecision,
  modelId: string,
  attempt: number,
): C {
  const out = { ...(config ?? {}) } as C & Partial<RunnableConfig>;
  out.metadata = { ...(config?.metadata ?? {}), irtRouter: snapshot(decision) };
  out.tags = [...(config?.tags ?? []), "irt-router", `irt-router:${modelId}`];
  if (attempt > 0) delete out.runId;
  return out as C;
}

/**
 * A copy of the message (same class, same fields) whose `response_metadata.irtRouter` is the decision. The
 * child's own message is left as it was: a model with a cache hands the same object out again, and the child's
 * run and the cache entry must not carry the router's decision.
 */
export function withDecision<M extends BaseMessage>(message: M, decision: RouteDecision): M {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(message) as object) as M, message);
  copy.lc_kwargs = { ...message.lc_kwargs };
  copy.response_metadata = { ...message.response_metadata, irtRouter: snapshot(decision) };
  return copy;
}

/**
 * The output with the decision attached (see {@link withDecision}): a message, or the `raw` message of
 * `withStructuredOutput(schema, { includeRaw: true })`. A parsed structured output has no message and is returned as it is.
 */
export function attachDecision<T>(output: T, decision: RouteDecision): T {
  if (isBaseMessage(output)) return withDecision(output, decision) as T;
  const raw = (output as { raw?: unknown } | null | undefined)?.raw;
  if (isBaseMessage(raw)) return { ...output, raw: withDecision(raw, decision) };
  return output;
}

/**
 * True when a failure is the caller's cancellation: the call's own `signal` has aborted. Such a call
 * is never retried on another model. Any other failure, including a child's timeout (which providers
 * and LangChain also report as an abort of their internal signal), may fall back.
 */
export function isAbort(_error: unknown, signal?: AbortSignal): boolean {
  return signal?.aborted === true;
}

/**
 * True when a failure is the reason of an `AbortController.abort()` with no reason of its own: a
 * `DOMException` named "AbortError". The agent middleware cannot see a signal given to
 * `createAgent({ signal })` (the agent merges it only around the innermost model call, and a
 * middleware's `runtime.signal` is the `invoke` config's), but the agent rejects the call with that
 * signal's reason, which is this error. A timeout's reason (`AbortSignal.timeout`) is a "TimeoutError",
 * and a provider's own abort errors are plain `Error`s, so those may still fall back.
 */
export function isAbortReason(error: unknown): boolean {
  return typeof DOMException !== "undefined" && error instanceof DOMException && error.name === "AbortError";
}
