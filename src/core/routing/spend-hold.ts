/**
 * Holding a learning router's spend at the scorer's (router option `holdSpend`, issue 36 item 5): with an online
 * learner and the cost-aware policy, the router compares, at every routed call, the expected cost of its choice with
 * the expected cost of the choice the same policy makes on the scorer's p alone, and scales lambda so that the two
 * spends stay level over the calls. Learning then moves spend between calls (to where its p says a dollar buys most
 * success) instead of changing how much the router spends at the lambda the user chose.
 */
import { costWeight } from "../../policy/schema.js";
import type { PolicyConfig } from "../../policy/types.js";

/** Step of log(scale) per call, per unit of the relative spend gap (c_learned - c_scorer) / mean c_scorer. */
export const HOLD_RATE = 0.05;
/** The scale stays in [1 / HOLD_MAX_SCALE, HOLD_MAX_SCALE]. */
export const HOLD_MAX_SCALE = 8;

/**
 * The lambda scale of one router: an integral controller on the log of the scale, driven by the gap between the
 * learned choice's expected cost and the scorer's choice's, relative to the scorer's mean expected cost per call
 * (internal: the router option `holdSpend` is its public face). After `record(0.02, 0.01)` (the learned choice was
 * dearer) `policy({ kind: "cost-aware", lambda: 1 })` has a lambda above 1.
 */
export class SpendHold {
  private logScale = 0;
  private costSum = 0;
  private calls = 0;

  /** The factor lambda is multiplied by (1 before any call). */
  get scale(): number {
    return Math.exp(this.logScale);
  }

  /** Whether the policy is one whose spend can be held (cost-aware: a lambda to scale). */
  static applies(policy: PolicyConfig): boolean {
    return policy.kind === "cost-aware";
  }

  /** The policy with its lambda scaled (a policy other than cost-aware is returned unchanged). */
  policy(policy: PolicyConfig): PolicyConfig {
    if (policy.kind !== "cost-aware" || this.logScale === 0) return policy;
    const ahead = policy.stepsAhead !== undefined ? { stepsAhead: policy.stepsAhead } : {};
    return { kind: "cost-aware", lambda: costWeight(policy) * this.scale, ...ahead };
  }

  /**
   * Records one call: the expected cost (USD) of the model the router chose and of the one the same policy chooses
   * on the scorer's p. Non-finite or negative costs are ignored.
   */
  record(learnedCost: number, scorerCost: number): void {
    if (!(learnedCost >= 0 && scorerCost >= 0 && Number.isFinite(learnedCost) && Number.isFinite(scorerCost))) return;
    this.costSum += scorerCost;
    this.calls++;
    const mean = this.costSum / this.calls;
    if (!(mean > 0)) return;
    const bound = Math.log(HOLD_MAX_SCALE);
    this.logScale = Math.min(bound, Math.max(-bound, this.logScale + (HOLD_RATE * (learnedCost - scorerCost)) / mean));
  }
}
