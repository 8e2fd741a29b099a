import { describe, expect, it } from "vitest";
import { AbilityPosterior, ItemTracker, predictiveP } from "../../src/learning/index.js";
import { sigmoid } from "../../src/learning/posterior.js";
import { cholesky, choleskySolve, inverseFromCholesky } from "../../src/learning/linalg.js";
import { alphaOf, makeWorld, trueP } from "./synthetic.js";
import { seededRng } from "../../src/learning/index.js";

const eye = (d: number, s = 1) => Float64Array.from({ length: d * d }, (_, i) => (i % (d + 1) === 0 ? s : 0));

describe("linalg", () => {
  it("cholesky solve and inverse match a hand-computed 2x2 system", () => {
    const A = new Float64Array([4, 2, 2, 3]);
    const { L, jitter } = cholesky(A, 2);
    expect(jitter).toBe(0);
    const x = choleskySolve(L, 2, [2, 1]); // A x = b -> x = [0.5, 0]
    expect(x[0]).toBeCloseTo(0.5, 12);
    expect(x[1]).toBeCloseTo(0, 12);
    const inv = inverseFromCholesky(L, 2);
    expect(Array.from(inv).map((v) => v * 8)).toEqual([3, -2, -2, 4].map((v) => expect.closeTo(v, 10)));
  });

  it("adds jitter to a singular matrix instead of failing", () => {
    const { jitter } = cholesky(new Float64Array([1, 1, 1, 1]), 2);
    expect(jitter).toBeGreaterThan(0);
  });
});

describe("AbilityPosterior", () => {
  it("a single update equals the exact Gaussian-linearised (Newton) step", () => {
    const post = new AbilityPosterior({ mean: [0, 0], covariance: eye(2) });
    post.update([1, 0], 0, 1);
    // At mu = 0: p0 = 0.5, w = 0.25; Lambda = I + 0.25 e1 e1^T; eta = 0.5 e1 -> mu = [0.5/1.25, 0]
    expect(post.mean[0]).toBeCloseTo(0.4, 12);
    expect(post.mean[1]).toBeCloseTo(0, 12);
    expect(post.covariance[0]).toBeCloseTo(1 / 1.25, 12);
    expect(post.covariance[3]).toBeCloseTo(1, 12);
  });

  it("Sherman-Morrison moments agree with a full Cholesky refresh", () => {
    const w = makeWorld(2, 12, 300, 1);
    const a = new AbilityPosterior({ mean: new Float64Array(12), covariance: eye(12) }, { refreshEvery: 1000 });
    const b = new AbilityPosterior({ mean: new Float64Array(12), covariance: eye(12) }, { refreshEvery: 1 });
    const rng = seededRng(4);
    for (let i = 0; i < 200; i++) {
      const y = rng.next() < trueP(w, w.thetas[0]!, i) ? 1 : 0;
      a.update(alphaOf(w, i), w.betas[i]!, y);
      b.update(alphaOf(w, i), w.betas[i]!, y);
    }
    for (let k = 0; k < 12; k++) expect(a.mean[k]).toBeCloseTo(b.mean[k]!, 8);
    for (let k = 0; k < 144; k++) expect(a.covariance[k]).toBeCloseTo(b.covariance[k]!, 8);
  });

  it("learns a true ability from its outcomes (full and diagonal)", () => {
    const w = makeWorld(3, 8, 4000, 1);
    for (const mode of ["full", "diagonal"] as const) {
      const post = new AbilityPosterior({ mean: new Float64Array(8), covariance: eye(8, 2) }, { mode });
      const rng = seededRng(5);
      for (let i = 0; i < 3000; i++)
        post.update(alphaOf(w, i), w.betas[i]!, rng.next() < trueP(w, w.thetas[0]!, i) ? 1 : 0);
      let err = 0;
      for (let i = 3000; i < 4000; i++)
        err += Math.abs(post.predict(alphaOf(w, i), w.betas[i]!) - trueP(w, w.thetas[0]!, i));
      expect(err / 1000).toBeLessThan(mode === "full" ? 0.05 : 0.08);
    }
  });

  it("decay moves precision back toward the prior; factor 1 is a no-op; factor 0 (underflow) is back at the prior", () => {
    const post = new AbilityPosterior({ mean: [0, 0], covariance: eye(2) });
    for (let i = 0; i < 50; i++) post.update([1, 0.5], 0, 1);
    const before = post.covariance[0]!;
    post.decay(1);
    expect(post.covariance[0]).toBe(before);
    post.decay(0.01);
    expect(post.covariance[0]).toBeGreaterThan(before);
    expect(post.covariance[0]).toBeLessThanOrEqual(1);
    post.decay(0);
    expect(Array.from(post.mean)).toEqual([0, 0]);
    expect(Array.from(post.covariance)).toEqual([1, 0, 0, 1]);
    expect(post.evidence).toBe(0);
    expect(() => post.decay(-0.1)).toThrow(RangeError);
    expect(() => post.decay(NaN)).toThrow(RangeError);
  });

  it("state round-trips through JSON", () => {
    const post = new AbilityPosterior({ mean: [0.1, -0.2, 0.3], covariance: eye(3, 0.5) });
    post.update([1, 2, 3], 0.5, 0);
    post.update([0.3, -1, 0.2], -0.1, 1, 0.5);
    const back = AbilityPosterior.fromState(JSON.parse(JSON.stringify(post.toState())));
    for (let k = 0; k < 3; k++) expect(back.mean[k]).toBeCloseTo(post.mean[k]!, 12);
    expect(back.evidence).toBe(1.5);
    expect(back.predict([1, 1, 1], 0)).toBeCloseTo(post.predict([1, 1, 1], 0), 12);
  });

  it("rejects a prior covariance of the wrong size", () => {
    expect(() => new AbilityPosterior({ mean: [0, 0], covariance: [1, 0, 0] })).toThrow(/expected 2x2/);
  });

  it("ItemTracker stays equal to direct computation across rank-1 updates and refreshes", () => {
    const w = makeWorld(6, 10, 200, 1);
    const post = new AbilityPosterior({ mean: new Float64Array(10), covariance: eye(10) }, { refreshEvery: 7 });
    const tracker = new ItemTracker(post, w.alphas, w.betas);
    for (let i = 0; i < 30; i++) {
      post.update(alphaOf(w, i), w.betas[i]!, i % 3 === 0 ? 1 : 0);
      const m = tracker.means();
      const s2 = tracker.variances();
      for (const j of [0, 57, 199]) {
        const { mean, variance } = post.logit(alphaOf(w, j), w.betas[j]!);
        expect(m[j]).toBeCloseTo(mean, 8);
        expect(s2[j]).toBeCloseTo(variance, 8);
      }
    }
    tracker.dispose();
  });
});

describe("predictiveP", () => {
  it("is sigmoid at zero variance and shrinks toward 0.5 with variance", () => {
    expect(predictiveP(1.3, 0)).toBeCloseTo(sigmoid(1.3), 12);
    expect(predictiveP(2, 4)).toBeLessThan(sigmoid(2));
    expect(predictiveP(2, 4)).toBeGreaterThan(0.5);
    expect(predictiveP(-2, 4)).toBeGreaterThan(sigmoid(-2));
  });
});
