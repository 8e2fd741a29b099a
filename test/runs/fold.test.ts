import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { RunRouter } from "../../src/runs/run-router.js";

const models = { strong: { runCost: 2 }, weak: { runCost: 0.2 }, middle: { runCost: 1 } };
const text = (t: number) => `task ${t} ${["repair the build", "train a model", "recover a file"][t % 3]}`;

/** Feeds `n` tasks: strong passes 9 in 10, weak 1 in 10, middle every other (each task run by all three). */
function feed(router: RunRouter, n: number): void {
  for (let t = 0; t < n; t++) {
    const task = { id: `t${t}`, text: text(t) };
    router.feedback(task, "strong", t % 10 !== 0);
    router.feedback(task, "weak", t % 10 === 0);
    router.feedback(task, "middle", t % 2 === 0);
  }
}

describe("RunRouter maxOutcomes (oldest outcomes folded into the prior)", () => {
  it("keeps what it learned: the same choices and close abilities as a router that keeps everything", () => {
    const bounded = new RunRouter({ models, maxOutcomes: 100 });
    const full = new RunRouter({ models, maxOutcomes: 1e7 });
    feed(bounded, 200);
    feed(full, 200);
    expect(bounded.feedbackCount).toBe(600);
    const a = bounded.toPrior().models;
    const b = full.toPrior().models;
    for (const id of Object.keys(models)) {
      expect(a[id]!.ability.mean).toBeCloseTo(b[id]!.ability.mean, 0);
      // as sure of it as the router with every outcome (from the kept outcomes alone it was about 4 times less sure)
      expect(a[id]!.ability.variance).toBeLessThan(1.5 * b[id]!.ability.variance);
    }
    expect(a.strong!.ability.mean).toBeGreaterThan(a.middle!.ability.mean + 1);
    expect(a.middle!.ability.mean).toBeGreaterThan(a.weak!.ability.mean + 1);
    for (let t = 0; t < 5; t++) {
      const task = { id: `new${t}`, text: text(t) };
      expect(bounded.route(task).chosen).toBe(full.route(task).chosen);
    }
  });

  it("keeps at most maxOutcomes past tasks besides the outcomes it keeps, and every model it measured", () => {
    const router = new RunRouter({ models, maxOutcomes: 100 });
    feed(router, 400);
    const prior = router.toPrior();
    // at most 100 folded tasks and the tasks of at most 100 kept outcomes
    expect(prior.tasks.length).toBeLessThanOrEqual(100 + 100 / 3 + 1);
    expect(prior.tasks.length).toBeGreaterThan(100);
    expect(Object.keys(prior.models).sort()).toEqual(["middle", "strong", "weak"]);
  });

  it("is no change below the bound", () => {
    const bounded = new RunRouter({ models, maxOutcomes: 600 });
    const full = new RunRouter({ models, maxOutcomes: 1e7 });
    feed(bounded, 200);
    feed(full, 200);
    // the same but for each router's own writer id (the sync checkpoint numbers their 600 outcomes)
    const learnt = (r: RunRouter) => {
      const { sync, ...prior } = r.toPrior();
      expect(Object.values(sync!.writers)).toEqual([{ next: 600 }]);
      return prior;
    };
    expect(learnt(bounded)).toEqual(learnt(full));
  });

  it("folds a model's abilities from a prior it started from with its own outcomes", () => {
    const first = new RunRouter({ models, maxOutcomes: 100 });
    feed(first, 100);
    const restarted = new RunRouter({ models, maxOutcomes: 100, prior: first.toPrior() });
    feed(restarted, 100);
    const p = restarted.toPrior().models;
    expect(p.strong!.ability.variance).toBeLessThan(first.toPrior().models.strong!.ability.variance);
  });

  it("refuses a bound below 100, or not a whole number, naming the option", () => {
    for (const maxOutcomes of [10, 150.5, Number.NaN]) {
      expect(() => new RunRouter({ models, maxOutcomes })).toThrow(ValidationError);
      try {
        new RunRouter({ models, maxOutcomes });
      } catch (error) {
        expect((error as ValidationError).path).toBe("options.maxOutcomes");
      }
    }
  });
});
