import { describe, expect, it } from "vitest";
import { rankCandidates, budgetLambda } from "../../src/policy/rank.js";
import { ValidationError } from "../../src/errors.js";
import { thrownBy } from "../errors.js";
import type { Candidate } from "../../src/policy/types.js";

const gpt4: Candidate = { id: "gpt-4", p: 0.9, expectedCost: 0.005 };
const mixtral: Candidate = { id: "mixtral", p: 0.8, expectedCost: 0.0003 };
const mistral: Candidate = { id: "mistral-7b", p: 0.6, expectedCost: 0.0001 };
const claude: Candidate = { id: "claude-v1", p: 0.75, expectedCost: 0.004 };
const all = [mistral, gpt4, claude, mixtral];
const ids = (r: { id: string }[]) => r.map((c) => c.id);

describe("rankCandidates: quality", () => {
  it("orders by p, highest first, with utility = p", () => {
    const r = rankCandidates({ kind: "quality" }, all);
    expect(ids(r)).toEqual(["gpt-4", "mixtral", "claude-v1", "mistral-7b"]);
    expect(r.map((c) => c.utility)).toEqual([0.9, 0.8, 0.75, 0.6]);
  });

  it("breaks ties by lower cost, then by id", () => {
    const r = rankCandidates({ kind: "quality" }, [
      { id: "b", p: 0.7, expectedCost: 0.002 },
      { id: "c", p: 0.7, expectedCost: 0.001 },
      { id: "a", p: 0.7, expectedCost: 0.002 },
    ]);
    expect(ids(r)).toEqual(["c", "a", "b"]);
  });

  it("is independent of input order and does not mutate the input", () => {
    const input = [...all];
    const a = ids(rankCandidates({ kind: "quality" }, input));
    const b = ids(rankCandidates({ kind: "quality" }, [...all].reverse()));
    expect(a).toEqual(b);
    expect(input).toEqual(all);
  });

  it("returns an empty list for no candidates", () => {
    expect(rankCandidates({ kind: "quality" }, [])).toEqual([]);
  });
});

describe("rankCandidates: cost-aware", () => {
  it("lambda 0 is the quality ranking", () => {
    expect(ids(rankCandidates({ kind: "cost-aware", lambda: 0 }, all))).toEqual(
      ids(rankCandidates({ kind: "quality" }, all)),
    );
  });

  it("maximises p - lambda * cost", () => {
    const r = rankCandidates({ kind: "cost-aware", lambda: 100 }, all);
    // utilities: gpt-4 0.4, mixtral 0.77, claude 0.35, mistral 0.59
    expect(ids(r)).toEqual(["mixtral", "mistral-7b", "gpt-4", "claude-v1"]);
    expect(r[0]!.utility).toBeCloseTo(0.77, 12);
  });

  it("a small lambda keeps the strong expensive model first", () => {
    expect(rankCandidates({ kind: "cost-aware", lambda: 10 }, all)[0]!.id).toBe("gpt-4");
  });

  it("valuePerSuccessUsd v is lambda = 1 / v", () => {
    const byValue = rankCandidates({ kind: "cost-aware", valuePerSuccessUsd: 0.01 }, all);
    const byLambda = rankCandidates({ kind: "cost-aware", lambda: 100 }, all);
    expect(ids(byValue)).toEqual(ids(byLambda));
    byValue.forEach((c, i) => expect(c.utility).toBeCloseTo(byLambda[i]!.utility, 12));
  });

  it("a huge lambda picks the cheapest", () => {
    expect(rankCandidates({ kind: "cost-aware", lambda: 1e9 }, all)[0]!.id).toBe("mistral-7b");
  });

  it("ties on utility go to the higher p", () => {
    const r = rankCandidates({ kind: "cost-aware", lambda: 100 }, [
      { id: "cheap", p: 0.5, expectedCost: 0 },
      { id: "dear", p: 0.6, expectedCost: 0.001 },
    ]);
    expect(r[0]!.utility).toBeCloseTo(r[1]!.utility, 12);
    expect(r[0]!.id).toBe("dear");
  });
});

describe("rankCandidates: cost-aware with stepsAhead", () => {
  const strong = (p: number): Candidate => ({ id: "strong", p, expectedCost: 0.01 });
  const cheap = (p: number): Candidate => ({ id: "cheap", p, expectedCost: 0.001 });

  it("weighs p by the best p to the power stepsAhead", () => {
    const r = rankCandidates({ kind: "cost-aware", lambda: 2, stepsAhead: 3 }, [strong(0.9), cheap(0.8)]);
    expect(r[0]!.utility).toBeCloseTo(0.9 * 0.9 ** 3 - 2 * 0.01, 12);
    expect(r.find((c) => c.id === "cheap")!.utility).toBeCloseTo(0.8 * 0.9 ** 3 - 2 * 0.001, 12);
  });

  it("spends on a step of a run that will likely pass, saves on one that will likely fail", () => {
    const policy = { kind: "cost-aware" as const, lambda: 3, stepsAhead: 6 };
    // Same p gap and prices: an easy step (best p 0.97) keeps the strong model, a hard one (0.65) takes the cheap one.
    expect(rankCandidates(policy, [strong(0.97), cheap(0.93)])[0]!.id).toBe("strong");
    expect(rankCandidates(policy, [strong(0.65), cheap(0.61)])[0]!.id).toBe("cheap");
    // Without stepsAhead both steps are valued alike.
    const plain = { kind: "cost-aware" as const, lambda: 3 };
    expect(rankCandidates(plain, [strong(0.97), cheap(0.93)])[0]!.id).toBe("strong");
    expect(rankCandidates(plain, [strong(0.65), cheap(0.61)])[0]!.id).toBe("strong");
  });

  it("stepsAhead 0 is the plain cost-aware ranking; a negative one is a ValidationError", () => {
    const r0 = rankCandidates({ kind: "cost-aware", lambda: 5, stepsAhead: 0 }, all);
    expect(r0).toEqual(rankCandidates({ kind: "cost-aware", lambda: 5 }, all));
    expect(() => rankCandidates({ kind: "cost-aware", lambda: 5, stepsAhead: -1 }, all)).toThrow(ValidationError);
  });
});

describe("rankCandidates: cheapest-above", () => {
  it("takes the cheapest candidate with p >= tau", () => {
    const r = rankCandidates({ kind: "cheapest-above", tau: 0.7 }, all);
    expect(ids(r)).toEqual(["mixtral", "claude-v1", "gpt-4", "mistral-7b"]);
  });

  it("counts p exactly equal to tau as above", () => {
    expect(rankCandidates({ kind: "cheapest-above", tau: 0.8 }, all)[0]!.id).toBe("mixtral");
  });

  it("falls back to the best p when no candidate reaches tau", () => {
    const r = rankCandidates({ kind: "cheapest-above", tau: 0.95 }, all);
    expect(ids(r)).toEqual(["gpt-4", "mixtral", "claude-v1", "mistral-7b"]);
  });

  it("tau 0 is the cheapest overall; ranks above-tau candidates over all others", () => {
    expect(rankCandidates({ kind: "cheapest-above", tau: 0 }, all)[0]!.id).toBe("mistral-7b");
    const r = rankCandidates({ kind: "cheapest-above", tau: 0.7 }, all);
    const above = r.filter((c) => c.p >= 0.7);
    expect(Math.min(...above.map((c) => c.utility))).toBeGreaterThan(
      Math.max(...r.filter((c) => c.p < 0.7).map((c) => c.utility)),
    );
  });

  it("with every cost zero, ranks the above-tau candidates by p", () => {
    const r = rankCandidates({ kind: "cheapest-above", tau: 0.5 }, [
      { id: "a", p: 0.6, expectedCost: 0 },
      { id: "b", p: 0.9, expectedCost: 0 },
    ]);
    expect(ids(r)).toEqual(["b", "a"]);
  });
});

describe("rankCandidates: budget", () => {
  const policy = { kind: "budget", maxUsdPerRun: 0.01 } as const;

  it("at the start of a run behaves like cost-aware with lambda = 1 / cap", () => {
    const r = rankCandidates(policy, all);
    const costAware = rankCandidates({ kind: "cost-aware", lambda: 100 }, all);
    expect(ids(r)).toEqual(ids(costAware));
    r.forEach((c, i) => expect(c.utility).toBeCloseTo(costAware[i]!.utility, 9));
    expect(budgetLambda(policy)).toBeCloseTo(100, 9);
  });

  it("lambda rises as the spend nears the cap, moving to cheaper models", () => {
    const loose = { kind: "budget", maxUsdPerRun: 1 } as const;
    expect(rankCandidates(loose, all, { spentUsd: 0 })[0]!.id).toBe("gpt-4");
    expect(rankCandidates(loose, all, { spentUsd: 0.99 })[0]!.id).toBe("mixtral");
    expect(budgetLambda(loose, 0.99)).toBeGreaterThan(budgetLambda(loose, 0.5));
  });

  it("never puts a candidate over the remaining budget ahead of one that fits", () => {
    // remaining 0.0035: gpt-4 and claude are over it; the p-heavy pressure would otherwise keep gpt-4 first
    const r = rankCandidates({ kind: "budget", maxUsdPerRun: 0.01, pressure: 1e-9 }, all, { spentUsd: 0.0065 });
    expect(ids(r).slice(0, 2)).toEqual(["mixtral", "mistral-7b"]);
    expect(r.slice(2).every((c) => c.overBudget === true)).toBe(true);
    expect(ids(r.slice(2))).toEqual(["claude-v1", "gpt-4"]); // cheapest first
    expect(r.slice(0, 2).every((c) => c.overBudget === undefined)).toBe(true);
  });

  it("when every candidate is over budget, the cheapest comes first", () => {
    const r = rankCandidates(policy, all, { spentUsd: 0.01 });
    expect(ids(r)).toEqual(["mistral-7b", "mixtral", "claude-v1", "gpt-4"]);
    expect(r.every((c) => c.overBudget)).toBe(true);
    expect(r.every((c) => Number.isFinite(c.utility))).toBe(true);
  });

  it("a spend beyond the cap is allowed (it happens: recorded cost > estimate)", () => {
    expect(rankCandidates(policy, all, { spentUsd: 5 })[0]!.id).toBe("mistral-7b");
  });

  it("a free candidate still fits once the budget is used up", () => {
    const r = rankCandidates(policy, [...all, { id: "free", p: 0.1, expectedCost: 0 }], { spentUsd: 0.01 });
    expect(r[0]!.id).toBe("free");
    expect(r[0]!.overBudget).toBeUndefined();
  });

  it("a free candidate fits even when the run is already over its cap", () => {
    // recorded costs can exceed their estimates, so spentUsd > maxUsdPerRun happens
    const r = rankCandidates(policy, [...all, { id: "free", p: 0.1, expectedCost: 0 }], { spentUsd: 0.0125 });
    expect(r[0]!.id).toBe("free");
    expect(r[0]!.overBudget).toBeUndefined();
    expect(r.slice(1).every((c) => c.overBudget === true)).toBe(true);
  });

  it("a call costing exactly the budget left fits, although cap - spent rounds below it", () => {
    const cap = { kind: "budget", maxUsdPerRun: 0.3 } as const;
    expect(0.3 - 0.2 < 0.1).toBe(true); // the rounding this guards against
    const r = rankCandidates(
      cap,
      [
        { id: "exact", p: 0.9, expectedCost: 0.1 },
        { id: "over", p: 0.95, expectedCost: 0.1000001 },
      ],
      { spentUsd: 0.2 },
    );
    expect(r.map((c) => [c.id, c.overBudget ?? false])).toEqual([
      ["exact", false],
      ["over", true],
    ]);
  });

  it("rejects a negative or NaN spend", () => {
    expect(() => rankCandidates(policy, all, { spentUsd: -1 })).toThrow(ValidationError);
    expect(() => rankCandidates(policy, all, { spentUsd: NaN })).toThrow(/ctx.spentUsd/);
  });
});

describe("rankCandidates: bad candidates", () => {
  const bad: [string, Candidate[], RegExp][] = [
    ["NaN p", [{ id: "a", p: NaN, expectedCost: 0 }], /candidates\.0\.p/],
    ["p above 1", [{ id: "a", p: 1.2, expectedCost: 0 }], /candidates\.0\.p/],
    ["negative cost", [mixtral, { id: "a", p: 0.5, expectedCost: -0.001 }], /candidates\.1\.expectedCost/],
    ["infinite cost", [{ id: "a", p: 0.5, expectedCost: Infinity }], /expectedCost/],
    ["empty id", [{ id: "", p: 0.5, expectedCost: 0 }], /candidates\.0\.id/],
    ["duplicate id", [mixtral, mixtral], /appears twice/],
  ];
  for (const [name, candidates, message] of bad) {
    it(`throws a ValidationError for ${name}`, () => {
      for (const kind of ["quality", "cost-aware"] as const) {
        const policy = kind === "quality" ? { kind } : { kind, lambda: 1 };
        const error = thrownBy(ValidationError, () => rankCandidates(policy, candidates));
        expect(error.message).toMatch(message);
        expect(error.code).toBe("INVALID_ARGUMENT");
      }
    });
  }
});

describe("rankCandidates: bad policy", () => {
  // A PolicyConfig built by hand (not through parsePolicy) is validated too: before, a NaN cap ranked
  // every candidate out (empty list, reported as NO_CANDIDATES), an unknown kind returned undefined,
  // and a negative lambda silently preferred the expensive models.
  const bad: [string, unknown, string][] = [
    ["NaN budget cap", { kind: "budget", maxUsdPerRun: NaN }, "policy.maxUsdPerRun"],
    ["zero budget cap", { kind: "budget", maxUsdPerRun: 0 }, "policy.maxUsdPerRun"],
    ["negative pressure", { kind: "budget", maxUsdPerRun: 1, pressure: -1 }, "policy.pressure"],
    ["negative lambda", { kind: "cost-aware", lambda: -5 }, "policy.lambda"],
    ["NaN lambda", { kind: "cost-aware", lambda: NaN }, "policy.lambda"],
    ["tau above 1", { kind: "cheapest-above", tau: 1.5 }, "policy.tau"],
    ["unknown kind", { kind: "cheapest" }, "policy.kind"],
    ["misspelt key", { kind: "cost-aware", lamda: 1 }, "policy.lamda"],
  ];
  for (const [name, policy, path] of bad) {
    it(`throws a ValidationError at ${path} for ${name}`, () => {
      const error = thrownBy(ValidationError, () => rankCandidates(policy as never, all, { spentUsd: 0 }));
      expect(error.path).toBe(path);
      expect(error.code).toBe("INVALID_ARGUMENT");
    });
  }

  it("still ranks a valuePerSuccessUsd policy given by hand", () => {
    expect(ids(rankCandidates({ kind: "cost-aware", valuePerSuccessUsd: 0.01 }, all))).toEqual(
      ids(rankCandidates({ kind: "cost-aware", lambda: 100 }, all)),
    );
  });
});
