/**
 * Planning one routed call: which registered models can serve it, each one's p of answering it (the scorer's, or the
 * learner's posterior) and expected cost, ranked by the policy into the order in which to try them. Every plan is
 * logged for feedback.
 */
import { randomUUID } from "node:crypto";
import type { RouteMessage } from "../contracts/route-message.js";
import type { AbilityLearner, RoutingTextOptions } from "../contracts/options.js";
import type { Candidate, PolicyConfig, RankedCandidate } from "../../policy/types.js";
import { rankCandidates } from "../../policy/rank.js";
import { stepCostUsd } from "../../policy/expected-cost.js";
import type { ItemParams } from "../../scorer/types.js";
import { sigmoid } from "../../util/maths.js";
import type { EscalationRecord, RouteDecision, ExclusionRecord } from "../contracts/route-decision.js";
import type { DecisionLog, LoggedDecision } from "./decision-log.js";
import { NoCandidatesError } from "../../errors.js";
import { routingText } from "./routing-text.js";
import { rankEscalated, visibleFailure, type EscalationSettings } from "./step-escalation.js";
import { promptShape, promptTokens, type PromptShape, type RunMemory } from "./run-memory.js";
import type { ScoringContext, ScoringContextLoader } from "./scoring-context.js";
import type { SharedBudget } from "./run-spend.js";
import { exclusionReason, type CallNeeds, type ModelSlot } from "./model-slots.js";
import type { OnceWarnings } from "../contracts/warnings.js";
import { SpendHold } from "./spend-hold.js";

import type { RoutePlan } from "./route-plan.js";

/** The exclusion reason of a registered model its learner removed (see {@link RoutePlanner.plan}). */
export const REMOVED_FROM_LEARNER = "removed from the learner (removeModel)";

/** What a planner works with: the router's models, policy, scoring context, learner and decision log. */
export interface PlannerParts {
  readonly slots: readonly ModelSlot[];
  readonly policy: PolicyConfig;
  readonly policyName: string;
  readonly maxAttempts: number;
  readonly log: DecisionLog;
  /** The online learner whose posterior gives p, when there is one (read at each plan: it may start later). */
  readonly learner: () => AbilityLearner | undefined;
  readonly scoring: ScoringContextLoader;
  readonly textOptions: RoutingTextOptions;
  readonly warnings: OnceWarnings;
  /** What the router remembers of each run (prompt caches, the last answered call). */
  readonly memory: RunMemory;
  /** Whether expected costs bill cached input at the cached-input price (option `cacheAware`). */
  readonly cacheAware: boolean;
  /** Task hint of every call without its own (option `task`). */
  readonly task?: string;
  /** Escalation after a visible failure (option `escalation`); off when undefined. */
  readonly escalation?: EscalationSettings;
  /** Shadow mode (option `shadow`): the key of the model that serves every call, whatever the router chooses. */
  readonly shadow?: string;
  /** The budget policy's spend shared across processes (router option `store` with a shared store). */
  readonly budget?: SharedBudget;
  /** Holds the spend of a learning router at the scorer's (option `holdSpend`); off when undefined. */
  readonly hold?: SpendHold;
}

/** Plans routed calls (see {@link RoutePlanner.plan}). */
export class RoutePlanner {
  constructor(private readonly parts: PlannerParts) {}

  /**
   * Decide which models to try for one call. Throws NO_CANDIDATES when no model can serve it. `runId` names the
   * run the call belongs to (feedback by run, and the budget policy's spend).
   */
  async plan(
    messages: readonly RouteMessage[],
    call: CallNeeds & { runId?: string; task?: string; serve?: string },
  ): Promise<RoutePlan> {
    const { slots, policy, log } = this.parts;
    const shape = promptShape(messages);
    const inputTokens = promptTokens(shape);
    const eligible: ModelSlot[] = [];
    const excluded: ExclusionRecord[] = [];
    for (const slot of slots) {
      const reason = exclusionReason(slot, call, inputTokens);
      if (reason === undefined) eligible.push(slot);
      else excluded.push({ id: slot.id, reason });
    }
    if (eligible.length === 0) throw new NoCandidatesError(excluded);
    if (policy.kind === "budget" && call.runId === undefined) this.warnBudgetWithoutRun();

    const ctx = await this.parts.scoring.load();
    this.excludeRemoved(eligible, excluded, ctx);
    if (eligible.length === 0) throw new NoCandidatesError(excluded);
    const text = routingText(messages, this.parts.textOptions) || "(no text)";
    const { item, cacheHit, encodeMs, scoreMs: itemMs } = await this.parts.scoring.score(ctx, text);
    const t2 = performance.now();
    // Again after the awaits above: a model removed from the learner while this query was scored is left out here,
    // with no await between this check and learnerScores' addModel (which refuses a removed id).
    this.excludeRemoved(eligible, excluded, ctx);
    if (eligible.length === 0) throw new NoCandidatesError(excluded);
    const task = call.task ?? this.parts.task;
    const learned = this.learnerScores(task !== undefined ? { ...item, task } : item, eligible, ctx);
    const { memory, cacheAware } = this.parts;
    const cachedTokens = new Map(eligible.map((slot) => [slot.id, memory.cachedTokens(call.runId, slot.id, shape)]));
    const predicted: Record<string, number> = {};
    const candidates = eligible.map((slot, i) => {
      const p = learned ? learned[i]!.score : scorerP(item, ctx.theta.get(slot.id)!);
      predicted[slot.id] = learned ? learned[i]!.p : p;
      const price = ctx.prices.get(slot.id);
      const cached = cacheAware ? cachedTokens.get(slot.id)! : 0;
      const outputTokens = slot.outputTokens.estimate;
      const expectedCost = price
        ? stepCostUsd({ contextTokens: inputTokens, cachedTokens: cached, outputTokens, price })
        : 0;
      return { id: slot.id, p, expectedCost };
    });
    const hold = learned && this.parts.hold && SpendHold.applies(policy) ? this.parts.hold : undefined;
    const { ranked, escalated } = await this.rank(messages, shape, candidates, call.runId, excluded, hold);
    if (hold && !escalated && eligible.every((slot) => measuredAbility(ctx, slot.id)))
      this.holdSpend(hold, item, ctx, eligible, candidates, ranked, call.runId);
    const scoreMs = itemMs + (performance.now() - t2);

    const decision: RouteDecision = {
      decisionId: randomUUID(),
      ...(call.runId !== undefined ? { runId: call.runId } : {}),
      chosen: ranked[0]!.id,
      policy: this.parts.policyName,
      candidates: ranked.map((r) => ({
        id: r.id,
        p: r.p,
        expectedCost: r.expectedCost,
        utility: r.utility,
        ...(cacheAware ? { cachedTokens: cachedTokens.get(r.id)! } : {}),
        ...priorRecord(ctx, r.id),
      })),
      excluded,
      encodeMs,
      scoreMs,
      cacheHit,
      inputTokens,
      attempts: [],
      ...(task !== undefined ? { task } : {}),
      ...(escalated ? { escalated } : {}),
    };
    const order = this.order(ranked, eligible, decision, call.serve);
    const logged: LoggedDecision = {
      decision,
      alpha: item.alpha,
      beta: item.beta,
      catalogIds: ctx.catalogIds,
      predicted,
      feedbackGiven: false,
    };
    log.add(logged);
    return { decision, order, logged, shape, cachedTokens };
  }

  /**
   * Option `holdSpend`: the choice the same policy makes on the scorer's p (the router without learning) at the user's
   * lambda gives the cap of this call (its expected cost plus the hold's credit); when the learned choice is dearer
   * than the cap, the best-ranked model within it moves to the front (the scorer's choice is always within it). Then
   * the learned choice's expected cost (lambda's scale follows it) and the chosen one's (the credit follows it) are
   * recorded beside the scorer's choice's.
   */
  private holdSpend(
    hold: SpendHold,
    item: ItemParams,
    ctx: ScoringContext,
    eligible: readonly ModelSlot[],
    candidates: readonly Candidate[],
    ranked: RankedCandidate[],
    runId: string | undefined,
  ): void {
    const scorerChoice = rankCandidates(
      this.parts.policy,
      candidates.map((c, i) => ({ ...c, p: scorerP(item, ctx.theta.get(eligible[i]!.id)!) })),
      { spentUsd: this.parts.log.spent(runId) },
    )[0]!;
    const learnedCost = ranked[0]!.expectedCost;
    const within = ranked.findIndex((r) => hold.allows(r.expectedCost, scorerChoice.expectedCost));
    if (within > 0) ranked.unshift(...ranked.splice(within, 1));
    hold.record(learnedCost, scorerChoice.expectedCost, ranked[0]!.expectedCost);
  }

  /**
   * Ranks the candidates with the policy; with escalation on and a visible failure of this step, the failed models
   * are passed over (moved to `excluded`) and the stronger bar applies (see {@link rankEscalated}).
   */
  private async rank(
    messages: readonly RouteMessage[],
    shape: PromptShape,
    candidates: readonly Candidate[],
    runId: string | undefined,
    excluded: ExclusionRecord[],
    hold?: SpendHold,
  ): Promise<{ ranked: RankedCandidate[]; escalated?: EscalationRecord }> {
    const { log, escalation, memory, budget } = this.parts;
    const policy = hold ? hold.policy(this.parts.policy) : this.parts.policy;
    const failure = escalation ? visibleFailure(messages, shape, memory.lastServed(runId)) : undefined;
    // A budget shared across processes ranks with the run's shared spend (an escalated step: with this process's own).
    if (!failure && budget) return { ranked: await budget.rank(policy, candidates, runId) };
    const ctx = { spentUsd: log.spent(runId) };
    if (!failure) return { ranked: rankCandidates(policy, candidates, ctx) };
    const { ranked, record } = rankEscalated(policy, candidates, ctx, failure, escalation!);
    const why = failure.reason === "tool-error" ? "its tool call failed" : "the agent sent the step again";
    for (const id of record.passedOver)
      excluded.push({ id, reason: `failed this step (${why}): passed over by escalation` });
    return { ranked, escalated: record };
  }

  /**
   * The models to try, best first, at most `maxAttempts`. In shadow mode (option `shadow`), or for a call that names
   * the model to serve (`serve`, e.g. a run whose state lives at one provider), that model alone, and the decision
   * keeps the router's own choice as `shadow.chosen`.
   */
  private order(
    ranked: readonly RankedCandidate[],
    eligible: readonly ModelSlot[],
    decision: RouteDecision,
    pinned?: string,
  ) {
    const serve = pinned ?? this.parts.shadow;
    if (serve !== undefined) {
      Object.assign(decision, { chosen: serve, shadow: { chosen: decision.chosen } });
      return [this.parts.slots.find((s) => s.id === serve)!];
    }
    const bySlot = new Map(eligible.map((s) => [s.id, s]));
    return ranked.slice(0, this.parts.maxAttempts).map((r) => bySlot.get(r.id)!);
  }

  private warnBudgetWithoutRun(): void {
    this.parts.warnings.warn(
      "budget:no-run-id",
      `irt-router: the ${this.parts.policyName} policy got a call with no run id, so its spend counts toward one budget ` +
        `shared by every call without a run id, for as long as the router lives. Name each run: ` +
        `metadata: { irtRouterRunId: "<id>" } in the call's config (for a createAgent run: ` +
        `agent.invoke(input, { metadata: { irtRouterRunId } })), ` +
        `or route the agent with irtRouterMiddleware, which gives each run its own id.`,
    );
  }

  /**
   * Moves the models the learner removed (`removeModel`, also as recorded by a restored snapshot) from `eligible` to
   * `excluded`: a removed id cannot be added back (`addModel` throws), so it is left out like a model that cannot
   * serve the call, and the others are routed as usual.
   */
  private excludeRemoved(eligible: ModelSlot[], excluded: ExclusionRecord[], ctx: ScoringContext): void {
    const learner = this.parts.learner();
    if (typeof learner?.isRemoved !== "function") return;
    const kept = eligible.filter((slot) => {
      const id = ctx.catalogIds[slot.id] ?? slot.id;
      if (learner.has(id) || !learner.isRemoved!(id)) return true;
      excluded.push({ id: slot.id, reason: REMOVED_FROM_LEARNER });
      return false;
    });
    eligible.splice(0, eligible.length, ...kept);
  }

  /**
   * With a learner: each eligible model's exploration score (its predictive p when exploration is off) and its
   * predictive p, by catalog id; models the learner has not seen are added at their catalog start (`ctx.starts`: the
   * catalog or family and price-tier prior with its uncertainty), else at its new-model prior (a model it removed is no
   * longer eligible, see {@link RoutePlanner.excludeRemoved}). Undefined without a learner.
   */
  private learnerScores(
    item: ItemParams & { readonly task?: string },
    eligible: readonly ModelSlot[],
    ctx: ScoringContext,
  ): { score: number; p: number }[] | undefined {
    const learner = this.parts.learner();
    if (!learner) return undefined;
    const ids = eligible.map((slot) => ctx.catalogIds[slot.id] ?? slot.id);
    for (const id of ids) if (!learner.has(id)) learner.addModel(id, ctx.starts.get(id));
    return learner.score(item, ids).map((s) => ({ score: s.score, p: s.p }));
  }
}

/** The decision's record of where a model's ability came from (absent for the scorer's own rows). */
function priorRecord(ctx: ScoringContext, id: string): { prior?: { method: string; source: string } } {
  const prior = ctx.priors.get(id);
  return prior ? { prior: { method: prior.method, source: prior.source } } : {};
}

/**
 * Whether the router without learning knows the model's ability from measurements: a row of the scorer, or a catalog
 * prior from published or Terminal-Bench scores. A model placed by a rule (family and price tier, or the population
 * average) is not: the scorer's p of it says nothing, so the spend the scorer's p would buy is no reference
 * (option `holdSpend` leaves such calls out).
 */
function measuredAbility(ctx: ScoringContext, id: string): boolean {
  const method = ctx.priors.get(id)?.method;
  return method === undefined || method === "published" || method === "terminal-bench";
}

/** The scorer's p that a model of ability `theta` answers an item: sigmoid(alpha . theta - beta). */
function scorerP(item: ItemParams, theta: Float32Array): number {
  let z = -item.beta;
  for (let k = 0; k < theta.length; k++) z += item.alpha[k]! * theta[k]!;
  return sigmoid(z);
}
