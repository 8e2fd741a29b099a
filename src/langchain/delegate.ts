import type { RunnableConfig } from "@langchain/core/runnables";
import { snapshot, type RouteDecision } from "./decision.js";

/** Metadata key under which a call's run id is read (`config.metadata.irtRouterRunId`). */
export const RUN_ID_METADATA_KEY = "irtRouterRunId";

/** The run a call belongs to: `metadata.irtRouterRunId` when set, else the call's own `runId`. */
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

/** `Name: first line of message`, for the attempt record. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const status = (error as { status?: unknown }).status;
    return `${error.name}${typeof status === "number" ? ` (${status})` : ""}: ${error.message.split("\n")[0]}`;
  }
  return String(error);
}
