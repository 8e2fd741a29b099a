import { describe, expect, it } from "vitest";
import { parsePolicy, policySchema, costWeight, describePolicy } from "../../src/policy/schema.js";
import { ValidationError } from "../../src/errors.js";

function errorOf(value: unknown): ValidationError {
  try {
    parsePolicy(value);
  } catch (e) {
    if (e instanceof ValidationError) return e;
    throw e;
  }
  throw new Error("expected parsePolicy to throw");
}

describe("parsePolicy", () => {
  it("accepts every policy kind", () => {
    expect(parsePolicy({ kind: "quality" })).toEqual({ kind: "quality" });
    expect(parsePolicy({ kind: "cost-aware", lambda: 20 })).toEqual({ kind: "cost-aware", lambda: 20 });
    expect(parsePolicy({ kind: "cost-aware", valuePerSuccessUsd: 0.05 })).toEqual({
      kind: "cost-aware",
      valuePerSuccessUsd: 0.05,
    });
    expect(parsePolicy({ kind: "cheapest-above", tau: 0.7 })).toEqual({ kind: "cheapest-above", tau: 0.7 });
    expect(parsePolicy({ kind: "budget", maxUsdPerRun: 0.5 })).toEqual({ kind: "budget", maxUsdPerRun: 0.5 });
    expect(parsePolicy({ kind: "budget", maxUsdPerRun: 0.5, pressure: 2 })).toEqual({
      kind: "budget",
      maxUsdPerRun: 0.5,
      pressure: 2,
    });
  });

  it("names the bad field in the error path", () => {
    const cases: [unknown, string][] = [
      [{ kind: "cheapest-above", tau: 1.5 }, "policy.tau"],
      [{ kind: "cheapest-above" }, "policy.tau"],
      [{ kind: "cost-aware", lambda: -1 }, "policy.lambda"],
      [{ kind: "cost-aware", lambda: NaN }, "policy.lambda"],
      [{ kind: "cost-aware", valuePerSuccessUsd: 0 }, "policy.valuePerSuccessUsd"],
      [{ kind: "cost-aware" }, "policy.lambda"],
      [{ kind: "cost-aware", lambda: 1, valuePerSuccessUsd: 2 }, "policy.valuePerSuccessUsd"],
      [{ kind: "budget", maxUsdPerRun: 0 }, "policy.maxUsdPerRun"],
      [{ kind: "budget", maxUsdPerRun: 1, pressure: -1 }, "policy.pressure"],
      [{ kind: "best" }, "policy.kind"],
      [{}, "policy.kind"],
    ];
    for (const [value, path] of cases) {
      const error = errorOf(value);
      expect(error.path, JSON.stringify(value)).toBe(path);
      expect(error.code).toBe("INVALID_ARGUMENT");
    }
  });

  it("rejects unknown keys instead of ignoring them", () => {
    expect(errorOf({ kind: "cost-aware", lamda: 2 }).message).toMatch(/lamda/);
    expect(errorOf({ kind: "quality", tau: 0.5 }).message).toMatch(/tau/);
  });

  it("rejects non-objects", () => {
    expect(errorOf(null).path).toBe("policy");
    expect(errorOf("quality").path).toBe("policy");
  });

  it("uses the given name in paths", () => {
    expect(() => parsePolicy({ kind: "cheapest-above", tau: 2 }, "options.policy")).toThrow(/options\.policy\.tau/);
  });

  it("policySchema is usable directly", () => {
    expect(policySchema.safeParse({ kind: "quality" }).success).toBe(true);
    expect(policySchema.safeParse({ kind: "quality", x: 1 }).success).toBe(false);
  });
});

describe("costWeight and describePolicy", () => {
  it("turns valuePerSuccessUsd into lambda", () => {
    expect(costWeight({ kind: "cost-aware", lambda: 7 })).toBe(7);
    expect(costWeight({ kind: "cost-aware", valuePerSuccessUsd: 0.04 })).toBeCloseTo(25, 12);
  });

  it("prints settings", () => {
    expect(describePolicy({ kind: "cost-aware", lambda: 20 })).toBe("cost-aware(lambda=20)");
    expect(describePolicy({ kind: "cheapest-above", tau: 0.72 })).toBe("cheapest-above(tau=0.72)");
    expect(describePolicy({ kind: "budget", maxUsdPerRun: 0.75 })).toBe("budget(maxUsdPerRun=0.75)");
  });
});
