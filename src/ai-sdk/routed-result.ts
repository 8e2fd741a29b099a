/**
 * What feedback reads of a finished AI SDK call: the run id and decision ids its routed steps carry in their
 * `providerMetadata["irt-router"]`, from a `generateText` result, an `onFinish` event, or (once awaited) a
 * `streamText` result.
 */
import { ValidationError } from "../errors.js";
import { PROVIDER_KEY } from "./prompt-messages.js";

/** One step of a finished call, as feedback reads it. */
export interface RoutedStep {
  /** The step's provider metadata; a routed step's `"irt-router"` entry holds its `decisionId` and `runId`. */
  readonly providerMetadata?: Record<string, unknown>;
}

/** A finished `generateText` result or `onFinish` event, as far as feedback reads it. */
export interface RoutedResult {
  readonly steps?: readonly RoutedStep[];
  readonly providerMetadata?: Record<string, unknown>;
}

/** A `streamText` result, as far as feedback reads it: its steps and provider metadata settle when the stream ends. */
export interface StreamedRoutedResult {
  /** The call's steps, once the stream has ended. */
  readonly steps: PromiseLike<readonly RoutedStep[]>;
  /** The last step's provider metadata, once the stream has ended. */
  readonly providerMetadata: PromiseLike<Record<string, unknown> | undefined>;
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === "object" || typeof value === "function") &&
  value !== null &&
  typeof (value as { then?: unknown }).then === "function";

/**
 * `result` with its steps and provider metadata settled: a `streamText` result's are awaited (which reads its
 * stream to the end; a stream that failed rejects with its error), a `generateText` result is returned as is.
 */
export async function settledResult(result: RoutedResult | StreamedRoutedResult): Promise<RoutedResult> {
  const { steps, providerMetadata } = result as { steps?: unknown; providerMetadata?: unknown };
  if (!isThenable(steps) && !isThenable(providerMetadata)) return result as RoutedResult;
  const [settledSteps, settledMetadata] = await Promise.all([steps, providerMetadata]);
  return {
    ...(settledSteps !== undefined ? { steps: settledSteps as readonly RoutedStep[] } : {}),
    ...(settledMetadata !== undefined ? { providerMetadata: settledMetadata as Record<string, unknown> } : {}),
  };
}

/**
 * The run id and the decision ids of a finished call's routed steps (their `providerMetadata["irt-router"]`). A
 * `streamText` result's steps are a promise: pass `{ steps: await result.steps }`, or give the result to
 * `irtFeedback`, which awaits them; given the promise, this throws a ValidationError saying so.
 */
export function routedRunOf(result: RoutedResult): { runId?: string; decisionIds: string[] } {
  const steps: unknown = result.steps;
  if (isThenable(steps) || isThenable(result.providerMetadata)) {
    throw new ValidationError(
      `routedRunOf: result.steps is a promise (a streamText result, not finished as far as this function can see). ` +
        `Pass { steps: await result.steps, providerMetadata: await result.providerMetadata }, or give the result to irtFeedback, which awaits them.`,
      { path: "result.steps" },
    );
  }
  if (steps !== undefined && !Array.isArray(steps)) {
    throw new ValidationError(`routedRunOf: result.steps must be the call's array of steps.`, {
      path: "result.steps",
    });
  }
  const metas = [...(result.steps ?? []).map((s) => s.providerMetadata), result.providerMetadata]
    .map((m) => m?.[PROVIDER_KEY] as { runId?: unknown; decisionId?: unknown } | undefined)
    .filter((m) => m !== undefined);
  const runId = metas.map((m) => m.runId).find((r): r is string => typeof r === "string");
  const decisionIds = [...new Set(metas.map((m) => m.decisionId).filter((d): d is string => typeof d === "string"))];
  return { ...(runId !== undefined ? { runId } : {}), decisionIds };
}
