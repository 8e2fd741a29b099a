import { describe, expect, it } from "vitest";
import { OnlineLearner } from "../../src/learning/learner.js";
import { populationPrior, similarModelsPrior } from "../../src/learning/prior.js";

const KNOWN = [
  { id: "a", ability: [1, 0, 0.5] },
  { id: "b", ability: [0, 1, -0.5] },
  { id: "c", ability: [-1, 0.5, 0] },
  { id: "d", ability: [0.5, -1, 1] },
];

describe("the prior of a new model declared like known ones", () => {
  it.each([1, 3, 10])(
    "moves the mean to the declared models' mean and keeps the new-model covariance (inflate %d)",
    (inflate) => {
      const learner = new OnlineLearner(KNOWN, { inflate });
      // What the declared models learned since does not move the guess: their prior means are used.
      learner.observe({ id: "x", model: "a", alpha: [1, 1, 1], beta: 0, y: 0, at: 0 });
      const post = learner.addModel("new", { like: ["a", "b"] });
      [0.5, 0.5, 0].forEach((v, k) => expect(post.mean[k]).toBeCloseTo(v, 12));
      const newPrior = learner.newModelPrior();
      Array.from(newPrior.covariance).forEach((v, k) => expect(post.covariance[k]).toBeCloseTo(v, 9));
      // ... which is inflate x the population covariance, the prior of a model added without a declaration.
      const population = populationPrior(KNOWN.map((k) => k.ability));
      Array.from(newPrior.covariance).forEach((v, k) => expect(v).toBeCloseTo(inflate * population.covariance[k]!, 12));
      const plain = learner.addModel("plain");
      plain.covariance.forEach((v, k) => expect(v).toBeCloseTo(post.covariance[k]!, 9));
    },
  );

  it("similarModelsPrior takes the covariance of the prior it is given, and returns it unchanged without similar models", () => {
    const base = { mean: Float64Array.from([0, 0]), covariance: Float64Array.from([2, 0.5, 0.5, 3]) };
    const prior = similarModelsPrior(
      [
        [1, 2],
        [3, 4],
      ],
      base,
    );
    expect(Array.from(prior.mean)).toEqual([2, 3]);
    expect(Array.from(prior.covariance)).toEqual([2, 0.5, 0.5, 3]);
    expect(similarModelsPrior([], base)).toBe(base);
  });
});
