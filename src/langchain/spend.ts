/**
 * What a finished call cost, for the budget policy's per-run spend, and the observed output length that teaches each
 * model's expected output tokens.
 */
import { expectedCostUsd } from "../policy/expected-cost.js";
import type { DecisionLog } from "./decision-log.js";
import type { RoutePlan } from "./planner.js";
import type { ScoringContextLoader } from "./scoring-context.js";
import type { ModelSlot } from "./slots.js";

/** Token usage as a chat model reports it (`usage_metadata`). */
export type CallUsage = { input_tokens?: number; output_tokens?: number };

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
    const price = slot?.price ?? this.scoring.loaded?.prices.get(slotId);
    let usd = candidate?.expectedCost ?? 0;
    if (this.learnOutputTokens && slot && usage?.output_tokens !== undefined) slot.outputTokens.observe(usage.output_tokens);
    if (price && usage && Number.isFinite(usage.input_tokens) && Number.isFinite(usage.output_tokens)) {
      usd = expectedCostUsd({ inputTokens: usage.input_tokens!, expectedOutputTokens: usage.output_tokens!, price });
    }
    this.log.addSpend(plan.decision.runId, usd);
  }
}
