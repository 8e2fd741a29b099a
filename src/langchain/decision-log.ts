import type { RouteDecision } from "./decision.js";

/** A decision plus what feedback needs: the query's item parameters and the answering model's catalog id. */
export interface LoggedDecision {
  readonly decision: RouteDecision;
  readonly alpha: Float32Array;
  readonly beta: number;
  /** Catalog id of each registered key that was tried (the key itself for an unknown model). */
  readonly catalogIds: Readonly<Record<string, string>>;
  /** Whether an outcome was recorded (or is being recorded) for it: a decision takes one. */
  feedbackGiven: boolean;
  /** One of its tool calls returned an error (a ToolMessage with status "error" later in the conversation). */
  toolError?: boolean;
}

/**
 * Recent decisions by id and by run, and each run's spend so far (for the budget policy).
 * Bounded: when full, the oldest decision is forgotten.
 */
export class DecisionLog {
  private readonly byId = new Map<string, LoggedDecision>();
  private readonly runs = new Map<string, Set<string>>();
  private readonly spend = new Map<string, number>();

  constructor(readonly capacity: number) {}

  add(entry: LoggedDecision): void {
    const { decisionId, runId } = entry.decision;
    this.byId.set(decisionId, entry);
    if (runId !== undefined) {
      let ids = this.runs.get(runId);
      if (!ids) this.runs.set(runId, (ids = new Set()));
      ids.add(decisionId);
    }
    while (this.byId.size > this.capacity) this.remove(this.byId.keys().next().value as string);
  }

  /** Forgets a decision (a run left without decisions is forgotten with its spend). */
  remove(decisionId: string): void {
    const run = this.byId.get(decisionId)?.decision.runId;
    if (!this.byId.delete(decisionId) || run === undefined) return;
    const ids = this.runs.get(run);
    ids?.delete(decisionId);
    if (ids && ids.size === 0) {
      this.runs.delete(run);
      this.spend.delete(run);
    }
  }

  get(decisionId: string): LoggedDecision | undefined {
    return this.byId.get(decisionId);
  }

  /** Every logged decision of a run, oldest first. */
  ofRun(runId: string): LoggedDecision[] {
    return [...(this.runs.get(runId) ?? [])].map((id) => this.byId.get(id)!).filter(Boolean);
  }

  /** The most recent decisions, oldest first. */
  recent(limit = Infinity): RouteDecision[] {
    const all = [...this.byId.values()].map((e) => e.decision);
    return all.slice(Math.max(0, all.length - limit));
  }

  /** USD spent so far by a run (calls without a run id share the key ""). */
  spent(runId: string | undefined): number {
    return this.spend.get(runId ?? "") ?? 0;
  }

  addSpend(runId: string | undefined, usd: number): void {
    if (!(usd > 0)) return;
    const key = runId ?? "";
    this.spend.set(key, this.spent(runId) + usd);
  }
}
