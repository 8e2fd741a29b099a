import { describe, expect, it } from "vitest";
import { FeedbackError, ValidationError } from "../../src/errors.js";
import { SpendPacer } from "../../src/runs/index.js";
import { DEFAULT_SPEND_PACER } from "../../src/runs/spend-pacer.js";
import { trained } from "./trained-router.js";

describe("SpendPacer", () => {
  it("raises the cost weight after a task that cost more than the target, lowers it after one that cost less", () => {
    const pacer = new SpendPacer({ target: 1 });
    expect(pacer.costWeight).toBe(DEFAULT_SPEND_PACER.start);
    pacer.record(2);
    expect(pacer.costWeight).toBeCloseTo(DEFAULT_SPEND_PACER.start * Math.exp(DEFAULT_SPEND_PACER.rate), 12);
    pacer.record(0);
    expect(pacer.costWeight).toBeCloseTo(DEFAULT_SPEND_PACER.start, 12);
    pacer.record(1);
    expect(pacer.costWeight).toBeCloseTo(DEFAULT_SPEND_PACER.start, 12);
    expect(pacer.taskCount).toBe(3);
    expect(pacer.meanSpend).toBe(1);
  });

  it("meets a mean spend between two plans by alternating them", () => {
    // Two plans, as escalation's plans switch with the cost weight: under 0.25 the dear plan (1.0 a task), from 0.25
    // the cheap one (0.2). No fixed weight spends 0.5; the pacer's mean spend does.
    const pacer = new SpendPacer({ target: 0.5, start: 1 });
    let dear = 0;
    for (let t = 0; t < 400; t++) {
      const spend = pacer.costWeight < 0.25 ? 1 : 0.2;
      dear += Number(spend === 1);
      pacer.record(spend);
    }
    expect(pacer.meanSpend).toBeGreaterThan(0.45);
    expect(pacer.meanSpend).toBeLessThan(0.55);
    expect(dear).toBeGreaterThan(100);
    expect(dear).toBeLessThan(300);
  });

  it("rejects bad options and spends with typed errors naming the field", () => {
    expect(() => new SpendPacer({ target: 0 })).toThrow(ValidationError);
    expect(() => new SpendPacer({ target: 0 })).toThrow(/target/);
    expect(() => new SpendPacer({ target: 1, rate: -1 })).toThrow(/rate/);
    expect(() => new SpendPacer({ target: 1, strat: 1 } as never)).toThrow(/strat/);
    const pacer = new SpendPacer({ target: 1 });
    expect(() => pacer.record(Number.NaN)).toThrow(ValidationError);
    expect(() => pacer.record(-1)).toThrow(/spent/);
    expect(pacer.taskCount).toBe(0);
  });
});

describe("RunRouter.escalate with a pacer", () => {
  it("uses the pacer's cost weight and records what the escalation spent", async () => {
    const router = trained();
    const pacer = new SpendPacer({ target: 0.5, start: 0.05 });
    const result = await router.escalate(
      "fix it",
      async (m) => m,
      () => false,
      { maxAttempts: 2, pacer },
    );
    expect(result.attempts[0]!.decision.policy).toBe("run(costWeight=0.05, attemptsLeft=2)");
    expect(pacer.taskCount).toBe(1);
    expect(pacer.meanSpend).toBeCloseTo(result.cost, 12);
    // It spent more than the target, so the next task weighs cost more.
    expect(result.cost).toBeGreaterThan(0.5);
    expect(pacer.costWeight).toBeGreaterThan(0.05);
  });

  it("spends less on later tasks after dear ones, down to the target", async () => {
    const router = trained();
    const pacer = new SpendPacer({ target: 0.5, start: 0.01 });
    const costs: number[] = [];
    for (let t = 0; t < 60; t++) {
      const r = await router.escalate(
        `new task ${t}`,
        async (m) => m,
        () => false,
        { maxAttempts: 2, pacer, learn: false },
      );
      costs.push(r.cost);
    }
    expect(costs[0]).toBeGreaterThan(3);
    const lastHalf = costs.slice(30).reduce((s, c) => s + c, 0) / 30;
    expect(lastHalf).toBeLessThan(1);
  });

  it("bills a run that throws, so an outage does not read as free tasks", async () => {
    const router = trained();
    const pacer = new SpendPacer({ target: 0.05 }); // under every model's run cost
    const before = pacer.costWeight;
    await expect(
      router.escalate(
        "t",
        async () => {
          throw new Error("provider down");
        },
        () => true,
        { pacer },
      ),
    ).rejects.toThrow("provider down");
    expect(pacer.taskCount).toBe(1);
    expect(pacer.meanSpend).toBeGreaterThan(0);
    expect(pacer.costWeight).toBeGreaterThan(before); // the run it started cost more than the target
  });

  it("records the finished runs when the check throws", async () => {
    const router = trained();
    const pacer = new SpendPacer({ target: 1 });
    await expect(
      router.escalate(
        "t",
        async (m) => m,
        () => 2,
        { pacer },
      ),
    ).rejects.toThrow(FeedbackError);
    expect(pacer.taskCount).toBe(1);
    expect(pacer.meanSpend).toBeGreaterThan(0);
  });

  it("rejects a cost weight beside a pacer, and a pacer that is not one", async () => {
    const router = trained();
    const pacer = new SpendPacer({ target: 1 });
    const run = async (m: string) => m;
    await expect(router.escalate("t", run, () => true, { pacer, costWeight: 0.2 })).rejects.toThrow(
      /costWeight or pacer, not both/,
    );
    const notAPacer = router.escalate("t", run, () => true, { pacer: { costWeight: 0.2 } as never });
    await expect(notAPacer).rejects.toThrow(ValidationError);
    await expect(notAPacer).rejects.toThrow(/pacer.*must be a SpendPacer/);
    expect(pacer.taskCount).toBe(0);
  });
});
