import { beforeAll, describe, expect, it } from "vitest";
import type { Tensor2D } from "@tensorflow/tfjs";
import { getTf, type Tf } from "../../adapters/tf.js";
import {
  forwardGraph,
  createVars,
  makeOps,
  maskedBce,
  maskedListwise,
  disposeVars,
  listVars,
} from "../../src/scorer/graph.js";
import { itemParamsOf, predictItems } from "../../src/scorer/forward.js";
import { mixtureForward } from "../../src/scorer/mixture.js";
import { denseLayersOf, initWeights } from "../../src/scorer/weights.js";
import { trainingRng } from "../../src/util/random.js";

let tf: Tf;
beforeAll(async () => {
  tf = (await getTf()).tf;
});

function randomWeights(seed: number) {
  const rng = trainingRng(seed);
  const w = initWeights(
    rng,
    { inDim: 12, experts: 3, hidden: 10, out: 7, abilityDim: 4 },
    ["a", "b", "c", "d", "e"],
    0.4,
  );
  // Non-zero biases so that they are exercised too.
  for (const layer of denseLayersOf(w)) for (let i = 0; i < layer.b.length; i++) layer.b[i] = rng.normal() * 0.3;
  const X = new Float32Array(9 * 12).map(() => rng.normal());
  return { w, X };
}

describe("tfjs training graph vs plain typed-array forward", () => {
  it("gives the same logits, gate, alpha and beta to 1e-5", () => {
    const { w, X } = randomWeights(3);
    const ops = makeOps(tf);
    const vars = createVars(tf, w);
    const out = tf.tidy(() => {
      const o = forwardGraph(tf, ops, vars, tf.tensor2d(X, [9, 12]));
      return [o.logits.arraySync(), o.gate.arraySync(), o.alpha.arraySync(), o.beta.arraySync()] as number[][][];
    });
    disposeVars(vars);
    const [logits, gate, alpha, beta] = out as [number[][], number[][], number[][], number[][]];
    const p = predictItems({ weights: w, temperature: 1 }, X, [...Array(9).keys()]);
    for (let i = 0; i < 9; i++) {
      const x = X.subarray(i * 12, (i + 1) * 12);
      const params = itemParamsOf(w, x);
      expect(Math.abs(params.beta - beta[i]![0]!)).toBeLessThan(1e-5);
      params.alpha.forEach((v, k) => expect(Math.abs(v - alpha[i]![k]!)).toBeLessThan(1e-5));
      mixtureForward(w, x).gate.forEach((g, k) => expect(Math.abs(g - gate[i]![k]!)).toBeLessThan(1e-5));
      for (let m = 0; m < 5; m++)
        expect(Math.abs(p[i * 5 + m]! - 1 / (1 + Math.exp(-logits[i]![m]!)))).toBeLessThan(1e-5);
    }
  });
});

describe("custom gradients (tf.customGrad) vs finite differences", () => {
  function checkOp(f: (...xs: Tensor2D[]) => Tensor2D, shapes: [number, number][], seed: number) {
    const rng = trainingRng(seed);
    const inputs = shapes.map((s) => Array.from({ length: s[0] * s[1] }, () => rng.normal()));
    const probe = Array.from({ length: 64 }, () => rng.normal());
    // Scalar objective: sum(f(x) * R) with a fixed random R (in float64 via arraySync).
    const objective = (vals: number[][]) =>
      tf.tidy(() => {
        const y = f(...vals.map((v, k) => tf.tensor2d(v, shapes[k]!)));
        const flat = y.dataSync();
        let s = 0;
        for (let i = 0; i < flat.length; i++) s += flat[i]! * probe[i % probe.length]!;
        return s;
      });
    const grads = tf.tidy(() => {
      const g = tf.grads(((...xs: Tensor2D[]) => {
        const y = f(...xs);
        const r = tf.tensor1d(Array.from({ length: y.size }, (_, i) => probe[i % probe.length]!)).reshape(y.shape);
        return tf.sum(tf.mul(y, r));
      }) as any);
      return g(inputs.map((v, k) => tf.tensor2d(v, shapes[k]!))).map((t) => Array.from(t.dataSync()));
    });
    const h = 1e-2;
    inputs.forEach((v, k) => {
      for (let t = 0; t < Math.min(6, v.length); t++) {
        const i = Math.floor(rng.next() * v.length);
        const plus = inputs.map((u) => u.slice());
        const minus = inputs.map((u) => u.slice());
        plus[k]![i]! += h;
        minus[k]![i]! -= h;
        const fd = (objective(plus) - objective(minus)) / (2 * h);
        expect(Math.abs(fd - grads[k]![i]!)).toBeLessThan(2e-2 * Math.max(1, Math.abs(fd)));
      }
    });
  }

  it("dense: x W + b (gradients for x, W, b)", () => {
    const ops = makeOps(tf);
    checkOp(
      (x, W, b) => ops.dense(x, W, tf.reshape(b, [-1]) as any),
      [
        [5, 4],
        [4, 3],
        [1, 3],
      ],
      1,
    );
  });

  it("dense with data input: gradients for W and b", () => {
    const ops = makeOps(tf);
    const x = tf.tensor2d(
      Array.from({ length: 20 }, (_, i) => Math.sin(i)),
      [5, 4],
    );
    checkOp(
      (W, b) => ops.denseData(x, W, tf.reshape(b, [-1]) as any),
      [
        [4, 3],
        [1, 3],
      ],
      2,
    );
    x.dispose();
  });

  it("ability logits: alpha theta^T (gradients for alpha and theta)", () => {
    const ops = makeOps(tf);
    checkOp(
      (a, th) => ops.abilityLogits(a, th),
      [
        [5, 4],
        [6, 4],
      ],
      3,
    );
  });

  it.each([
    ["BCE", 0],
    ["BCE plus the listwise term", 1],
  ])("the whole masked loss (%s), through experts, gate and heads", (_name, rankWeight) => {
    const { w, X } = randomWeights(7);
    const ops = makeOps(tf);
    const vars = createVars(tf, w);
    const rng = trainingRng(11);
    const y = tf.tensor2d(
      Array.from({ length: 45 }, () => rng.next()),
      [9, 5],
    );
    const mask = tf.tensor2d(
      Array.from({ length: 45 }, () => (rng.next() < 0.7 ? 1 : 0)),
      [9, 5],
    );
    const x = tf.tensor2d(X, [9, 12]);
    const loss = () => {
      const logits = forwardGraph(tf, ops, vars, x).logits;
      return tf.add(maskedBce(tf, logits, y, mask), tf.mul(maskedListwise(tf, logits, y, mask), rankWeight));
    };
    const list = listVars(vars).map((v) => v.variable);
    const { grads } = tf.variableGrads(loss as any, list);
    const h = 1e-2;
    for (const v of [vars.gate.W, vars.experts[1]!.l1.W, vars.shared.l2.b, vars.alpha.W, vars.beta.b, vars.theta]) {
      const g = grads[v.name]!.dataSync();
      const base = v.dataSync().slice();
      for (let t = 0; t < 3; t++) {
        const i = Math.floor(rng.next() * base.length);
        const at = (delta: number) => {
          const c = base.slice();
          c[i]! += delta;
          v.assign(tf.tensor(c, v.shape));
          return tf.tidy(() => loss().dataSync()[0]!);
        };
        const fd = (at(h) - at(-h)) / (2 * h);
        v.assign(tf.tensor(base, v.shape));
        expect(Math.abs(fd - g[i]!)).toBeLessThan(2e-3 + 2e-2 * Math.abs(fd));
      }
    }
    disposeVars(vars);
  });

  it("the listwise loss: softmax over observed models against the correct ones, informative items only", () => {
    const logits = tf.tensor2d(
      [
        [2, 0, -1, 5],
        [1, 1, 1, 1],
        [0.5, -0.5, 3, 0],
      ],
      [3, 4],
    );
    // item 0: models 0-2 observed, 0 and 2 correct; item 1: all correct (no order signal); item 2: 0, 1, 3 observed, 1 correct
    const y = tf.tensor2d(
      [
        [1, 0, 1, 1],
        [1, 1, 1, 1],
        [0, 1, 1, 0],
      ],
      [3, 4],
    );
    const mask = tf.tensor2d(
      [
        [1, 1, 1, 0],
        [1, 1, 1, 1],
        [1, 1, 0, 1],
      ],
      [3, 4],
    );
    const logSoftmax = (xs: number[]) => {
      const m = Math.max(...xs);
      const z = Math.log(xs.reduce((s, x) => s + Math.exp(x - m), 0)) + m;
      return xs.map((x) => x - z);
    };
    const l0 = logSoftmax([2, 0, -1]);
    const l2 = logSoftmax([0.5, -0.5, 0]);
    const expected = (-(l0[0]! + l0[2]!) / 2 + -l2[1]!) / 2;
    expect(maskedListwise(tf, logits, y, mask).dataSync()[0]).toBeCloseTo(expected, 5);
    // the unobserved cell's logit (item 0, model 3) and label (item 2, model 2) change nothing
    const moved = tf.tensor2d(
      [
        [2, 0, -1, -40],
        [1, 1, 1, 1],
        [0.5, -0.5, 3, 0],
      ],
      [3, 4],
    );
    const relabelled = tf.tensor2d(
      [
        [1, 0, 1, 0],
        [1, 1, 1, 1],
        [0, 1, 0, 0],
      ],
      [3, 4],
    );
    expect(maskedListwise(tf, moved, relabelled, mask).dataSync()[0]).toBeCloseTo(expected, 5);
  });

  it("unobserved cells do not affect the loss or its gradients", () => {
    const { w, X } = randomWeights(5);
    const ops = makeOps(tf);
    const vars = createVars(tf, w);
    const x = tf.tensor2d(X, [9, 12]);
    const maskArr = Array.from({ length: 45 }, (_, i) => (i % 3 === 0 ? 0 : 1));
    const mask = tf.tensor2d(maskArr, [9, 5]);
    const y1 = tf.tensor2d(
      maskArr.map((m, i) => (m ? i % 2 : 0)),
      [9, 5],
    );
    const y2 = tf.tensor2d(
      maskArr.map((m, i) => (m ? i % 2 : 1)),
      [9, 5],
    );
    const list = listVars(vars).map((v) => v.variable);
    const run = (y: Tensor2D) =>
      tf.variableGrads((() => maskedBce(tf, forwardGraph(tf, ops, vars, x).logits, y, mask)) as any, list);
    const a = run(y1);
    const b = run(y2);
    expect(a.value.dataSync()[0]).toBe(b.value.dataSync()[0]);
    for (const v of list)
      expect(Array.from(a.grads[v.name]!.dataSync())).toEqual(Array.from(b.grads[v.name]!.dataSync()));
    // And flipping an observed label does change the loss.
    const y3 = tf.tensor2d(
      maskArr.map((m, i) => (m ? 1 - (i % 2) : 0)),
      [9, 5],
    );
    expect(run(y3).value.dataSync()[0]).not.toBe(a.value.dataSync()[0]);
    disposeVars(vars);
  });
});
