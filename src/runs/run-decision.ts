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
  /** Models left out (already failed on the task, or excluded by the caller). */
  readonly excluded: readonly string[];
  /**
   * Expected successes minus `costWeight` x cost ratio of the plan that starts with the chosen model (over
   * `attemptsLeft` runs); an escalation stops when another run is worth no more than 0.
   */
  readonly value: number;
}
