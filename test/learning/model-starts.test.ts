import { describe, expect, it } from "vitest";
import { OnlineLearner } from "../../src/learning/learner.js";
import { placedModelPrior } from "../../src/learning/prior.js";
import type { FeedbackEvent } from "../../src/learning/events.js";

const known = [
  { id: "a", ability: [1, 0, 0] },
  { id: "b", ability: [0, 1, 0] },
  { id: "c", ability: [0, 0, 1] },
  { id: "d", ability: [1, 1, 1] },
];
const start = { ability: [2, 2, 0.5], placement: { sd: 0.7, direction: [0.6, 0.6, 0.2] } };
const event = (i: number, y: number): FeedbackEvent => ({
  id: `e${i}`,
  model: "new",
  alpha: [1, 0.5 * (i % 3), 0.2],
  beta: 0.1 * i,
  y,
  at: i,
});

describe("a learner starts a model at a placed prior (a catalog prior with its uncertainty)", () => {
  it("addModel(id, { ability, placement }): mean the ability, covariance population + sd^2 v v^T", () => {
    const learner = new OnlineLearner(known);
    const post = learner.addModel("new", start);
    const want = placedModelPrior(start.ability, learner.newModelPrior(), start.placement);
    expect(Array.from(post.priorMeanVector())).toEqual(Array.from(want.mean));
    Array.from(post.covariance).forEach((v, k) => expect(v).toBeCloseTo(want.covariance[k]!, 10));
    // wider than a known model's prior and than the new-model prior along the placement's direction (its sd adds)
    const v = start.placement.direction;
    const along = (c: ArrayLike<number>) => {
      let s = 0;
      for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) s += v[i]! * c[i * 3 + j]! * v[j]!;
      return s;
    };
    expect(along(post.covariance)).toBeGreaterThan(along(learner.posterior("a").covariance));
    expect(along(post.covariance)).toBeGreaterThan(along(learner.newModelPrior().covariance));
  });

  it("the modelPriors option starts a model added by id, by feedback, and by a journal replay, at the same prior", () => {
    const modelPriors = (id: string) => (id === "new" ? start : undefined);
    const live = new OnlineLearner(known, { modelPriors, unknownModels: "add" });
    const events = [event(1, 1), event(2, 0), event(3, 1)];
    for (const e of events) live.observe(e); // the first event adds "new" at its start
    const replayed = OnlineLearner.restore({ events }, known, { modelPriors });
    const added = new OnlineLearner(known, { modelPriors });
    added.addModel("new");
    const want = Array.from(placedModelPrior(start.ability, live.newModelPrior(), start.placement).mean);
    for (const l of [live, replayed, added]) expect(Array.from(l.posterior("new").priorMeanVector())).toEqual(want);
    expect(Array.from(replayed.posterior("new").mean)).toEqual(Array.from(live.posterior("new").mean));
    // without the option, the replay starts it at the new-model prior: a different posterior
    const plain = OnlineLearner.restore({ events }, known);
    expect(Array.from(plain.posterior("new").priorMeanVector())).toEqual(Array.from(plain.newModelPrior().mean));
    // other ids still start at the new-model prior
    added.addModel("other");
    expect(Array.from(added.posterior("other").priorMeanVector())).toEqual(Array.from(added.newModelPrior().mean));
  });

  it("refuses a placement without an ability, or with a bad sd or direction, naming the field", () => {
    const learner = new OnlineLearner(known);
    expect(() => learner.addModel("x", { placement: start.placement } as never)).toThrow(/placement/);
    expect(() =>
      learner.addModel("x", { ability: start.ability, placement: { sd: -1, direction: [1, 0, 0] } }),
    ).toThrow(/placement\.sd/);
    expect(() => learner.addModel("x", { ability: start.ability, placement: { sd: 1, direction: [1, 0] } })).toThrow(
      /placement\.direction/,
    );
  });
});
