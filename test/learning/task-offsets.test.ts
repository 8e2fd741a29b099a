import { describe, expect, it } from "vitest";
import { TaskOffsets, DEFAULT_TASK_OFFSET_SD } from "../../src/learning/task-offsets.js";
import { OnlineLearner } from "../../src/learning/learner.js";
import { assertValidFeedbackEvents } from "../../src/learning/store.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import { FeedbackError, ValidationError } from "../../src/errors.js";

const known = [
  { id: "a", ability: [1, 0] },
  { id: "b", ability: [0, 1] },
  { id: "c", ability: [0.5, 0.5] },
];
const item = { alpha: [1, 1], beta: 0 };
const event = (i: number, model: string, y: number, task?: string): FeedbackEvent => ({
  id: `e${i}`,
  model,
  alpha: [1, 1],
  beta: 0,
  y,
  at: i,
  ...(task !== undefined ? { task } : {}),
});

describe("TaskOffsets", () => {
  it("starts at N(0, sd^2) and moves toward the outcomes, shrinking its variance", () => {
    const t = new TaskOffsets();
    expect(t.offset("a", "code")).toEqual({ mean: 0, variance: DEFAULT_TASK_OFFSET_SD ** 2 });
    for (let i = 0; i < 20; i++) t.observe("a", "code", 1, 0);
    const o = t.offset("a", "code");
    expect(o.mean).toBeLessThan(-1);
    expect(o.variance).toBeLessThan(0.5);
    expect(t.offset("a", "chat").mean).toBe(0);
    expect(t.offset("b", "code").mean).toBe(0);
  });

  it("round-trips its state and names a bad field", () => {
    const t = new TaskOffsets(0.5);
    t.observe("a", "code", 0, 1, 0.5);
    const back = TaskOffsets.fromState(JSON.parse(JSON.stringify(t.exportState())));
    expect(back.offset("a", "code")).toEqual(t.offset("a", "code"));
    expect(back.priorSd).toBe(0.5);
    expect(() => TaskOffsets.fromState({ version: 1, priorSd: 1, offsets: { a: { code: [0, -1] } } })).toThrow(
      /state\.taskOffsets\.offsets\.a\.code/,
    );
    expect(() => TaskOffsets.fromState({ version: 2 })).toThrow(ValidationError);
  });
});

describe("OnlineLearner with task hints", () => {
  it("learns a per-(model, task) offset that scores on that task only", () => {
    const learner = new OnlineLearner(known, { knownScale: 1 });
    for (let i = 0; i < 30; i++) learner.observe(event(i, "a", 0, "code"));
    const onCode = learner.score({ ...item, task: "code" }, ["a"])[0]!.p;
    const onChat = learner.score({ ...item, task: "chat" }, ["a"])[0]!.p;
    const plain = learner.score(item, ["a"])[0]!.p;
    expect(onCode).toBeLessThan(plain - 0.05);
    expect(onChat).toBeCloseTo(plain, 1); // only the prior variance of an unseen offset differs
  });

  it("keeps its state format: no taskOffsets until a hinted event; restored from a snapshot and from the journal", () => {
    const learner = new OnlineLearner(known);
    learner.observe(event(0, "a", 1));
    expect(learner.exportState()).not.toHaveProperty("taskOffsets");
    const events = [event(1, "a", 0, "code"), event(2, "b", 1, "code"), event(3, "a", 1, "chat")];
    for (const e of events) learner.observe(e);
    const state = learner.exportState();
    expect(Object.keys(state.taskOffsets!.offsets).sort()).toEqual(["a", "b"]);
    const scores = (l: OnlineLearner) => l.score({ ...item, task: "code" }, ["a", "b"]).map((s) => s.p);
    expect(scores(OnlineLearner.fromState(JSON.parse(JSON.stringify(state))))).toEqual(scores(learner));
    const replayed = OnlineLearner.restore({ events: [event(0, "a", 1), ...events] }, known);
    expect(scores(replayed)).toEqual(scores(learner));
  });

  it("refuses a bad task, in the learner and in the store schema", () => {
    const learner = new OnlineLearner(known);
    expect(() => learner.observe(event(0, "a", 1, ""))).toThrow(FeedbackError);
    expect(() => learner.check(event(0, "a", 1, "x".repeat(201)))).toThrow(/event\.task/);
    expect(() => assertValidFeedbackEvents([event(0, "a", 1, " ")])).toThrow(/task/);
    expect(() => assertValidFeedbackEvents([event(0, "a", 1, "code")])).not.toThrow();
  });
});
