import { beforeAll, describe, expect, it } from "vitest";
import { getTf, type Tf } from "../../adapters/tf.js";
import { quantizeTable, staticEmbed, type StaticTable } from "../../src/encoders/static-table.js";
import { predictItems } from "../../src/scorer/forward.js";
import { observedPairs, rocAuc } from "../../src/scorer/metrics.js";
import { pieceWeightInput } from "../../src/scorer/piece-weights.js";
import { trainIrtMoe, trainIrtMoeWith, type EmbeddedLabels } from "../../src/scorer/train.js";
import { trainingRng } from "../../src/util/random.js";

let tf: Tf;
beforeAll(async () => {
  tf = (await getTf()).tf;
});

const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

/**
 * Checks the gradient `g` of `loss` against central finite differences (step 1e-2, two decimals), moving one
 * parameter of `input` (as `read()` lists them) at a time.
 */
function expectFiniteDifferences(
  input: { read(): Float32Array; write(values: Float32Array): void },
  loss: () => { dataSync(): ArrayLike<number>; dispose(): void },
  g: ArrayLike<number>,
): void {
  const base = input.read();
  const h = 1e-2;
  base.forEach((_, k) => {
    const at = (d: number) => {
      const v = base.slice();
      v[k]! += d;
      input.write(v);
      const t = loss();
      const out = t.dataSync()[0]!;
      t.dispose();
      return out;
    };
    expect(g[k]).toBeCloseTo((at(h) - at(-h)) / (2 * h), 2);
  });
}

function randomTable(rows: number, dim: number, seed: number): StaticTable {
  const rng = trainingRng(seed);
  return quantizeTable(
    Float32Array.from({ length: rows * dim }, () => rng.normal()),
    rows,
    dim,
    "int8",
  );
}

describe("pieceWeightInput", () => {
  it("gives the static encoder's vectors at s = 0 and the re-weighted table's after training-like updates", () => {
    const table = randomTable(40, 8, 1);
    const rng = trainingRng(2);
    const bags = range(0, 30).map((i) => range(0, 2 + (i % 7)).map(() => rng.int(42) - 1)); // some ids out of range
    const input = pieceWeightInput(tf, { bags, table, trainRows: range(0, 20), minItems: 2 });
    const X0 = input.embedAll();
    bags.forEach((ids, i) => {
      const want = staticEmbed(ids, table, 0);
      for (let j = 0; j < 8; j++) expect(X0[i * 8 + j]).toBeCloseTo(want[j]!, 5);
    });
    input.write(Float32Array.from(input.pieces, () => rng.normal()));
    const refined = input.refinedTable();
    expect(refined.data).toEqual(table.data); // int8: only the row scales change
    const X1 = input.embedAll();
    const forward = input.forward(range(0, 30));
    const F = forward.dataSync();
    forward.dispose();
    bags.forEach((ids, i) => {
      const want = staticEmbed(ids, refined, 0);
      for (let j = 0; j < 8; j++) {
        expect(X1[i * 8 + j]).toBeCloseTo(want[j]!, 4);
        expect(F[i * 8 + j]).toBeCloseTo(want[j]!, 4);
      }
    });
    expect(input.rowWeights().filter((w) => w !== 1).length).toBe(input.pieces.length);
    input.dispose();
  });

  it("has the gradient of a finite difference", () => {
    const table = randomTable(12, 5, 3);
    const bags = [
      [1, 2, 2, 3],
      [3, 4, 5],
      [1, 5, 6, 7],
    ];
    const input = pieceWeightInput(tf, { bags, table, trainRows: [0, 1, 2], minItems: 1 });
    const target = tf.tensor2d(
      Float32Array.from({ length: 15 }, (_, k) => Math.sin(k)),
      [3, 5],
    );
    const loss = () => tf.sum(tf.mul(input.forward([0, 1, 2]), target)) as any;
    const { grads } = tf.variableGrads(loss, [...input.variables]);
    const g = grads[input.variables[0]!.name]!.dataSync();
    expectFiniteDifferences(input, loss, g);
    input.dispose();
  });

  it("trained jointly with the scorer, up-weights a rare signal piece the fixed table drowns", async () => {
    // Each item: one signal piece (id 1 or 2, tiny rows) and five noise pieces (large rows). Model 0 is right on
    // items with piece 1, model 1 on items with piece 2: the label is in the pooling's smallest part.
    const dim = 6;
    const rng = trainingRng(5);
    const values = Float32Array.from({ length: 30 * dim }, () => rng.normal());
    for (const id of [1, 2]) for (let j = 0; j < dim; j++) values[id * dim + j]! *= 0.3; // a tenth of the others' rows
    const table = quantizeTable(values, 30, dim, "int8");
    const n = 400;
    const signal = range(0, n).map(() => 1 + rng.int(2));
    const bags = signal.map((s) => [s, ...range(0, 5).map(() => 3 + rng.int(27))]);
    const offsets = Int32Array.from(range(0, n + 1).map((i) => 2 * i));
    const model = Int32Array.from(range(0, 2 * n).map((j) => j % 2));
    const y = Float32Array.from(range(0, 2 * n).map((j) => ((j % 2) + 1 === signal[j >> 1] ? 1 : 0)));
    const X = Float32Array.from(bags.flatMap((ids) => Array.from(staticEmbed(ids, table, 0))));
    const data: EmbeddedLabels = { X, dim, nItems: n, nModels: 2, offsets, model, y };
    const split = { train: range(0, 300), val: range(300, 350) };
    const config = { experts: 2, hidden: 8, out: 6, abilityDim: 3, maxEpochs: 25, patience: 25, learningRate: 0.02 };
    const test = range(350, n);
    const auc = (p: Float32Array) => {
      const pairs = observedPairs(p, 2, data, test);
      return rocAuc(pairs.p, pairs.y);
    };
    const plain = await trainIrtMoe(tf, data, split, config, { seed: 1 });
    const input = pieceWeightInput(tf, { bags, table, trainRows: split.train });
    const refined = await trainIrtMoeWith(tf, data, split, config, { seed: 1 }, input);
    const w = input.rowWeights();
    const Xr = input.embedAll();
    input.dispose();
    expect(Math.min(w[1]!, w[2]!)).toBeGreaterThan(Math.max(...range(3, 30).map((id) => w[id]!)));
    expect(auc(predictItems(refined, Xr, test))).toBeGreaterThan(auc(predictItems(plain, X, test)) + 0.05);
  });
  it("with tuneRows, fine-tunes the learned rows: the folded table gives the trained vectors", () => {
    const table = randomTable(40, 8, 4);
    const rng = trainingRng(6);
    const bags = range(0, 30).map((i) => range(0, 2 + (i % 5)).map(() => rng.int(40)));
    const input = pieceWeightInput(tf, { bags, table, trainRows: range(0, 30), minItems: 2, tuneRows: true });
    expect(input.variables).toHaveLength(2);
    const nk = input.pieces.length;
    const values = Float32Array.from({ length: nk + nk * 8 }, (_, k) => (k < nk ? 0.3 : 0.2) * rng.normal());
    input.write(values);
    expect(Array.from(input.read())).toEqual(Array.from(values));
    const X = input.embedAll();
    const forward = input.forward(range(0, 30));
    const F = forward.dataSync();
    forward.dispose();
    const refined = input.refinedTable();
    bags.forEach((ids, i) => {
      const want = staticEmbed(ids, refined, 0);
      for (let j = 0; j < 8; j++) {
        expect(X[i * 8 + j]).toBeCloseTo(want[j]!, 1); // int8 storage of the changed rows
        expect(F[i * 8 + j]).toBeCloseTo(X[i * 8 + j]!, 5);
      }
    });
    input.dispose();
  });

  it("with tuneRows, has the gradient of a finite difference for the row residuals", () => {
    const table = randomTable(12, 5, 3);
    const bags = [
      [1, 2, 2, 3],
      [3, 4, 5],
      [1, 5, 6, 7],
    ];
    const input = pieceWeightInput(tf, { bags, table, trainRows: [0, 1, 2], minItems: 1, tuneRows: true });
    const target = tf.tensor2d(
      Float32Array.from({ length: 15 }, (_, k) => Math.cos(k)),
      [3, 5],
    );
    const loss = () => tf.sum(tf.mul(input.forward([0, 1, 2]), target)) as any;
    const { grads } = tf.variableGrads(loss, [...input.variables]);
    const g = [...grads[input.variables[0]!.name]!.dataSync(), ...grads[input.variables[1]!.name]!.dataSync()];
    expectFiniteDifferences(input, loss, g);
    input.dispose();
  });
});
