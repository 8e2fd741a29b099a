import { describe, expect, it } from "vitest";
import { simulateSeed, type SimConfig, type SimWorld } from "../../../bench/online/sim.js";
import { seededRng } from "../../../src/learning/index.js";
import { makeWorld, trueP } from "../../learning/synthetic.js";

/** A small simulation world: 6 models observed on every item, the last 2 left out of the item model. */
function simWorld(): SimWorld {
  const w = makeWorld(5, 4, 300, 6);
  const rng = seededRng(9);
  const offsets = Int32Array.from({ length: w.n + 1 }, (_, i) => 6 * i);
  const model = Int32Array.from({ length: 6 * w.n }, (_, j) => j % 6);
  const y = Float32Array.from(model, (m, j) => (rng.next() < trueP(w, w.thetas[m]!, Math.floor(j / 6)) ? 1 : 0));
  const items = Array.from({ length: w.n }, (_, i) => i);
  return {
    models: ["m0", "m1", "m2", "m3", "m4", "m5"],
    d: w.d,
    alphas: w.alphas,
    betas: w.betas,
    offsets,
    model,
    y,
    train: items.slice(0, 200),
    test: items.slice(200),
    heldOut: [4, 5],
    knownTheta: new Map([0, 1, 2, 3].map((m) => [m, Float32Array.from(w.thetas[m]!)])),
  };
}

const config: SimConfig = {
  seed: 1,
  checkpoints: [0, 50, 150],
  epsilon: 0.1,
  sgdEta: 0.1,
  ucbKappa: 2,
  calibrationCap: 20,
  calibrationBank: 100,
  calibrationTolerance: 0.03,
  randomOrders: 1,
  bootstrap: 100,
  skipCalibration: true,
};

describe("simulateSeed's router subset (bench/dev/exploration.ts runs only the routers a grid cell changes)", () => {
  it("gives the full run's curves for the routers it runs, plus static and oracle", async () => {
    const world = simWorld();
    const full = await simulateSeed(world, { ...config, learner: { inflate: 10 } });
    const ucb = await simulateSeed(world, { ...config, learner: { inflate: 10 }, routers: ["learningUcb"] });
    expect(Object.keys(ucb.curves).sort()).toEqual(["learningUcb", "oracle", "static"]);
    for (const name of ["learningUcb", "oracle", "static"]) expect(ucb.curves[name]).toEqual(full.curves[name]);
    expect(ucb.gap).toEqual(full.gap);
    expect(ucb.heldOutShare).toBeNaN();
    const learning = await simulateSeed(world, { ...config, learner: { inflate: 10 }, routers: ["learning"] });
    expect(learning.curves.learning).toEqual(full.curves.learning);
    expect(learning.heldOutShare).toBe(full.heldOutShare);
    // the default router explores as the learner's defaults say (Thompson): the explicit Thompson row equals it
    expect(full.curves.thompson).toEqual(full.curves.learning);
    expect(full.curves.learningUcb).not.toEqual(full.curves.static); // the held-out models were tried
    expect(Object.keys(full.curves).sort()).toEqual([
      "epsilonGreedy",
      "greedy",
      "learning",
      "learningUcb",
      "oracle",
      "sgdEpsilon",
      "static",
      "thompson",
    ]);
  });
});
