/**
 * What a finished call cost, for the budget policy's per-run spend, and the observed output length that teaches each
 * model's expected output tokens. With a shared spend (a `RedisStore`'s, through the router's `store` option) the
 * budget policy ranks with the run's spend across every process ({@link SharedBudget}).
 */
import { stepCostUsd } from "../../policy/expected-cost.js";
import { rankCandidates } from "../../policy/rank.js";
import type { Candidate, PolicyConfig, RankedCandidate } from "../../policy/types.js";
import type { DecisionLog } from "./decision-log.js";
import type { RoutePlan } from "./route-plan.js";
import type { ScoringContextLoader } from "./scoring-context.js";
import type { SharedSpend } from "../contracts/router-store.js";
import type { ModelSlot } from "./model-slots.js";
import type { OnceWarnings } from "../contracts/warnings.js";
import type { RealizedCostRecord, TokenUsage } from "../contracts/route-decision.js";

/** Most re-rankings of one call when other processes keep changing the run's spend meanwhile. */
const MAX_RESERVE_TRIES = 8;

/**
 * The budget policy over a run spread across processes: a call ranks with the run's shared spend and reserves the
 * chosen model's expected cost atomically, only if the spend is still what it ranked with (else it re-ranks with the
 * new figure), so concurrent processes never both spend the same remaining budget. When the call is answered the
 * reservation is corrected to what it cost. A call that fails keeps its reservation (spend is over-counted, never
 * under). Redis unreachable or slow: ranks with this process's own figure (warned once).
 */
export class SharedBudget {
  /** Reservations not yet settled, per run, oldest first. */
  private readonly reserved = new Map<string, number[]>();
  /** Each run's spend as Redis last reported it (bounded: the oldest runs are forgotten). */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly shared: SharedSpend,
    private readonly log: DecisionLog,
    private readonly warnings: OnceWarnings,
  ) {}

  async rank(
    policy: PolicyConfig,
    candidates: readonly Candidate[],
    runId: string | undefined,
  ): Promise<RankedCandidate[]> {
    const key = runId ?? "";
    // First guess: the run's spend as last seen in Redis (0 for a run not seen yet), so the usual call takes one round
    // trip; a wrong guess makes the reservation fail and return the real figure.
    let spent = this.seen.get(key) ?? 0;
    try {
      for (let i = 0; ; i++) {
        const ranked = rankCandidates(policy, candidates, { spentUsd: spent });
        const cost = ranked[0]!.expectedCost;
        const r = await this.shared.reserve(key, spent, cost);
        this.remember(key, r.spent);
        if (r.ok || i + 1 >= MAX_RESERVE_TRIES) {
          if (r.ok) this.pending(key).push(cost);
          return r.ok ? ranked : rankCandidates(policy, candidates, { spentUsd: r.spent });
        }
        spent = r.spent;
      }
    } catch (error) {
      spent = this.log.spent(runId);
      this.unreachable(error);
      return rankCandidates(policy, candidates, { spentUsd: spent });
    }
  }

  /** Corrects the run's oldest reservation to what the answered call cost. */
  settle(runId: string | undefined, usd: number): void {
    const key = runId ?? "";
    const queue = this.reserved.get(key);
    const reservation = queue?.shift() ?? 0;
    if (queue?.length === 0) this.reserved.delete(key);
    const delta = usd - reservation;
    if (delta === 0) return;
    const seen = this.seen.get(key);
    if (seen !== undefined) this.seen.set(key, seen + delta); // what Redis holds once the correction lands
    this.shared.add(key, delta).catch((error: unknown) => this.unreachable(error));
  }

  private remember(key: string, spent: number): void {
    this.seen.delete(key);
    if (this.seen.size >= 10_000) this.seen.delete(this.seen.keys().next().value as string);
    this.seen.set(key, spent);
  }

  private pending(key: string): number[] {
    let queue = this.reserved.get(key);
    if (!queue) {
      // Bounded: runs whose calls all failed leave reservations that are never settled.
      if (this.reserved.size >= 10_000) this.reserved.delete(this.reserved.keys().next().value as string);
      this.reserved.set(key, (queue = []));
    }
    return queue;
  }

  private unreachable(error: unknown): void {
    this.warnings.warn(
      "shared-spend",
      `irt-router: the shared run spend is unreachable (${(error as Error)?.message ?? String(error)}); the budget policy ranks with ` +
        `this process's own spend until it answers again.`,
    );
  }
}

/** Records each answered call's spend (usage tokens when reported, else the plan's estimate) in the decision log. */
export class SpendRecorder {
  constructor(
    private readonly slots: readonly ModelSlot[],
    private readonly log: DecisionLog,
    private readonly scoring: ScoringContextLoader,
    /** Whether observed usage updates each slot's expected output tokens (option `learnOutputTokens`). */
    private readonly learnOutputTokens: boolean,
    /** The shared budget of a router whose store shares spend across processes (budget policy only). */
    private readonly budget?: SharedBudget,
  ) {}

  /**
   * Records what the answered call cost and returns it: from the reported usage when the model has a price (input
   * at the input price, cache reads at the cached-input price (else the router's own count of the run's cached
   * prefix), cache writes at the input price, as `ModelPrice` has no cache-write price; output at the output price),
   * else the plan's estimate.
   */
  record(plan: RoutePlan, slotId: string, usage?: TokenUsage): RealizedCostRecord {
    const candidate = plan.decision.candidates.find((c) => c.id === slotId);
    const slot = this.slots.find((s) => s.id === slotId);
    // Prices are resolved when the scoring context loads; a plan always runs after that.
    const price = this.scoring.loaded?.prices.get(slotId) ?? slot?.price;
    let usd = candidate?.expectedCost ?? 0;
    let source: RealizedCostRecord["source"] = "estimate";
    if (this.learnOutputTokens && slot && usage?.outputTokens !== undefined)
      slot.outputTokens.observe(usage.outputTokens);
    const reported = usage?.cacheReadTokens;
    const written = usage?.cacheWriteTokens;
    if (price && usage && Number.isFinite(usage.inputTokens) && Number.isFinite(usage.outputTokens)) {
      // Cached input as the provider reports it, else as the router tracks it for this run.
      const cached = Number.isFinite(reported) ? reported! : (plan.cachedTokens.get(slotId) ?? 0);
      const cachedTokens = Math.min(Math.max(0, cached), usage.inputTokens!);
      usd = stepCostUsd({
        contextTokens: usage.inputTokens!,
        cachedTokens,
        outputTokens: usage.outputTokens!,
        price,
      });
      source = "usage";
    }
    this.log.addSpend(plan.decision.runId, usd);
    this.budget?.settle(plan.decision.runId, usd);
    const count = (n: number | undefined) => (typeof n === "number" && Number.isFinite(n) ? n : undefined);
    const tokens = {
      inputTokens: count(usage?.inputTokens),
      outputTokens: count(usage?.outputTokens),
      cacheReadTokens: count(reported),
      cacheWriteTokens: count(written),
    };
    return {
      costUsd: usd,
      source,
      ...Object.fromEntries(Object.entries(tokens).filter(([, v]) => v !== undefined)),
    };
  }
}
