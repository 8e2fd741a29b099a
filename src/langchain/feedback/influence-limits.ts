/**
 * Bounds on how much feedback can move the learner: a run's outcome carries a bounded total weight however many steps
 * the run has, and each source (the caller id given as `router.feedback(id, y, { source })`) has a budget of weight
 * per time window. Together with the learner's exploration they keep a burst of false outcomes from taking a model
 * out of routing (docs/langchain.md, "Bounded influence").
 */
import { FeedbackBudgetError } from "../../errors.js";
import type { FeedbackEvent } from "../../learning/events.js";
import type { FeedbackLimits } from "../contracts/options.js";

/** Sources remembered for the budget (least recently used forgotten first). */
const MAX_SOURCES = 10_000;

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

/** Per-source sliding-window budget of feedback weight (in memory: a restarted router starts every budget afresh). */
export class SourceBudget {
  private readonly spent = new Map<string, { at: number; weight: number }[]>();

  constructor(private readonly budget: FeedbackLimits["sourceBudget"]) {}

  /** Throws a {@link FeedbackBudgetError} when `weight` more from `source` at `now` would exceed the budget. */
  check(source: string, weight: number, now: number): void {
    if (this.budget === false) return;
    const { weight: limit, windowMs } = this.budget;
    const live = this.window(source, now);
    const used = live.reduce((s, x) => s + x.weight, 0);
    if (used + weight <= limit + 1e-9) return;
    const retryAfterMs = live.length > 0 ? Math.max(0, live[0]!.at + windowMs - now) : windowMs;
    throw new FeedbackBudgetError(
      `Feedback source "${source}" has given ${round(used)} of its budget of ${limit} event weight per ${windowMs} ms; this outcome ` +
        `(weight ${round(weight)}) was refused and nothing was stored. Retry after ${retryAfterMs} ms, or raise ` +
        `feedbackLimits.sourceBudget if this source is trusted.`,
      { path: "options.source", details: { source, used, weight, budget: limit, windowMs, retryAfterMs } },
    );
  }

  /** Records `weight` spent by `source` at `now` (after the events were stored). */
  spend(source: string, weight: number, now: number): void {
    if (this.budget === false) return;
    const live = this.window(source, now);
    live.push({ at: now, weight });
    this.spent.delete(source);
    this.spent.set(source, live);
    if (this.spent.size > MAX_SOURCES) this.spent.delete(this.spent.keys().next().value!);
  }

  private window(source: string, now: number): { at: number; weight: number }[] {
    const windowMs = this.budget === false ? 0 : this.budget.windowMs;
    return (this.spent.get(source) ?? []).filter((x) => x.at > now - windowMs);
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000;
