import type { RouteDecision } from "../contracts/route-decision.js";
import type { SharedDecision, SharedDecisionLog } from "../contracts/router-store.js";

/** A decision plus what feedback needs: the query's item parameters and the answering model's catalog id. */
export interface LoggedDecision {
  readonly decision: RouteDecision;
  readonly alpha: Float32Array;
  readonly beta: number;
  /** Catalog id of each registered key that was tried (the key itself for an unknown model). */
  readonly catalogIds: Readonly<Record<string, string>>;
  /**
   * Each candidate's predicted p(correct) by registered key: the learner's predictive p (not its exploration draw),
   * else the scorer's. Read by run attribution "posterior"; absent on decisions logged before it was kept.
   */
  readonly predicted?: Readonly<Record<string, number>>;
  /** Whether an outcome was recorded (or is being recorded) for it: a decision takes one. */
  feedbackGiven: boolean;
  /** One of its tool calls returned an error (a ToolMessage with status "error" later in the conversation). */
  toolError?: boolean;
}

/**
 * Recent decisions by id and by run, and each run's spend so far (for the budget policy).
 * Bounded: when full, the oldest decision is forgotten. With a `shared` log (a `RedisStore`'s, through the router's
 * `store` option), each answered decision is also published there, and feedback for a decision or run this process
 * does not hold (or holds only in part) reads it from there first: `feedback(runId)` then works on any process.
 */
export class DecisionLog {
  private readonly byId = new Map<string, LoggedDecision>();
  private readonly runs = new Map<string, Set<string>>();
  private readonly spend = new Map<string, number>();

  constructor(
    readonly capacity: number,
    readonly shared?: SharedDecisionLog,
  ) {}

  /** Publishes an answered decision to the shared log (what feedback needs: item parameters, catalog ids, attempts). */
  publish(entry: LoggedDecision): Promise<void> {
    if (!this.shared) return Promise.resolve();
    const { decision, alpha, beta, catalogIds, predicted } = entry;
    return this.shared.put({
      decision,
      alpha: Array.from(alpha),
      beta,
      catalogIds,
      ...(predicted !== undefined ? { predicted } : {}),
    });
  }

  /**
   * Adds what the shared log holds for a decision id, or else for a run id, that this log lacks (so a run routed
   * partly by other processes is credited whole). Nothing without a shared log.
   */
  async hydrate(idOrRunId: string): Promise<void> {
    if (!this.shared || this.byId.has(idOrRunId)) return;
    const single = await this.shared.get(idOrRunId);
    const found = single ? [single] : await this.shared.ofRun(idOrRunId);
    for (const s of found) if (!this.byId.has(s.decision.decisionId)) this.add(fromShared(s));
  }

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

function fromShared(s: SharedDecision): LoggedDecision {
  return {
    decision: s.decision,
    alpha: Float32Array.from(s.alpha),
    beta: s.beta,
    catalogIds: s.catalogIds,
    ...(s.predicted !== undefined ? { predicted: s.predicted } : {}),
    feedbackGiven: false,
  };
}
