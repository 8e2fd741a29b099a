/**
 * One attempt of one child, as the router runs it: bounded in time whatever the child does with its signal, and
 * checked for what a chat model must give back (a message; usage that can be counted).
 */
import { isBaseMessage } from "@langchain/core/messages";
import { ModelFaultError } from "../../errors.js";
import type { CallUsage } from "../bridge/chat-engine.js";

/** Key of the call's `timeout` between `stream()` and `_streamIterator` (Runnable's config would turn it into a signal). */
export const ATTEMPT_TIMEOUT = Symbol("irt-router.attempt-timeout");

/** Milliseconds an attempt may take when neither the call nor the router gives a `timeout` (option `attemptTimeout`). */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 600_000;

/**
 * The time limit of one attempt and the caller's cancellation, enforced on the router's side: `signal` (handed to
 * the child) aborts when either comes, and {@link race} rejects at that moment even if the child never settles.
 * `dispose()` when the attempt is over (for a stream: when the stream is).
 */
export class AttemptBound {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly expired: Promise<never>;
  private timer?: ReturnType<typeof setTimeout>;
  private readonly onAbort?: () => void;

  constructor(
    modelId: string,
    ms: number,
    private readonly callerSignal?: AbortSignal,
  ) {
    let fail!: (reason: unknown) => void;
    this.expired = new Promise<never>((_, reject) => (fail = reject));
    this.expired.catch(() => undefined);
    const stop = (reason: unknown) => {
      this.dispose();
      this.controller.abort(reason);
      fail(reason);
    };
    this.signal = callerSignal ? AbortSignal.any([callerSignal, this.controller.signal]) : this.controller.signal;
    if (callerSignal?.aborted) {
      stop(callerSignal.reason);
      return;
    }
    this.onAbort = () => stop(callerSignal!.reason);
    callerSignal?.addEventListener("abort", this.onAbort, { once: true });
    this.timer = setTimeout(
      () =>
        stop(
          new ModelFaultError(
            modelId,
            "timeout",
            `model "${modelId}" gave no answer within ${ms} ms (the attempt's timeout); abandoned.`,
          ),
        ),
      ms,
    );
  }

  /** `work`, or the timeout / the caller's abort reason, whichever comes first. */
  race<T>(work: Promise<T>): Promise<T> {
    work.catch(() => undefined); // an abandoned attempt may still reject later
    return Promise.race([work, this.expired]);
  }

  dispose(): void {
    clearTimeout(this.timer);
    if (this.onAbort) this.callerSignal?.removeEventListener("abort", this.onAbort);
  }
}

/** The milliseconds an attempt may take: the call's `timeout`, else the router's `attemptTimeout`. */
export function attemptMs(timeout: number | undefined, routerDefault: number | undefined): number {
  return timeout !== undefined && timeout > 0 ? timeout : (routerDefault ?? DEFAULT_ATTEMPT_TIMEOUT_MS);
}

/** Throws a {@link ModelFaultError} when a child's reply is no chat message (a structured-output call may return any value). */
export function checkReply<T>(out: T, modelId: string, structured: boolean): T {
  if (structured || isBaseMessage(out)) return out;
  const shown =
    out === null || typeof out !== "object" ? String(out) : `an object with keys [${Object.keys(out).join(", ")}]`;
  throw new ModelFaultError(modelId, "reply", `model "${modelId}" returned ${shown} instead of a chat message.`);
}

/** True when every count present is a finite number >= 0. */
function countable(usage: CallUsage): boolean {
  return [usage.input_tokens, usage.output_tokens].every(
    (n) => n === undefined || (typeof n === "number" && Number.isFinite(n) && n >= 0),
  );
}

/**
 * The reply's `usage_metadata` when it can be counted, else undefined after one warning per model: a reply with
 * negative or non-numeric token counts is kept, and only its usage is ignored (spend falls back to the estimate).
 */
export function usableUsage(
  usage: unknown,
  modelId: string,
  warnOnce: (key: string, message: string) => void,
): CallUsage | undefined {
  if (usage === undefined || usage === null) return undefined;
  if (typeof usage === "object" && countable(usage as CallUsage)) return usage as CallUsage;
  warnOnce(
    `usage:${modelId}`,
    `irt-router: model "${modelId}" reported usage_metadata that cannot be counted (${JSON.stringify(usage)}); ` +
      "its reply is kept and the usage ignored (the cost estimate stands in). Fix the model's usage reporting.",
  );
  return undefined;
}

/** Token counts summed over a stream's chunks; `bad` once a chunk's usage could not be counted. */
export class StreamUsage {
  private readonly sum: CallUsage = {};
  private bad = false;

  add(chunk: unknown, modelId: string, warnOnce: (key: string, message: string) => void): void {
    const raw = (chunk as { usage_metadata?: unknown } | null | undefined)?.usage_metadata;
    if (raw === undefined || raw === null || this.bad) return;
    const u = usableUsage(raw, modelId, warnOnce);
    if (!u) {
      this.bad = true;
      return;
    }
    this.sum.input_tokens = (this.sum.input_tokens ?? 0) + (u.input_tokens ?? 0);
    this.sum.output_tokens = (this.sum.output_tokens ?? 0) + (u.output_tokens ?? 0);
    // cache reads and writes, as LangChain reports them (`input_token_details`), summed when a chunk has them
    for (const key of ["cache_read", "cache_creation"] as const) {
      const n = u.input_token_details?.[key];
      if (typeof n === "number" && Number.isFinite(n) && n >= 0)
        this.sum.input_token_details = {
          ...this.sum.input_token_details,
          [key]: (this.sum.input_token_details?.[key] ?? 0) + n,
        };
    }
  }

  get total(): CallUsage | undefined {
    return this.bad || this.sum.input_tokens === undefined ? undefined : this.sum;
  }
}
