import { beforeAll, describe, expect, it } from "vitest";
import { getTf, type Tf } from "../../adapters/tf.js";
import { trainIrtMoe } from "../../src/scorer/train.js";
import { predictItems } from "../../src/scorer/forward.js";
import { tensorLayout } from "../../src/scorer/serialize.js";
import { TrainingError, ValidationError } from "../../src/errors.js";
import { simulateIrt, spearman, TINY } from "./helpers.js";
import { rejectedWith } from "../errors.js";

let tf: Tf;
beforeAll(async () => {
  tf = (await getTf()).tf;
});

const rows = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

/** The scorer the ranking tests train on 700 simulated items (train 0-550, val 550-620, test 620-700). */
const RANKING_CONFIG = {
  experts: 2,
  hidden: 16,
  out: 8,
  abilityDim: 2,
  batchItems: 32,
  maxEpochs: 40,
  patience: 5,
  learningRate: 3e-3,
  dropout: 0,
  inputNoise: 0,
};

/** Each of the `nModels` models' mean p over the test items (rows 620-700). */
function meanPOnTest(
  trained: Parameters<typeof predictItems>[0],
  X: Parameters<typeof predictItems>[1],
  nModels: number,
) {
  const test = rows(620, 700);
  const p = predictItems(trained, X, test);
  return Array.from({ length: nModels }, (_, m) => test.reduce((s, _i, r) => s + p[r * nModels + m]!, 0) / test.length);
}

describe("trainIrtMoe", () => {
  it("is deterministic: same seed => identical weights; another seed => different", async () => {
    const { data } = simulateIrt({ nItems: 120, dim: 6, nModels: 4, seed: 1 });
    const split = { train: rows(0, 100), val: rows(100, 120) };
    const a = await trainIrtMoe(tf, data, split, TINY, { seed: 7 });
    const b = await trainIrtMoe(tf, data, split, TINY, { seed: 7 });
    const c = await trainIrtMoe(tf, data, split, TINY, { seed: 8 });
    const la = tensorLayout(a.weights);
    const lb = tensorLayout(b.weights);
    la.forEach((t, k) => expect(Array.from(t.data)).toEqual(Array.from(lb[k]!.data)));
    expect(a.temperature).toBe(b.temperature);
    expect(Array.from(c.weights.theta)).not.toEqual(Array.from(a.weights.theta));
  });

  it("fails with a TrainingError, not the untrained initial weights, when no epoch gives a finite validation score", async () => {
    const { data } = simulateIrt({ nItems: 120, dim: 6, nModels: 4, seed: 1 });
    const val = rows(100, 120);
    // every validation label correct: AUC is undefined (NaN) at every epoch
    const y = Float32Array.from(data.y);
    for (const i of val) for (let j = data.offsets[i]!; j < data.offsets[i + 1]!; j++) y[j] = 1;
    const oneClass = { ...data, y };
    const error = await rejectedWith(
      TrainingError,
      trainIrtMoe(
        tf,
        oneClass,
        { train: rows(0, 100), val },
        { ...TINY, earlyStopOn: "auc", maxEpochs: 2 },
        { seed: 1 },
      ),
    );
    expect(error.code).toBe("TRAINING_FAILED");
    expect(error.message).toMatch(/validation auc was not a finite number in any of 2 epoch\(s\).*earlyStopOn "loss"/);
    // the same data stopping on loss trains normally
    const ok = await trainIrtMoe(tf, oneClass, { train: rows(0, 100), val }, { ...TINY, maxEpochs: 2 }, { seed: 1 });
    expect(ok.bestEpoch).toBeGreaterThan(0);
  });

  it("recovers the ranking of known abilities from simulated IRT data (Spearman >= 0.95)", async () => {
    const M = 10;
    const { data, theta } = simulateIrt({ nItems: 700, dim: 8, nModels: M, seed: 3 });
    const split = { train: rows(0, 550), val: rows(550, 620) };
    const trained = await trainIrtMoe(tf, data, split, RANKING_CONFIG, { seed: 1 });
    expect(spearman(meanPOnTest(trained, data.X, M), theta)).toBeGreaterThanOrEqual(0.95);
    expect(trained.val.auc).toBeGreaterThan(0.7);
    expect(trained.history.length).toBeGreaterThan(0);
    expect(trained.bestEpoch).toBeGreaterThan(0);
  });

  it("with weight averaging (emaDecay) the averaged weights are returned and still recover the ranking", async () => {
    const M = 10;
    const { data, theta } = simulateIrt({ nItems: 700, dim: 8, nModels: M, seed: 3 });
    const split = { train: rows(0, 550), val: rows(550, 620) };
    const cfg = RANKING_CONFIG;
    const plain = await trainIrtMoe(tf, data, split, cfg, { seed: 1 });
    const averaged = await trainIrtMoe(tf, data, split, { ...cfg, emaDecay: 0.9 }, { seed: 1 });
    expect(Array.from(averaged.weights.theta)).not.toEqual(Array.from(plain.weights.theta));
    expect(spearman(meanPOnTest(averaged, data.X, M), theta)).toBeGreaterThanOrEqual(0.95);
    // a decay this close to 1 keeps the average near the initial weights: the fit is no better than chance
    const frozen = await trainIrtMoe(tf, data, split, { ...cfg, emaDecay: 0.99999, maxEpochs: 2 }, { seed: 1 });
    expect(frozen.val.auc).toBeLessThan(plain.val.auc - 0.05);
    await expect(trainIrtMoe(tf, data, split, { emaDecay: 1 })).rejects.toMatchObject({ path: "config.emaDecay" });
  });

  it("leaves no tensors or bytes behind: flat across epochs, and back to the start after training (with and without weight averaging)", async () => {
    const { data } = simulateIrt({ nItems: 120, dim: 6, nModels: 4, seed: 1 });
    const split = { train: rows(0, 100), val: rows(100, 120) };
    for (const extra of [{}, { emaDecay: 0.9, rankWeight: 0.5 }]) {
      const before = tf.memory();
      const perEpoch: number[] = [];
      await trainIrtMoe(
        tf,
        data,
        split,
        { ...TINY, ...extra, maxEpochs: 4, patience: 10 },
        { seed: 1, onEpoch: () => perEpoch.push(tf.memory().numTensors) },
      );
      expect(new Set(perEpoch).size).toBe(1);
      expect(tf.memory().numTensors).toBe(before.numTensors);
      expect(tf.memory().numBytes).toBe(before.numBytes);
    }
  });

  it("rejects bad data and config with typed errors naming the field", async () => {
    const { data } = simulateIrt({ nItems: 30, dim: 4, nModels: 3, seed: 2 });
    const split = { train: rows(0, 20), val: rows(20, 30) };
    await expect(trainIrtMoe(tf, data, split, { hidden: 0 })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      path: "config.hidden",
    });
    await expect(trainIrtMoe(tf, data, split, { nope: 1 } as any)).rejects.toBeInstanceOf(ValidationError);
    const badY = { ...data, y: data.y.slice() };
    badY.y[0] = 1.5;
    await expect(trainIrtMoe(tf, badY, split, TINY)).rejects.toMatchObject({ path: "data.y.0" });
    await expect(trainIrtMoe(tf, { ...data, X: data.X.subarray(1) }, split, TINY)).rejects.toMatchObject({
      path: "data.X",
    });
    await expect(trainIrtMoe(tf, data, { train: split.train, val: [] }, TINY)).rejects.toMatchObject({
      path: "split.val",
    });
    await expect(trainIrtMoe(tf, data, { train: [0, 99], val: split.val }, TINY)).rejects.toMatchObject({
      path: "data.split.train",
    });
  });
});
