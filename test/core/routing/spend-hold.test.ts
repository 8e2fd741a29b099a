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

  it("keeps a learning router's spend at the scorer's: the learner's dearer choice is bought only until lambda rises", async () => {
    // At lambda 100 the scorer's p (gpt-4 0.99, mistral 0.54) choose mistral; the learner's (mistral 0.05) gpt-4.
    const policy: PolicyConfig = { kind: "cost-aware", lambda: 100 };
    const scorerOnly = core(policy);
    expect(await choices(scorerOnly, 3)).toEqual(["mistral", "mistral", "mistral"]);
    expect(await choices(router(false, policy), 20)).toEqual(Array(20).fill("gpt-4"));
    const held = await choices(router(true, policy), 20);
    expect(held[0]).toBe("gpt-4");
    expect(held.filter((m) => m === "gpt-4").length).toBeLessThanOrEqual(2);
    expect(held.slice(-10)).toEqual(Array(10).fill("mistral"));
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
