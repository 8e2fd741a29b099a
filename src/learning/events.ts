/** Longest accepted task label (an event's `task`, a call's task hint). */
export const MAX_TASK_LENGTH = 200;

/**
 * A feedback event: one observed outcome of one model on one query, with the item parameters
 * the scorer computed for that query at decision time. Events are what the online learner
 * consumes and what stores persist; `id` makes a replayed event apply once.
 */
export interface FeedbackEvent {
  /** Unique id (e.g. `${decisionId}:${attempt}` or a UUID). A second event with the same id is a no-op. */
  readonly id: string;
  /** Catalog id of the model that answered (or the user's id for an unknown model). */
  readonly model: string;
  /** alpha_q at decision time (length d). Stored as plain numbers so events serialise as JSON. */
  readonly alpha: readonly number[];
  /** beta_q at decision time. */
  readonly beta: number;
  /** Outcome in [0, 1] (true = 1, false = 0, graded values allowed). */
  readonly y: number;
  /** Credit weight in (0, 1] from run-level attribution (default 1). */
  readonly weight?: number;
  /** Router decision that produced the call, when known. */
  readonly decisionId?: string;
  /** Agent run the decision belonged to, when known. */
  readonly runId?: string;
  /**
   * Who gave the outcome: the caller id passed as `router.feedback(id, y, { source })` (default: the run id, else the
   * decision id). The router's per-source feedback budget counts weight by it.
   */
  readonly source?: string;
  /** Epoch milliseconds at which the outcome was observed. */
  readonly at: number;
  /**
   * Task hint of the call (`metadata.irtRouterTask`, or the router's `task` option), at most 200 characters: the
   * learner learns a per-(model, task) offset from it (src/learning/task-offsets.ts).
   */
  readonly task?: string;
}
