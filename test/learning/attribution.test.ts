import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../adapters/stores/memory.js";
import { FeedbackError, ValidationError } from "../../src/errors.js";
import { attributeRun, OnlineLearner } from "../../src/learning/index.js";
import { attributionSchema, DEFAULT_ATTRIBUTION } from "../../src/learning/attribution.js";

const alpha = [0.5, -0.2];
const steps = [
  { decisionId: "d1", model: "a", alpha, beta: 0 },
  { decisionId: "d2", model: "b", alpha, beta: 0.1, toolError: true },
  { decisionId: "d3", model: "a", alpha, beta: -0.3 },
];

describe("attributeRun", () => {
  it("every: each step gets the run outcome with weight 1; tool errors fail their own step", () => {
    const ev = attributeRun({ runId: "r", outcome: 1, steps, at: 5 }, { mode: "every" });
    expect(ev.map((e) => [e.id, e.y, e.weight])).toEqual([
      ["r:d1", 1, 1],
      ["r:d2", 0, 1],
      ["r:d3", 1, 1],
    ]);
    expect(ev[0]).toMatchObject({ runId: "r", decisionId: "d1", model: "a", at: 5, beta: 0 });
  });

  it("last: only the final step is credited", () => {
    const ev = attributeRun(
      { runId: "r", outcome: 0, steps: steps.map((s) => ({ ...s, toolError: false })), at: 1 },
      { mode: "last" },
    );
    expect(ev.map((e) => e.id)).toEqual(["r:d3"]);
    expect(ev[0]!.y).toBe(0);
  });

  it("discounted: weight discount^(n-1-k); tool errors can be ignored", () => {
    const ev = attributeRun(
      { runId: "r", outcome: 0.5, steps, at: 1 },
      { mode: "discounted", discount: 0.5, toolErrorsAsFailures: false },
    );
    expect(ev.map((e) => e.weight)).toEqual([0.25, 0.5, 1]);
    expect(ev.every((e) => e.y === 0.5)).toBe(true);
  });

  it("re-attributing the same run yields the same ids, so the learner applies it once", () => {
    const learner = new OnlineLearner([
      { id: "a", ability: [1, 0] },
      { id: "b", ability: [0, 1] },
    ]);
    const run = { runId: "r", outcome: 1, steps, at: 1 };
    const first = attributeRun(run, { mode: "discounted" }).map((e) => learner.observe(e));
    const again = attributeRun(run, { mode: "discounted" }).map((e) => learner.observe(e));
    expect(first).toEqual(["applied", "applied", "applied"]);
    expect(again).toEqual(["duplicate", "duplicate", "duplicate"]);
  });

  it("defaults to the router's attribution, posterior, which needs each step's p and says so", () => {
    expect(DEFAULT_ATTRIBUTION).toEqual({ mode: "posterior", discount: 0.7, toolErrorsAsFailures: true });
    // written out (not parsed at import): it must stay what the schema's defaults give
    expect(attributionSchema.parse({})).toEqual(DEFAULT_ATTRIBUTION);
    expect(() => attributeRun({ runId: "r", outcome: 0, steps })).toThrow(/run\.steps\.0\.p is required/);
    const withP = steps.map((s) => ({ ...s, p: 0.5 }));
    const ev = attributeRun({ runId: "r", outcome: 1, steps: withP });
    expect(ev.map((e) => [e.decisionId, e.y, e.weight])).toEqual([
      ["d1", 1, 1],
      ["d2", 0, 1],
      ["d3", 1, 1],
    ]);
  });

  it("rejects a bad outcome or option with a ValidationError naming the field", () => {
    expect(() => attributeRun({ runId: "r", outcome: 2, steps })).toThrow(/run\.outcome/);
    expect(() => attributeRun({ runId: "r", outcome: NaN, steps })).toThrow(ValidationError);
    expect(() => attributeRun({ runId: "r", outcome: 1, steps }, { discount: 0 })).toThrow(/attribution\.discount/);
    expect(() => attributeRun({ runId: "", outcome: 1, steps })).toThrow(/run\.runId/);
  });

  it("takes a step's alpha as scorer.itemParams returns it (a Float32Array) and emits plain arrays a store and learner accept", async () => {
    const learner = new OnlineLearner([
      { id: "a", ability: [1, 0] },
      { id: "b", ability: [0, 1] },
    ]);
    const typed = Float32Array.from([0.5, -0.25]);
    const events = attributeRun(
      { runId: "r", outcome: 1, steps: [{ decisionId: "d1", model: "a", alpha: typed, beta: 0 }], at: 1 },
      { mode: "every" },
    );
    expect(Array.isArray(events[0]!.alpha)).toBe(true);
    expect(events[0]!.alpha).toEqual([0.5, -0.25]);
    for (const e of events) learner.check(e);
    const store = new MemoryStore();
    await store.append(events);
    expect(events.map((e) => learner.observe(e))).toEqual(["applied"]);
    expect(() =>
      attributeRun({
        runId: "r",
        outcome: 1,
        steps: [{ decisionId: "d1", model: "a", alpha: Float32Array.from([0.5, NaN]), beta: 0 }],
      }),
    ).toThrow(/run\.steps\.0\.alpha\.1/);
  });

  it("a typed-array alpha in an event is refused by learner.check as the store refuses it, naming the fix", async () => {
    const learner = new OnlineLearner([
      { id: "a", ability: [1, 0] },
      { id: "b", ability: [0, 1] },
    ]);
    const event = {
      id: "e1",
      model: "a",
      alpha: Float32Array.from([0.5, -0.25]) as unknown as number[],
      beta: 0,
      y: 1,
      at: 1,
    };
    expect(() => learner.check(event)).toThrow(FeedbackError);
    expect(() => learner.check(event)).toThrow(/Array\.from\(alpha\)/);
    await expect(new MemoryStore().append([event])).rejects.toThrow(FeedbackError);
  });
});

describe('attributeRun, mode "posterior"', () => {
  const run = (outcome: number, p: number[], toolError: boolean[] = []) => ({
    runId: "r",
    outcome,
    at: 1,
    steps: p.map((pk, k) => ({ decisionId: `d${k}`, model: "a", alpha, beta: 0, p: pk, toolError: toolError[k] })),
  });
  const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
  const logit = (p: number) => Math.log(p / (1 - p));

  it("a success is a success of every step (y = 1, weight 1); a visible failure stays a failure of its step", () => {
    const ev = attributeRun(run(1, [0.9, 0.5, 0.2], [false, true, false]), { mode: "posterior" });
    expect(ev.map((e) => [e.decisionId, e.y, e.weight])).toEqual([
      ["d0", 1, 1],
      ["d1", 0, 1],
      ["d2", 1, 1],
    ]);
  });

  it("a failure blames each step by its chance of being the one that failed", () => {
    // p = (0.9, 0.5): the run fails with 0.55; step 0 alone failed with 0.1 * 0.5, step 1 alone with 0.9 * 0.5
    const ev = attributeRun(run(0, [0.9, 0.5]), { mode: "posterior" });
    expect(ev.map((e) => e.y)).toEqual([0, 0]);
    expect(ev[0]!.weight).toBeCloseTo(0.05 / 0.55, 12);
    expect(ev[1]!.weight).toBeCloseTo(0.45 / 0.55, 12);
    // a one-step run that failed: that step failed
    expect(attributeRun(run(0, [0.97]), { mode: "posterior" }).map((e) => [e.y, e.weight])).toEqual([[0, 1]]);
    // a step the router was sure of takes little blame when a long shot ran beside it
    const [sure, longShot] = attributeRun(run(0, [0.99, 0.3]), { mode: "posterior" });
    expect(sure!.weight!).toBeLessThan(0.01);
    expect(longShot!.weight!).toBeGreaterThan(0.98);
  });

  it("matches the run likelihood's gradient and Fisher information in each step's logit", () => {
    const p = [0.8, 0.6, 0.95, 0.7];
    const ev = attributeRun(run(0, p), { mode: "posterior" });
    p.forEach((pi, i) => {
      const others = p.reduce((acc, pj, j) => (j === i ? acc : acc * pj), 1);
      const logLik = (z: number) => Math.log(1 - sigmoid(z) * others); // log P(run failed) as a function of step i's logit
      const h = 1e-5;
      const gradient = (logLik(logit(pi) + h) - logLik(logit(pi) - h)) / (2 * h);
      const fisher = (others * pi * (1 - pi) ** 2) / (1 - others * pi);
      const { y, weight } = ev[i]!;
      expect(weight! * (y - pi)).toBeCloseTo(gradient, 6);
      expect(weight! * pi * (1 - pi)).toBeCloseTo(fisher, 12);
    });
  });

  it("a graded outcome mixes success and failure with the same gradient", () => {
    const ev = attributeRun(run(0.5, [0.9, 0.5]), { mode: "posterior" });
    const blame0 = 0.05 / 0.55;
    expect(ev[0]!.weight).toBeCloseTo(0.5 + 0.5 * blame0, 12);
    expect(ev[0]!.y).toBeCloseTo(0.5 / (0.5 + 0.5 * blame0), 12);
  });

  it("needs each step's predicted p, and says which step lacks it", () => {
    const r = run(0, [0.9, 0.5]);
    delete (r.steps[1] as { p?: number }).p;
    expect(() => attributeRun(r, { mode: "posterior" })).toThrow(ValidationError);
    expect(() => attributeRun(r, { mode: "posterior" })).toThrow(/run\.steps\.1\.p/);
    // a visible failure needs none: it is a failure whatever the model was expected to do
    expect(() => attributeRun(run(0, [0.9]), { mode: "posterior" })).not.toThrow();
    expect(() => attributeRun({ ...run(0, [0.9]), steps: [{ ...run(0, [0.9]).steps[0]!, p: 1 }] })).toThrow(
      /run\.steps\.0\.p/,
    );
  });
});
