/**
 * What a finished call cost, for the budget policy's per-run spend, and the observed output length that teaches each
 * model's expected output tokens.
 */
import { stepCostUsd } from "../policy/expected-cost.js";
import type { DecisionLog } from "./decision-log.js";
import type { RoutePlan } from "./planner.js";
import type { ScoringContextLoader } from "./scoring-context.js";
import type { ModelSlot } from "./slots.js";

/** Token usage as a chat model reports it (`usage_metadata`). */
export type CallUsage = { input_tokens?: number; output_tokens?: number; input_token_details?: { cache_read?: number } };

/** Records each answered call's spend (usage tokens when reported, else the plan's estimate) in the decision log. */
export class SpendRecorder {
  constructor(
    private readonly slots: readonly ModelSlot[],
    private readonly log: DecisionLog,
    private readonly scoring: ScoringContextLoader,
    /** Whether observed usage updates each slot's expected output tokens (option `learnOutputTokens`). */
    private readonly learnOutputTokens: boolean,
  ) {}

  record(plan: RoutePlan, slotId: string, usage?: CallUsage): void {
    const candidate = plan.decision.candidates.find((c) => c.id === slotId);
    const slot = this.slots.find((s) => s.id === slotId);
    // Prices are resolved when the scoring context loads; a plan always runs after that.
    const price = this.scoring.loaded?.prices.get(slotId) ?? slot?.price;
    let usd = candidate?.expectedCost ?? 0;
    if (this.learnOutputTokens && slot && usage?.output_tokens !== undefined) slot.outputTokens.observe(usage.output_tokens);
    if (price && usage && Number.isFinite(usage.input_tokens) && Number.isFinite(usage.output_tokens)) {
      // Cached input as the provider reports it, else as the router tracks it for this run.
      const reported = usage.input_token_details?.cache_read;
      const cached = Number.isFinite(reported) ? reported! : (plan.cachedTokens.get(slotId) ?? 0);
      const cachedTokens = Math.min(Math.max(0, cached), usage.input_tokens!);
      usd = stepCostUsd({ contextTokens: usage.input_tokens!, cachedTokens, outputTokens: usage.output_tokens!, price });
    }
    this.log.addSpend(plan.decision.runId, usd);
  }
}
