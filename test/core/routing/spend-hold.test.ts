import { describe, expect, it } from "vitest";
import { RouterCore } from "../../../src/core/router-core.js";
import { HOLD_MAX_SCALE, SpendHold } from "../../../src/core/routing/spend-hold.js";
import type { AbilityLearner } from "../../../src/core/contracts/options.js";
import type { PolicyConfig } from "../../../src/policy/types.js";
import { ValidationError } from "../../../src/errors.js";
import { ToyScorer, quietLogger } from "../../langchain/helpers.js";

describe("SpendHold", () => {
  it("raises lambda while the learned choices cost more than the scorer's, lowers it while they cost less", () => {
    const policy: PolicyConfig = { kind: "cost-aware", lambda: 2, stepsAhead: 3 };
    const up = new SpendHold();
    expect(up.policy(policy)).toEqual(policy);
    up.record(0.02, 0.01);
    expect(up.scale).toBeGreaterThan(1);
    const scaled = up.policy(policy) as { lambda: number; stepsAhead?: number };
    expect(scaled.lambda).toBeCloseTo(2 * up.scale, 12);
    expect(scaled.stepsAhead).toBe(3);
    const down = new SpendHold();
    down.record(0.005, 0.01);
    expect(down.scale).toBeLessThan(1);
    const level = new SpendHold();
    level.record(0.01, 0.01);
    expect(level.scale).toBe(1);
  });

  it("caps a call at the scorer's choice's cost plus the credit the learned choices saved", () => {
    const hold = new SpendHold();
    expect(hold.credit).toBe(0);
    expect(hold.allows(0.01, 0.01)).toBe(true);
    expect(hold.allows(0.0101, 0.01)).toBe(false);
    hold.record(0.005, 0.01);
    expect(hold.credit).toBeCloseTo(0.005, 12);
    expect(hold.allows(0.012, 0.008)).toBe(true);
    expect(hold.allows(0.014, 0.008)).toBe(false);
    hold.record(0.013, 0.008);
    expect(hold.credit).toBeCloseTo(0, 15);
    // never below 0, and the scorer's own choice is always within the cap
    hold.record(0.02, 0.01);
    expect(hold.credit).toBe(0);
    expect(hold.allows(0.01, 0.01)).toBe(true);
    // a binding cap (the learned choice 0.02 wanted, the scorer's 0.01 chosen) still raises lambda
    const capped = new SpendHold();
    capped.record(0.02, 0.01, 0.01);
    expect(capped.scale).toBeGreaterThan(1);
    expect(capped.credit).toBe(0);
  });

  it("keeps the learned choices' total expected cost at or under the scorer's choices' total, call by call", () => {
    const hold = new SpendHold();
    let spent = 0;
    let reference = 0;
    // a learner that wants the dear model (0.03) on every call the scorer gives the cheap one (0.001), and the cheap
    // one on every third call the scorer gives the dear one: only the credit saved buys the dear model
    for (let k = 0; k < 300; k++) {
      const scorerCost = k % 3 === 0 ? 0.03 : 0.001;
      const wanted = k % 3 === 0 ? 0.001 : 0.03;
      const cost = hold.allows(wanted, scorerCost) ? wanted : scorerCost;
      hold.record(cost, scorerCost);
      spent += cost;
      reference += scorerCost;
      expect(spent).toBeLessThanOrEqual(reference * (1 + 1e-9));
    }
    expect(spent).toBeGreaterThan(0.9 * reference);
  });

  it("stays within its bounds, ignores unusable costs, and leaves other policies alone", () => {
    const hold = new SpendHold();
    for (let k = 0; k < 1000; k++) hold.record(1, 0.001);
    expect(hold.scale).toBeCloseTo(HOLD_MAX_SCALE, 9);
    const before = hold.scale;
    hold.record(Number.NaN, 0.001);
    hold.record(0.5, -1);
    expect(hold.scale).toBe(before);
    expect(hold.policy({ kind: "quality" })).toEqual({ kind: "quality" });
    expect(SpendHold.applies({ kind: "budget", maxUsdPerRun: 1 })).toBe(false);
    expect((hold.policy({ kind: "cost-aware", valuePerSuccessUsd: 0.5 }) as { lambda: number }).lambda).toBeCloseTo(
      2 * HOLD_MAX_SCALE,
      9,
    );
  });
});

/** A learner that finds every model but GPT-4 much worse than the scorer says (p 0.05), and GPT-4 as good. */
function pessimistAboutMistral(): AbilityLearner {
  const ids = new Set<string>();
  return {
    has: (id) => ids.has(id),
    addModel: (id) => ids.add(id),
    score: (_item, modelIds) =>
      modelIds.map((model) => {
        const p = model === "gpt-4-1106-preview" ? 0.99 : 0.05;
        return { model, p, score: p };
      }),
    observe: () => undefined,
  };
}

describe("RouterCore option holdSpend", () => {
  /** gpt-4 and a cheap model (`cheap`, default "mistral") over the toy scorer, with the learner and hold given. */
  const core = (policy: PolicyConfig, extra: { learner?: AbilityLearner; holdSpend?: boolean; cheap?: string } = {}) =>
    new RouterCore({
      models: [
        { id: "gpt-4", price: { inputPer1M: 10, outputPer1M: 30 } },
        { id: extra.cheap ?? "mistral", price: { inputPer1M: 0.2, outputPer1M: 0.2 } },
      ],
      scorer: new ToyScorer(),
      logger: quietLogger(),
      tracing: false,
      policy,
      ...(extra.learner ? { learner: extra.learner } : {}),
      ...(extra.holdSpend !== undefined ? { holdSpend: extra.holdSpend } : {}),
    });
  const router = (holdSpend: boolean, policy: PolicyConfig) =>
    core(policy, { learner: pessimistAboutMistral(), holdSpend });
  const choices = async (r: RouterCore, n: number) => {
    const out: string[] = [];
    for (let k = 0; k < n; k++) {
      const plan = await r.route({ messages: [{ role: "user", text: "What is 17 * 23?" }], runId: `run${k}` });
      out.push(plan.decision.chosen);
    }
    return out;
  };

  it("keeps a learning router's spend at the scorer's: the learner's dearer choice is not bought beyond the cap", async () => {
    // At lambda 100 the scorer's p (gpt-4 0.99, mistral 0.54) choose mistral; the learner's (mistral 0.05) gpt-4.
    const policy: PolicyConfig = { kind: "cost-aware", lambda: 100 };
    const scorerOnly = core(policy);
    expect(await choices(scorerOnly, 3)).toEqual(["mistral", "mistral", "mistral"]);
    expect(await choices(router(false, policy), 20)).toEqual(Array(20).fill("gpt-4"));
    const held = await choices(router(true, policy), 20);
    expect(held).toEqual(Array(20).fill("mistral"));
    // the cap reorders the plan: the learned first choice stays in it as the fallback
    const plan = await router(true, policy).route({ messages: [{ role: "user", text: "What is 17 * 23?" }] });
    expect(plan.decision.candidates.map((c) => c.id)).toEqual(["mistral", "gpt-4"]);
  });

  it("is on by default with a learner, and holdSpend: false turns it off", async () => {
    const policy: PolicyConfig = { kind: "cost-aware", lambda: 100 };
    expect(await choices(core(policy, { learner: pessimistAboutMistral() }), 5)).toEqual(Array(5).fill("mistral"));
    expect(await choices(router(false, policy), 5)).toEqual(Array(5).fill("gpt-4"));
  });

  it("lets the learner buy the dearer model with what its cheaper choices saved", async () => {
    // lambda 30: on a short question the scorer's p (gpt-4 0.99, mistral 0.54) choose gpt-4, while a learner that
    // trusts mistral (0.9) chooses it and saves; on a long one (gpt-4's input dear) the scorer's p choose mistral, while
    // a learner that no longer trusts it (0.05) wants gpt-4, which the saved credit buys once, not more.
    let mistralP = 0.9;
    const ids = new Set<string>();
    const learner: AbilityLearner = {
      has: (id) => ids.has(id),
      addModel: (id) => ids.add(id),
      score: (_item, modelIds) =>
        modelIds.map((model) => {
          const p = model === "gpt-4-1106-preview" ? 0.99 : mistralP;
          return { model, p, score: p };
        }),
      observe: () => undefined,
    };
    const r = core({ kind: "cost-aware", lambda: 30 }, { learner });
    const ask = async (text: string) =>
      (await r.route({ messages: [{ role: "user", text }], runId: text.slice(0, 12) })).decision;
    const short = "What is 17 * 23?";
    const long = `Summarise this log: ${"error at line 42 of the parser; ".repeat(250)}`;
    expect(await choices(core({ kind: "cost-aware", lambda: 30 }), 1)).toEqual(["gpt-4"]);
    for (let k = 0; k < 5; k++) expect((await ask(short)).chosen).toBe("mistral");
    mistralP = 0.05;
    const longChoices = [];
    for (let k = 0; k < 4; k++) longChoices.push((await ask(long)).chosen);
    expect(longChoices).toEqual(["gpt-4", "mistral", "mistral", "mistral"]);
  });

  it("leaves out calls with a model placed only by rule: the scorer's p of it is no reference", async () => {
    const withUnknown = core(
      { kind: "cost-aware", lambda: 100 },
      { cheap: "acme-private-model", learner: pessimistAboutMistral(), holdSpend: true },
    );
    expect(await choices(withUnknown, 10)).toEqual(Array(10).fill("gpt-4"));
  });

  it("changes nothing under a policy without a lambda, and is validated", async () => {
    expect(await choices(router(true, { kind: "quality" }), 5)).toEqual(Array(5).fill("gpt-4"));
    try {
      new RouterCore({ models: [{ id: "gpt-4" }], holdSpend: "yes" } as never);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).path).toBe("options.holdSpend");
    }
  });
});
