/**
 * The run-level router under inputs a careless or hostile caller may give: many models and attempts, values at the
 * edge of what the schemas accept, callbacks that are no functions. Each case failed before its fix.
 */
import { describe, expect, it } from "vitest";
import { RunRouter } from "../../src/runs/index.js";
import { PLAN_DEPTH, PLAN_WORK, planHorizon } from "../../src/runs/plan.js";

/** `n` models with run costs 0.1, 0.2, ...: before any outcome each is on the (p, cost) frontier. */
function models(n: number): Record<string, { runCost: number }> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`m${i}`, { runCost: 0.1 * (i + 1) }]));
}

describe("the escalation plan is bounded", () => {
  it("looks ahead over every attempt while the tree of plans is small, as before", () => {
    expect(planHorizon(3, 5, false)).toBe(5);
    expect(planHorizon(3, 5, true)).toBe(5);
    expect(planHorizon(32, 3, false)).toBe(3); // Terminal-Bench's 32 models, the default 3 attempts
  });

  it("looks ahead fewer attempts when the tree would pass the work bound, and never deeper than the depth bound", () => {
    const tree = (width: number, h: number, retry: boolean) => {
      let nodes = 0;
      let level = 1;
      for (let l = 0; l < h; l++) nodes += level *= retry ? width : width - l;
      return nodes * width;
    };
    for (const [width, attempts, retry] of [
      [30, 5, false],
      [30, 30, true],
      [200, 3, false],
    ] as const) {
      const h = planHorizon(width, attempts, retry);
      expect(h).toBeGreaterThanOrEqual(1);
      expect(h).toBeLessThan(attempts);
      if (h > 1) expect(tree(width, h, retry)).toBeLessThanOrEqual(PLAN_WORK);
    }
    expect(planHorizon(1, 1e9, true)).toBe(PLAN_DEPTH);
  });

  it("a decision with allowRetry and a huge attemptsLeft returns (it overflowed the stack)", () => {
    const router = new RunRouter({ models: { only: { runCost: 1 } } });
    expect(router.route("task", { attemptsLeft: 1e6, allowRetry: true }).chosen).toBe("only");
  });

  it("an escalation over 30 models with 8 attempts picks its first model (it ran for minutes)", async () => {
    const router = new RunRouter({ models: models(30) });
    const result = await router.escalate(
      "task",
      async (m) => m,
      () => true,
      { maxAttempts: 8 },
    );
    expect(result.passed).toBe(true);
    expect(result.attempts).toHaveLength(1);
  });
});
