/** How the router trades quality against price. Validated with zod in `src/policy/schema.ts`. */
export type PolicyConfig =
  /** Highest p(correct). */
  | { readonly kind: "quality" }
  /**
   * Maximise p - lambda * expectedCostUsd. `valuePerSuccessUsd` v is the same with lambda = 1 / v. With `stepsAhead` k
   * (an agent run's steps still to come after this one, whose success the run also needs), a step's p is weighed by
   * the chance that the rest of the run succeeds, estimated as the best candidate's p to the power k:
   * p * max(p)^k - lambda * expectedCostUsd.
   */
  | { readonly kind: "cost-aware"; readonly lambda: number; readonly stepsAhead?: number }
  | { readonly kind: "cost-aware"; readonly valuePerSuccessUsd: number; readonly stepsAhead?: number }
  /** Cheapest candidate with p >= tau; if none reaches tau, the highest p. */
  | { readonly kind: "cheapest-above"; readonly tau: number }
  /**
   * Cheaper models as the run's spend nears the cap; never over it while a cheaper candidate exists.
   * Utility p - lambda * cost with lambda = pressure / remainingUsd (`pressure` defaults to 1):
   * a call that would use up the whole remaining budget costs `pressure` units of p.
   */
  | { readonly kind: "budget"; readonly maxUsdPerRun: number; readonly pressure?: number };

/** One model the policy may pick, with what the router knows before the call. */
export interface Candidate {
  readonly id: string;
  /** Predicted p(correct). */
  readonly p: number;
  /** Expected USD cost of this call, estimated before the call (token estimate x list price). */
  readonly expectedCost: number;
}

export interface RankedCandidate extends Candidate {
  /**
   * The policy's utility for this candidate (higher is better); what the ranking sorts by.
   * Exception: the budget policy always places candidates over the remaining budget after those
   * that fit (see `overBudget`), whatever their utility.
   */
  readonly utility: number;
  /** Budget policy only: true when this call's expected cost exceeds the run's remaining budget. */
  readonly overBudget?: boolean;
}

/** Per-run context a policy may use (the budget policy needs the run's spend so far). */
export interface PolicyContext {
  /** USD spent so far in this run (default 0). */
  readonly spentUsd?: number;
}
