/** The decision of a run-level route: each candidate's p and run cost, the chosen model and why. */

/** One model as a run-level decision saw it. */
export interface RunCandidate {
  readonly modelId: string;
  /** Predicted chance that a run of this model passes the task (after the outcomes already seen on it). */
  readonly p: number;
  /** USD of one run. */
  readonly expectedCost: number;
  /** Run cost over the reference model's (the model rated most able). */
  readonly costRatio: number;
}

/** A run-level decision and why it was made. */
export interface RunDecision {
  /** The model to run the task with. */
  readonly chosen: string;
  /** The policy in short form, e.g. `run(costWeight=0.3, attemptsLeft=3)`. */
  readonly policy: string;
  /** Why this model, in one sentence. */
  readonly reason: string;
  /** Every allowed model, most likely to pass first. */
  readonly candidates: readonly RunCandidate[];
  /** The task's estimated difficulty (logits) after what is known of it. */
  readonly difficulty: { readonly mean: number; readonly sd: number };
  /** Models left out: excluded by the caller, and (without `allowRetry`) those already failed on the task. */
  readonly excluded: readonly string[];
  /**
   * Expected successes minus `costWeight` x cost ratio of the plan that starts with the chosen model (over
   * `attemptsLeft` runs); an escalation stops when another run is worth no more than 0.
   */
  readonly value: number;
}

/**
 * Why the model of `row` was chosen, in one sentence: the best p minus weighted cost (a single choice), the start of
 * the best plan (`attemptsLeft` > 1), or, when no model fits the budget (`fits` false), the cheapest.
 */
export function decisionReason(
  row: RunCandidate,
  fits: boolean,
  s: { readonly attemptsLeft: number; readonly costWeight: number; readonly outcomes: number },
): string {
  const { modelId: chosen, p, costRatio } = row;
  const why = !fits
    ? `no model fits the remaining budget; ${chosen} is the cheapest`
    : s.attemptsLeft > 1
      ? `${chosen} (p=${p.toFixed(3)}, ${(costRatio * 100).toFixed(0)}% of the reference cost) starts the plan of up to ${s.attemptsLeft} runs with the highest expected success minus ${s.costWeight} x cost`
      : `${chosen} has the highest p - ${s.costWeight} x cost ratio (p=${p.toFixed(3)}, cost ratio ${costRatio.toFixed(3)})`;
  return s.outcomes > 0 ? `${why}, after ${s.outcomes} outcome(s) on this task` : why;
}
