import { describe, expect, it } from "vitest";
import { IrtRouter, type RouteDecision } from "../../../src/langchain/index.js";
import { boundRunWeight } from "../../../src/core/feedback/influence-limits.js";
import { FeedbackBudgetError, FeedbackError } from "../../../src/errors.js";
import { OnlineLearner } from "../../../src/learning/learner.js";
import { rejectedWith, thrownBy } from "../../errors.js";
import { ToyScorer } from "../../langchain/helpers.js";
import { toyRouter } from "../../langchain/toy-router.js";

async function steps(router: IrtRouter, runId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await router.invoke(`step ${i} of the run`, { metadata: { irtRouterRunId: runId } });
    ids.push((r.response_metadata.irtRouter as RouteDecision).decisionId);
  }
  return ids;
}

describe("bounded feedback influence", () => {
  it("one run's outcome carries a bounded total weight however many steps it has; the mode's shape is kept", async () => {
    const router = toyRouter();
    await steps(router, "r-every", 40);
    // an attributed source: full weight (an unattributed outcome is scaled further, see unattributed.test.ts)
    const every = await router.feedback("r-every", false, { attribution: { mode: "every" }, source: "alice" });
    expect(every).toHaveLength(40);
    const total = every.reduce((s, e) => s + (e.weight ?? 1), 0);
    expect(total).toBeCloseTo(1, 9); // DEFAULT_MAX_RUN_WEIGHT
    expect(new Set(every.map((e) => e.weight)).size).toBe(1); // "every": still all equal

    await steps(router, "r-disc", 12);
    const disc = await router.feedback("r-disc", true, {
      attribution: { mode: "discounted", discount: 0.9 },
      source: "alice",
    });
    const w = disc.map((e) => e.weight ?? 1);
    expect(w.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 9);
    expect(w[10]! / w[11]!).toBeCloseTo(0.9, 9); // the discount between steps is unchanged

    await steps(router, "r-small", 1);
    const small = await router.feedback("r-small", true, { weight: 0.5, source: "alice" });
    expect(small.map((e) => e.weight)).toEqual([0.5]); // within the bound: untouched
  });

  it("a source that spent its budget gets a FeedbackBudgetError naming options.source; nothing is stored, the outcome can be retried", async () => {
    const router = toyRouter({ feedbackLimits: { sourceBudget: { weight: 3, windowMs: 3_600_000 } } });
    const ids = await steps(router, "run", 4);
    for (const id of ids.slice(0, 3)) await router.feedback(id, false, { source: "mallory" });
    const err = await rejectedWith(FeedbackBudgetError, router.feedback(ids[3]!, false, { source: "mallory" }));
    expect(err).toBeInstanceOf(FeedbackBudgetError);
    expect(err).toBeInstanceOf(FeedbackError);
    expect(err.path).toBe("options.source");
    expect(err.details).toMatchObject({ source: "mallory", used: 3, budget: 3 });
    expect(router.feedbackEvents).toHaveLength(3);
    // Another source is not charged for mallory's outcomes; the refused decision takes an outcome later.
    expect(await router.feedback(ids[3]!, true, { source: "alice" })).toHaveLength(1);
    expect(router.feedbackEvents!.map((e) => e.source)).toEqual(["mallory", "mallory", "mallory", "alice"]);
  });

  it("a blank source is refused naming options.source", async () => {
    const router = toyRouter();
    const [id] = await steps(router, "run", 1);
    expect((await rejectedWith(FeedbackError, router.feedback(id!, true, { source: " " }))).path).toBe(
      "options.source",
    );
  });

  it("a crafted event with implausible item parameters is refused and changes nothing", () => {
    const learner = OnlineLearner.forScorer(new ToyScorer());
    const before = JSON.stringify(learner.exportState());
    const err = thrownBy(FeedbackError, () =>
      learner.observe({ id: "x", model: "gpt-4-1106-preview", alpha: [100, 0], beta: 0, y: 0, at: 1 }),
    );
    expect(err.path).toBe("event.alpha");
    expect(err.message).toMatch(/item-parameter bound/);
    expect(JSON.stringify(learner.exportState())).toBe(before);
  });

  it("by default a model whose estimate fell is still sampled, so it can come back (exploration floor)", () => {
    const known = [
      { id: "best", ability: [1, 1] },
      { id: "other", ability: [0.6, 0.6] },
    ];
    const item = { alpha: [1, 1], beta: 0.5 };
    for (const [explore, expectChosen] of [
      [undefined, true],
      ["none", false],
    ] as const) {
      const learner = new OnlineLearner(known, { knownScale: 1, ...(explore ? { explore } : {}) });
      for (let i = 0; i < 12; i++)
        learner.observe({ id: `f${i}`, model: "best", alpha: [1, 1], beta: 0.5, y: 0, at: i });
      let chosen = 0;
      for (let k = 0; k < 300; k++) if (learner.choose(item) === "best") chosen++;
      expect(chosen > 0, `explore ${explore ?? "default"}: best chosen ${chosen} of 300`).toBe(expectChosen);
    }
  });
});

describe("boundRunWeight", () => {
  const ev = (weight: number) => ({ id: `e${weight}`, model: "m", alpha: [1], beta: 0, y: 0, weight, at: 1 });

  it("scales by one factor so the total is at most the bound, and leaves a run under it alone", () => {
    expect(boundRunWeight([ev(1), ev(1), ev(2)], 2).map((e) => e.weight)).toEqual([0.5, 0.5, 1]);
    expect(boundRunWeight([ev(0.25), ev(0.5)], 1).map((e) => e.weight)).toEqual([0.25, 0.5]);
  });

  it("with a capacity, scales by what the run could have given, so failures and successes are scaled alike", () => {
    // a failed 4-step run whose blames sum to 0.6: scaled as a success of 4 steps would be (by 1/4), not left at 0.6
    const scaled = boundRunWeight([ev(0.1), ev(0.5)], 1, 4).map((e) => e.weight);
    expect(scaled[0]).toBeCloseTo(0.025, 12);
    expect(scaled[1]).toBeCloseTo(0.125, 12);
    // a total above the capacity (tool errors keep weight 1) is still bounded
    expect(boundRunWeight([ev(1), ev(1), ev(1)], 1, 2).reduce((s, e) => s + e.weight!, 0)).toBeCloseTo(1, 12);
  });
});
