/**
 * Bounds on how much feedback can move the learner: a run's outcome carries a bounded total weight however many steps
 * the run has, and each source (the caller id given as `router.feedback(id, y, { source })`) has a budget of weight
 * per time window. Together with the learner's exploration they keep a burst of false outcomes from taking a model
 * out of routing (docs/langchain.md, "Bounded influence").
 */
import { FeedbackBudgetError } from "../../errors.js";
import { MemoryBudgetLedger, type FeedbackBudgetLedger } from "../../learning/budget.js";
import type { FeedbackEvent } from "../../learning/events.js";
import type { FeedbackLimits } from "../contracts/options.js";

/**
 * The events with their weights scaled by one factor so that they sum to at most `max` (unchanged when they already
 * do): the attribution mode's shape (every step equal, the last only, discounted) is kept, its total bounded.
 * For example, ten events of weight 1 bounded to 3 come back with weight 0.3 each. `capacity` (default: their total)
 * is the largest total the run could have given whatever its outcome: the factor is `max / capacity` when that is
 * below 1, so a run's successes and failures are scaled alike (attribution "posterior" gives a failed run less
 * total weight than a successful one of the same length; scaling each by its own total would overweight failures).
 */
export function boundRunWeight(events: readonly FeedbackEvent[], max: number, capacity?: number): FeedbackEvent[] {
  const total = events.reduce((s, e) => s + (e.weight ?? 1), 0);
  const scale = Math.max(total, capacity ?? total);
  if (scale <= max) return [...events];
  const factor = max / scale;
  return events.map((e) => ({ ...e, weight: (e.weight ?? 1) * factor }));
}

/**
 * Per-source sliding-window budget of feedback weight, charged on a {@link FeedbackBudgetLedger}: the store's when it
 * keeps one (shared by its processes), else this router's own in memory (a restarted router starts every budget afresh).
 */
export class SourceBudget {
  constructor(
    private readonly budget: FeedbackLimits["sourceBudget"],
    private readonly ledger: FeedbackBudgetLedger = new MemoryBudgetLedger(),
  ) {}

  /**
   * Reserves `weight` for `source` at `now` in one atomic step, before the events are stored; returns how to give it
   * back when they are not. Throws a {@link FeedbackBudgetError} when it would exceed the budget.
   */
  async reserve(source: string, weight: number, now: number): Promise<() => Promise<void>> {
    if (this.budget === false) return async () => undefined;
    const { weight: limit, windowMs } = this.budget;
    const r = await this.ledger.reserve(source, weight, this.budget, now);
    if (r.ok) return () => this.ledger.release(source, r.token!);
    const { used, retryAfterMs } = r;
    throw new FeedbackBudgetError(
      `Feedback source "${source}" has given ${round(used)} of its budget of ${limit} event weight per ${windowMs} ms; this outcome ` +
        `(weight ${round(weight)}) was refused and nothing was stored. Retry after ${retryAfterMs} ms, or raise ` +
        `feedbackLimits.sourceBudget if this source is trusted.`,
      { path: "options.source", details: { source, used, weight, budget: limit, windowMs, retryAfterMs } },
    );
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000;
