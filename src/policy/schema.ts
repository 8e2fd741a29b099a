import { z } from "zod";
import { parseWith } from "../util/validate.js";
import type { PolicyConfig } from "./types.js";

const costAware = z
  .strictObject({
    kind: z.literal("cost-aware"),
    /** USD^-1: how many units of p one dollar of expected cost is worth. */
    lambda: z.number().finite().nonnegative().optional(),
    /** What one correct answer is worth to you, in USD (lambda = 1 / value). */
    valuePerSuccessUsd: z.number().finite().positive().optional(),
    /**
     * Steps of the agent run still to come after this one, whose success the run also needs (default 0: each step
     * valued on its own). A step's p is weighed by the best candidate's p to this power.
     */
    stepsAhead: z.number().finite().nonnegative().max(1000).optional(),
  })
  .superRefine((v, ctx) => {
    const n = Number(v.lambda !== undefined) + Number(v.valuePerSuccessUsd !== undefined);
    if (n !== 1) {
      ctx.addIssue({
        code: "custom",
        path: [v.lambda === undefined ? "lambda" : "valuePerSuccessUsd"],
        message:
          n === 0
            ? "a cost-aware policy needs lambda (>= 0, per USD) or valuePerSuccessUsd (> 0)"
            : "give either lambda or valuePerSuccessUsd, not both",
      });
    }
  })
  .transform((v): PolicyConfig => {
    const ahead = v.stepsAhead !== undefined ? { stepsAhead: v.stepsAhead } : {};
    return v.lambda !== undefined
      ? { kind: "cost-aware", lambda: v.lambda, ...ahead }
      : { kind: "cost-aware", valuePerSuccessUsd: v.valuePerSuccessUsd!, ...ahead };
  });

/**
 * Zod schema of a routing policy (`policy: { kind, ... }`), discriminated on `kind`. Unknown keys are
 * rejected so that a misspelt setting (`lamda`) is an error instead of being silently ignored.
 * Its output is a {@link PolicyConfig}.
 */
export const policySchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("quality") }),
  costAware,
  z.strictObject({ kind: z.literal("cheapest-above"), tau: z.number().min(0).max(1) }),
  z.strictObject({
    kind: z.literal("budget"),
    maxUsdPerRun: z.number().finite().positive(),
    pressure: z.number().finite().positive().optional(),
  }),
]);

/**
 * Validate a policy configuration. Throws a {@link ValidationError} naming the bad field
 * (e.g. `policy.tau: Too big: expected number to be <=1`).
 *
 * @example
 * ```ts
 * const policy = parsePolicy({ kind: "cost-aware", lambda: 20 });
 * parsePolicy({ kind: "cheapest-above", tau: 1.5 }); // throws ValidationError, path "policy.tau"
 * ```
 */
export function parsePolicy(value: unknown, what = "policy"): PolicyConfig {
  return parseWith(policySchema, value, what) as PolicyConfig;
}

/** lambda (1/USD) of a cost-aware policy, whichever way it was given. */
export function costWeight(policy: Extract<PolicyConfig, { kind: "cost-aware" }>): number {
  return "lambda" in policy ? policy.lambda : 1 / policy.valuePerSuccessUsd;
}

/**
 * A short human-readable form of a policy.
 *
 * @example
 * ```ts
 * describePolicy({ kind: "cost-aware", lambda: 20 }); // "cost-aware(lambda=20)"
 * ```
 */
export function describePolicy(policy: PolicyConfig): string {
  switch (policy.kind) {
    case "quality":
      return "quality";
    case "cost-aware":
      return `cost-aware(${"lambda" in policy ? `lambda=${fmt(policy.lambda)}` : `valuePerSuccessUsd=${fmt(policy.valuePerSuccessUsd)}`}${
        policy.stepsAhead ? `, stepsAhead=${fmt(policy.stepsAhead)}` : ""
      })`;
    case "cheapest-above":
      return `cheapest-above(tau=${fmt(policy.tau)})`;
    case "budget":
      return `budget(maxUsdPerRun=${fmt(policy.maxUsdPerRun)}${policy.pressure === undefined ? "" : `, pressure=${fmt(policy.pressure)}`})`;
  }
}

function fmt(x: number): string {
  return Number(x.toPrecision(4)).toString();
}
