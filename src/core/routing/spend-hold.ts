/**
 * Holding a learning router's spend at the scorer's (router option `holdSpend`, issue 36 item 5): with an online
 * learner and the cost-aware policy, the router computes, at every routed call, the choice the same policy makes on
 * the scorer's p alone (the router without learning) and its expected cost. Two parts keep the learned router's spend
 * at that router's:
 *
 * - a cap, by construction: a call may cost at most the scorer's choice's expected cost plus the credit (what the
 *   learned choices so far cost less than the scorer's), so that the learned choices' total expected cost never
 *   exceeds the scorer's choices' total on the same calls;
 * - a controller that scales lambda so that the two spends stay level over the calls, so that the cap seldom has to
 *   bind: learning then moves spend between calls (to where its p says a dollar buys most success) instead of
 *   changing how much the router spends at the lambda the user chose.
 */
import { costWeight } from "../../policy/schema.js";
import type { PolicyConfig } from "../../policy/types.js";

/** Step of log(scale) per call, per unit of the relative spend gap (c_learned - c_scorer) / mean c_scorer. */
export const HOLD_RATE = 0.05;
/** The scale stays in [1 / HOLD_MAX_SCALE, HOLD_MAX_SCALE]. */
export const HOLD_MAX_SCALE = 8;
/** Relative slack of the cap's comparison (rounding of sums of floating-point costs; 1e-9 of a call's cost). */
const CAP_SLACK = 1e-9;

/**
 * The spend hold of one router: the lambda scale (an integral controller on the log of the scale, driven by the gap
 * between the learned choice's expected cost and the scorer's choice's, relative to the scorer's mean expected cost
 * per call) and the cap with its credit (internal: the router option `holdSpend` is its public face). After
 * `record(0.02, 0.01)` (the learned choice was dearer) `policy({ kind: "cost-aware", lambda: 1 })` has a lambda above
 * 1; after `record(0.005, 0.01)` the credit is 0.005 and `allows(0.012, 0.008)` is true (0.012 <= 0.008 + 0.005).
 */
export class SpendHold {
  private logScale = 0;
  private costSum = 0;
  private spentSum = 0;
  private calls = 0;

  /** The factor lambda is multiplied by (1 before any call). */
  get scale(): number {
    return Math.exp(this.logScale);
  }

  /** What the learned choices so far cost less than the scorer's choices (USD, expected), never below 0. */
  get credit(): number {
    return Math.max(0, this.costSum - this.spentSum);
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
   * Whether a call may cost `cost` (USD, expected) when the scorer's choice costs `scorerCost`: at most that plus the
   * credit. The scorer's choice itself is always allowed, so there is always a choice within the cap.
   */
  allows(cost: number, scorerCost: number): boolean {
    const cap = scorerCost + this.credit;
    return cost <= cap + CAP_SLACK * Math.max(cap, Number.MIN_VALUE);
  }

  /**
   * Records one call: the expected cost (USD) of the learned choice (the policy's first choice on the learner's p,
   * before the cap), of the one the same policy chooses on the scorer's p, and of the model the router put first
   * (`chosenCost`, the learned choice or, when the cap bound, the best within it; default `learnedCost`). The lambda
   * scale follows the learned choice, so that a binding cap does not hide the gap it has to close; the credit follows
   * what was chosen. Non-finite or negative costs are ignored.
   */
  record(learnedCost: number, scorerCost: number, chosenCost: number = learnedCost): void {
    const usable = (c: number) => c >= 0 && Number.isFinite(c);
    if (!(usable(learnedCost) && usable(scorerCost) && usable(chosenCost))) return;
    this.costSum += scorerCost;
    this.spentSum += chosenCost;
    this.calls++;
    const mean = this.costSum / this.calls;
    if (!(mean > 0)) return;
    const bound = Math.log(HOLD_MAX_SCALE);
    this.logScale = Math.min(bound, Math.max(-bound, this.logScale + (HOLD_RATE * (learnedCost - scorerCost)) / mean));
  }
}
