/**
 * Cancellation of an escalation by its `signal` (see {@link RunRouter.escalate}): the check before each attempt and
 * the race of a run or check in flight against the abort, so that a run that never settles cannot hold it.
 */

/** An escalation's view of its signal, from its start to its end ({@link watchAbort}). */
export interface AbortWatch {
  /** Throws the signal's reason if it has aborted. */
  throwIfAborted(): void;
  /**
   * Calls `step` unless the signal has aborted, and settles as its result does, or rejects with the signal's reason
   * as soon as it aborts, whichever comes first (the step's own later outcome is then ignored).
   */
  race<T>(step: () => T | Promise<T>): Promise<T>;
  /** Removes the listener from the signal: the escalation has ended (one signal may serve many escalations). */
  dispose(): void;
}

/** Watches `signal` (none: nothing is ever aborted) with one listener until {@link AbortWatch.dispose}. */
export function watchAbort(signal: AbortSignal | undefined): AbortWatch {
  if (!signal) return { throwIfAborted: () => undefined, race: async (step) => step(), dispose: () => undefined };
  // One promise per escalation, not per step: it rejects once, when the signal aborts, and every step races it.
  let reject!: (reason: unknown) => void;
  const aborted = new Promise<never>((_, r) => {
    reject = r;
  });
  const onAbort = () => reject(signal.reason);
  aborted.catch(() => undefined); // aborted with no step in flight (between attempts): not an unhandled rejection
  signal.addEventListener("abort", onAbort, { once: true });
  const throwIfAborted = () => {
    if (signal.aborted) throw signal.reason;
  };
  return {
    throwIfAborted,
    race: async (step) => {
      throwIfAborted();
      return Promise.race([step(), aborted]);
    },
    dispose: () => signal.removeEventListener("abort", onAbort),
  };
}
