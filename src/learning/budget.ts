/**
 * The feedback-budget ledger of the store contract: a source's feedback weight per sliding window, reserved
 * atomically (check and charge in one step) before its events are stored and given back when they are not, so
 * concurrent outcomes from one source can never together exceed its budget. {@link MemoryBudgetLedger} is the one
 * process implementation (MemoryStore, FileStore, a router without a store); RedisStore keeps one in Redis for all
 * the processes of a prefix.
 */

/** A source's budget: at most `weight` of event weight per `windowMs`. */
export interface BudgetLimit {
  readonly weight: number;
  readonly windowMs: number;
}

/** What {@link FeedbackBudgetLedger.reserve} answers. */
export interface BudgetReservation {
  /** Whether the weight was charged. */
  readonly ok: boolean;
  /** Weight the source has in the window: before this reservation when refused, including it when accepted. */
  readonly used: number;
  /** When refused: milliseconds until the oldest charge leaves the window. */
  readonly retryAfterMs: number;
  /** When accepted: what {@link FeedbackBudgetLedger.release} takes to give the charge back. */
  readonly token?: string;
}

/**
 * A feedback budget that several concurrent callers (and, for a shared store, several processes) charge atomically.
 *
 * @example
 * ```ts
 * const ledger = new MemoryBudgetLedger();
 * const r = await ledger.reserve("caller-1", 1, { weight: 50, windowMs: 3_600_000 }, Date.now());
 * if (r.ok) { try { await store.append(events); } catch (e) { await ledger.release("caller-1", r.token!); throw e; } }
 * ```
 */
export interface FeedbackBudgetLedger {
  /**
   * In one atomic step: when the source's weight in the window `(now - windowMs, now]` plus `weight` stays within
   * `limit.weight`, charges `weight` at `now` and answers `ok`; otherwise charges nothing.
   */
  reserve(source: string, weight: number, limit: BudgetLimit, now: number): Promise<BudgetReservation>;
  /** Gives back an accepted reservation (its events were not stored). Unknown tokens are ignored. */
  release(source: string, token: string): Promise<void>;
}

/** Sources remembered (least recently used forgotten first). */
const MAX_SOURCES = 10_000;
/** Tolerance of the budget comparison (sums of fractional weights). */
export const BUDGET_EPSILON = 1e-9;

/**
 * A {@link FeedbackBudgetLedger} in this process's memory: `reserve` checks and charges synchronously (before it
 * returns its promise), so no interleaving of concurrent calls can overspend. Forgotten when the process ends.
 *
 * @example
 * ```ts
 * const ledger = new MemoryBudgetLedger();
 * const results = await Promise.all(Array.from({ length: 60 }, () => ledger.reserve("s", 1, { weight: 50, windowMs: 1000 }, 0)));
 * results.filter((r) => r.ok).length; // 50
 * ```
 */
export class MemoryBudgetLedger implements FeedbackBudgetLedger {
  private readonly charges = new Map<string, { at: number; weight: number; token: string }[]>();
  private next = 0;

  reserve(source: string, weight: number, limit: BudgetLimit, now: number): Promise<BudgetReservation> {
    return Promise.resolve(this.reserveNow(source, weight, limit, now));
  }

  /** The synchronous form of {@link MemoryBudgetLedger.reserve}. */
  reserveNow(source: string, weight: number, limit: BudgetLimit, now: number): BudgetReservation {
    const live = (this.charges.get(source) ?? []).filter((c) => c.at > now - limit.windowMs);
    const used = live.reduce((s, c) => s + c.weight, 0);
    if (used + weight > limit.weight + BUDGET_EPSILON) {
      const retryAfterMs = live.length > 0 ? Math.max(0, live[0]!.at + limit.windowMs - now) : limit.windowMs;
      this.charges.set(source, live);
      return { ok: false, used, retryAfterMs };
    }
    const token = String(++this.next);
    live.push({ at: now, weight, token });
    this.charges.delete(source);
    this.charges.set(source, live);
    if (this.charges.size > MAX_SOURCES) this.charges.delete(this.charges.keys().next().value!);
    return { ok: true, used: used + weight, retryAfterMs: 0, token };
  }

  release(source: string, token: string): Promise<void> {
    const live = this.charges.get(source);
    if (live) {
      const i = live.findIndex((c) => c.token === token);
      if (i >= 0) live.splice(i, 1);
    }
    return Promise.resolve();
  }
}
