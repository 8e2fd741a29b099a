import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../adapters/stores/memory.js";
import { FeedbackError, ValidationError } from "../../src/errors.js";
import { attributeRun, OnlineLearner } from "../../src/learning/index.js";

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
    const first = attributeRun(run).map((e) => learner.observe(e));
    const again = attributeRun(run).map((e) => learner.observe(e));
    expect(first).toEqual(["applied", "applied", "applied"]);
    expect(again).toEqual(["duplicate", "duplicate", "duplicate"]);
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
    const events = attributeRun({
      runId: "r",
      outcome: 1,
      steps: [{ decisionId: "d1", model: "a", alpha: typed, beta: 0 }],
      at: 1,
    });
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
