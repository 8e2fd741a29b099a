/**
 * Validation-only development: does the posterior-update APPROXIMATION slow down calibration of a strong new
 * model? (`npx tsx bench/dev/calibration-update.ts`)
 *
 * Same worlds and counts as bench/dev/calibration.ts (probes to within 3 points of each held-out model's
 * VALIDATION accuracy, error after 100 probes; the same probe rules and random orders), but the posterior after
 * each answer comes from one of three approximations of the logistic likelihood:
 *
 * - "ekf": the learner's step (src/learning/posterior.ts), linearised at the current mean;
 * - "adf": assumed-density filtering, moments of the tilted distribution matched under the probit
 *   approximation sigmoid(z) ~ Phi(lambda z), lambda^2 = pi / 8 (a larger step while the posterior is wide);
 * - "laplace": after each answer the joint MAP of prior + all answers so far (Newton) with the Hessian there,
 *   i.e. every answer re-linearised at the mode.
 *
 * The probe rules are the library's ("accuracy": c-optimal for the predicted bank accuracy; "random": the seeded
 * order calibrateModel uses), re-implemented here over a plain mean and covariance so the update can be swapped,
 * plus a non-myopic one ("lookahead": two steps of the default rule's criterion, in expectation over the answers).
 * Prints the median probes and mean error per (update, rule), and each variant's paired difference from the first
 * with a bootstrap interval over the (seed, model) pairs; writes nothing.
 *
 *   npx tsx bench/dev/calibration-update.ts --updates ekf,adf,laplace --strategies accuracy,random
 *   npx tsx bench/dev/calibration-update.ts --updates ekf --strategies accuracy,lookahead,random
 */
import { z } from "zod";
import { getTf } from "../../adapters/tf.js";
import { loadDataset } from "../../adapters/data/index.js";
import { splitIndices } from "../../src/data/split.js";
import { shuffledIndices } from "../../src/learning/probe-picker.js";
import { OnlineLearner, predictiveP, seededRng } from "../../src/learning/index.js";
import { cholesky, choleskySolve, inverseFromCholesky } from "../../src/learning/linalg.js";
import { sigmoid } from "../../src/util/maths.js";
import { embeddingsFor } from "../online/embeddings.js";
import { calibrationSetup, mean, median } from "../online/sim.js";
import { validationWorld } from "../online/world.js";
import { listFlag, positiveIntFlag, scriptFlags, seedListFlag, seedsFlag } from "../flags.js";

const values = scriptFlags(
  "bench/dev/calibration-update.ts",
  {
    dataset: { type: "string" },
    "leave-out": { type: "string" },
    seeds: { type: "string" },
    updates: { type: "string" },
    strategies: { type: "string" },
    "random-orders": { type: "string" },
    cap: { type: "string" },
  },
  z
    .object({
      dataset: z.string().min(1).default("mmlu-pro-29models"),
      "leave-out": z.string().min(1).default("top:3,random:2"),
      seeds: seedListFlag().default([1, 2, 3, 4, 5]),
      updates: listFlag(z.enum(["ekf", "adf", "laplace"])).default(["ekf", "adf", "laplace"]),
      strategies: listFlag(z.enum(["accuracy", "lookahead", "random"])).default(["accuracy", "random"]),
      "random-orders": seedsFlag(5),
      cap: positiveIntFlag().default(300),
    })
    .strict(),
);
const updates: Update[] = values.updates;
const strategies = values.strategies;
const cap = values.cap;

type Update = "ekf" | "adf" | "laplace";
const LAMBDA2 = Math.PI / 8;

/** phi(u) / Phi(u), with the asymptotic series far in the lower tail. */
function inverseMillsRatio(u: number): number {
  if (u < -8) {
    const x = -u;
    return x / (1 - 1 / (x * x) + 3 / x ** 4);
  }
  return Math.exp(-0.5 * u * u) / Math.sqrt(2 * Math.PI) / (0.5 * erfc(-u / Math.SQRT2));
}

/** Complementary error function (Chebyshev fit, relative error < 1.2e-7). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const poly =
    -z * z -
    1.26551223 +
    t *
      (1.00002368 +
        t *
          (0.37409196 +
            t *
              (0.09678418 +
                t *
                  (-0.18628806 +
                    t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const r = t * Math.exp(poly);
  return x >= 0 ? r : 2 - r;
}

/**
 * A rank-1 step for an answer y to an item whose logit has posterior moments (m, s2):
 * mu += step * Sigma a, Sigma -= shrink * (Sigma a)(Sigma a)^T.
 */
function rankOneStep(update: "ekf" | "adf", m: number, s2: number, y: number): { step: number; shrink: number } {
  if (update === "ekf") {
    const p = sigmoid(m);
    const w = p * (1 - p);
    return { step: (y - p) / (1 + w * s2), shrink: w / (1 + w * s2) };
  }
  // ADF: d log Z / dm and d^2 log Z / dm^2 of Z = E[Phi(lambda z)^y Phi(-lambda z)^(1-y)] (graded y as a tempered mix)
  const scale = Math.sqrt(1 + LAMBDA2 * s2);
  const lambda = Math.sqrt(LAMBDA2);
  let d1 = 0;
  let d2 = 0;
  for (const [sign, weight] of [
    [1, y],
    [-1, 1 - y],
  ] as const) {
    if (weight === 0) continue;
    const u = (sign * lambda * m) / scale;
    const r = inverseMillsRatio(u);
    d1 += (weight * sign * lambda * r) / scale;
    d2 -= (weight * LAMBDA2 * r * (u + r)) / (scale * scale);
  }
  return { step: d1, shrink: -d2 };
}

/** Mean and covariance of one new model's ability with the logit moments of a fixed item set kept current. */
class Filter {
  readonly mu: Float64Array;
  readonly cov: Float64Array;
  constructor(
    readonly d: number,
    mu0: Float64Array,
    cov0: Float64Array,
  ) {
    this.mu = Float64Array.from(mu0);
    this.cov = Float64Array.from(cov0);
  }
  moments(alphas: Float32Array, betas: Float32Array): { m: Float64Array; s2: Float64Array } {
    const { d } = this;
    const n = betas.length;
    const m = new Float64Array(n);
    const s2 = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let z = -betas[i]!;
      let q = 0;
      for (let r = 0; r < d; r++) {
        const ar = alphas[i * d + r]!;
        z += ar * this.mu[r]!;
        let t = 0;
        for (let c = 0; c < d; c++) t += this.cov[r * d + c]! * alphas[i * d + c]!;
        q += ar * t;
      }
      m[i] = z;
      s2[i] = q;
    }
    return { m, s2 };
  }
}

const { tf } = await getTf();
const ds = await loadDataset(values.dataset);
const split = splitIndices(
  ds.name,
  ds.items.map((it) => it.id),
);
const emb = await embeddingsFor(ds, (s) => process.stderr.write(`${s}\n`));
const rows: { update: Update; strategy: string; pair: string; probes: number; at100: number }[] = [];

for (const seed of values.seeds) {
  const w = await validationWorld(tf, ds, emb, split, values["leave-out"], seed, (s) => process.stderr.write(`${s}\n`));
  const known = [...w.knownTheta.entries()].map(([m, theta]) => ({ id: w.models[m]!, ability: theta }));
  const d = w.d;
  for (const m of w.heldOut) {
    const setup = calibrationSetup(w, m, seed, 2000);
    const prior = new OnlineLearner(known, {}).addModel("new"); // the new-model prior, as calibration starts from it
    const mu0 = Float64Array.from(prior.mean);
    const cov0 = Float64Array.from(prior.covariance);
    const precision0 = inverseFromCholesky(cholesky(Float64Array.from(cov0), d).L, d);
    const bank = setup.bank;
    const nb = bank.ids.length;
    const line: string[] = [];
    for (const update of updates) {
      for (const strategy of strategies) {
        const orders = strategy === "random" ? values["random-orders"] : 1;
        const counts: number[] = [];
        for (let o = 0; o < orders; o++) {
          const f = new Filter(d, mu0, cov0);
          let b = f.moments(bank.alphas, bank.betas);
          let t = f.moments(setup.testAlphas, setup.testBetas);
          const order = shuffledIndices(nb, seed * 101 + m + 7777 * o);
          const asked = new Uint8Array(nb);
          const answered: [number, number][] = [];
          let first = -1;
          let at100 = NaN;
          const check = (k: number) => {
            let s = 0;
            for (let i = 0; i < t.m.length; i++) s += predictiveP(t.m[i]!, t.s2[i]!);
            const err = Math.abs(s / t.m.length - setup.trueAcc);
            if (first < 0 && err <= 0.03) first = k;
            if (k === 100) at100 = err;
          };
          check(0);
          for (let k = 1; k <= Math.min(cap, nb); k++) {
            const next =
              strategy === "random"
                ? order[k - 1]!
                : strategy === "lookahead"
                  ? lookahead(f, bank.alphas, b, asked, 20)
                  : accuracyTargeted(f, bank.alphas, b, asked);
            asked[next] = 1;
            const y = setup.label.get(Number(bank.ids[next]))!;
            if (update === "laplace") {
              answered.push([next, y]);
              laplaceAtMode(f, precision0, mu0, bank.alphas, bank.betas, answered);
              b = f.moments(bank.alphas, bank.betas);
              t = f.moments(setup.testAlphas, setup.testBetas);
            } else {
              const { step, shrink } = rankOneStep(update, b.m[next]!, b.s2[next]!, y);
              const v = new Float64Array(d);
              for (let r = 0; r < d; r++)
                for (let c = 0; c < d; c++) v[r] += f.cov[r * d + c]! * bank.alphas[next * d + c]!;
              for (let r = 0; r < d; r++) {
                f.mu[r] += step * v[r]!;
                for (let c = 0; c < d; c++) f.cov[r * d + c] -= shrink * v[r]! * v[c]!;
              }
              for (const [set, A] of [
                [b, bank.alphas],
                [t, setup.testAlphas],
              ] as const) {
                for (let i = 0; i < set.m.length; i++) {
                  let av = 0;
                  for (let c = 0; c < d; c++) av += A[i * d + c]! * v[c]!;
                  set.m[i] += step * av;
                  set.s2[i] = Math.max(0, set.s2[i]! - shrink * av * av);
                }
              }
            }
            check(k);
            if (first >= 0 && k >= 100) break;
          }
          const probes = first < 0 ? cap + 1 : first;
          counts.push(probes);
          rows.push({ update, strategy, pair: `${seed}:${m}`, probes, at100 });
        }
        line.push(`${update}/${strategy} ${counts.join(",")}`);
      }
    }
    process.stderr.write(
      `seed ${seed} ${w.models[m]} (val acc ${(100 * setup.trueAcc).toFixed(1)}): ${line.join("  ")}\n`,
    );
  }
}

console.log(`seeds ${values.seeds}; target: validation accuracy within 3 points; cap ${cap}`);
const variants = updates.flatMap((update) => strategies.map((strategy) => ({ update, strategy })));
for (const update of updates) {
  for (const strategy of strategies) {
    const r = rows.filter((x) => x.update === update && x.strategy === strategy);
    console.log(
      `${`${update}/${strategy}`.padEnd(18)} median probes ${median(r.map((x) => x.probes))}  mean error@100 ${(100 * mean(r.map((x) => x.at100))).toFixed(2)}  (n=${r.length})`,
    );
  }
}

/** The library's default rule: the unasked probe with the most information about the predicted bank accuracy. */
function accuracyTargeted(
  f: Filter,
  alphas: Float32Array,
  b: { m: Float64Array; s2: Float64Array },
  asked: Uint8Array,
): number {
  const scores = myopicScores(f, alphas, b.m, b.s2, asked);
  let best = -Infinity;
  let next = -1;
  for (let i = 0; i < scores.length; i++) {
    if (!asked[i] && scores[i]! > best) {
      best = scores[i]!;
      next = i;
    }
  }
  return next;
}

/**
 * Non-myopic ("lookahead") rule: among the `width` best probes of the default rule, the one that minimises the
 * EXPECTED Var(A) after it AND the best second probe, over both answers (weighted by the predictive p), each
 * answer absorbed by the EKF step. (The default rule is the one-step version of this.)
 */
function lookahead(
  f: Filter,
  alphas: Float32Array,
  b: { m: Float64Array; s2: Float64Array },
  asked: Uint8Array,
  width: number,
): number {
  const { d } = f;
  const n = b.m.length;
  const first = myopicScores(f, alphas, b.m, b.s2, asked);
  const shortlist = [...first.keys()]
    .filter((i) => !asked[i])
    .sort((x, y) => first[y]! - first[x]!)
    .slice(0, width);
  let best = -1;
  let bestValue = Infinity;
  for (const i of shortlist) {
    const v = new Float64Array(d);
    for (let r = 0; r < d; r++) for (let c = 0; c < d; c++) v[r] += f.cov[r * d + c]! * alphas[i * d + c]!;
    const av = new Float64Array(n);
    for (let j = 0; j < n; j++) for (let c = 0; c < d; c++) av[j] += alphas[j * d + c]! * v[c]!;
    const p = predictiveP(b.m[i]!, b.s2[i]!);
    let expected = 0;
    for (const y of [0, 1]) {
      const { step, shrink } = rankOneStep("ekf", b.m[i]!, b.s2[i]!, y);
      const m2 = Float64Array.from(b.m, (m, j) => m + step * av[j]!);
      const s22 = Float64Array.from(b.s2, (s2, j) => Math.max(0, s2 - shrink * av[j]! * av[j]!));
      // the state after this answer, as a Filter view: Sigma' = Sigma - shrink v v^T
      const after = new Filter(d, f.mu, f.cov);
      for (let r = 0; r < d; r++) for (let c = 0; c < d; c++) after.cov[r * d + c] -= shrink * v[r]! * v[c]!;
      const askedAfter = Uint8Array.from(asked);
      askedAfter[i] = 1;
      const second = myopicScores(after, alphas, m2, s22, askedAfter);
      let bestSecond = 0;
      for (let j = 0; j < n; j++) if (!askedAfter[j] && second[j]! > bestSecond) bestSecond = second[j]!;
      expected += (y === 1 ? p : 1 - p) * (accuracyVariance(after, alphas, m2, s22) - bestSecond);
    }
    if (expected < bestValue) {
      bestValue = expected;
      best = i;
    }
  }
  return best;
}

/** g = sum_i p_i (1 - p_i) alpha_i over the bank (the gradient of its predicted accuracy, unnormalised). */
function accuracyGradient(d: number, alphas: Float32Array, m: Float64Array, s2: Float64Array): Float64Array {
  const g = new Float64Array(d);
  for (let i = 0; i < m.length; i++) {
    const p = predictiveP(m[i]!, s2[i]!);
    for (let k = 0; k < d; k++) g[k] += p * (1 - p) * alphas[i * d + k]!;
  }
  return g;
}

/** g^T Sigma g (the delta-method variance of the predicted bank accuracy, unnormalised). */
function accuracyVariance(f: Filter, alphas: Float32Array, m: Float64Array, s2: Float64Array): number {
  const { d } = f;
  const g = accuracyGradient(d, alphas, m, s2);
  let v = 0;
  for (let r = 0; r < d; r++) for (let c = 0; c < d; c++) v += g[r]! * f.cov[r * d + c]! * g[c]!;
  return v;
}

/** The default rule's score of every probe: the reduction of g^T Sigma g its answer brings (0 for asked ones). */
function myopicScores(
  f: Filter,
  alphas: Float32Array,
  m: Float64Array,
  s2: Float64Array,
  asked: Uint8Array,
): Float64Array {
  const { d } = f;
  const g = accuracyGradient(d, alphas, m, s2);
  const u = new Float64Array(d);
  for (let r = 0; r < d; r++) for (let c = 0; c < d; c++) u[r] += f.cov[r * d + c]! * g[c]!;
  const scores = new Float64Array(m.length);
  for (let i = 0; i < m.length; i++) {
    if (asked[i]) continue;
    const p = predictiveP(m[i]!, s2[i]!);
    const w = p * (1 - p);
    let c = 0;
    for (let k = 0; k < d; k++) c += alphas[i * d + k]! * u[k]!;
    scores[i] = (w * c * c) / (1 + w * s2[i]!);
  }
  return scores;
}

/** Newton from the current mean to the MAP of prior + answers; the covariance is the inverse Hessian there. */
function laplaceAtMode(
  f: Filter,
  precision0: Float64Array,
  mu0: Float64Array,
  alphas: Float32Array,
  betas: Float32Array,
  answered: readonly [number, number][],
): void {
  const { d } = f;
  const hessianAt = (gradient?: Float64Array) => {
    const H = Float64Array.from(precision0);
    if (gradient)
      for (let r = 0; r < d; r++)
        for (let c = 0; c < d; c++) gradient[r] += precision0[r * d + c]! * (mu0[c]! - f.mu[c]!);
    for (const [i, y] of answered) {
      let z = -betas[i]!;
      for (let k = 0; k < d; k++) z += alphas[i * d + k]! * f.mu[k]!;
      const p = sigmoid(z);
      const w = p * (1 - p);
      for (let r = 0; r < d; r++) {
        const ar = alphas[i * d + r]!;
        if (gradient) gradient[r] += (y - p) * ar;
        for (let c = 0; c < d; c++) H[r * d + c] += w * ar * alphas[i * d + c]!;
      }
    }
    return H;
  };
  for (let iter = 0; iter < 20; iter++) {
    const gradient = new Float64Array(d);
    const step = choleskySolve(cholesky(hessianAt(gradient), d).L, d, gradient);
    let norm = 0;
    for (let k = 0; k < d; k++) {
      f.mu[k] += step[k]!;
      norm += step[k]! * step[k]!;
    }
    if (Math.sqrt(norm) < 1e-7) break;
  }
  inverseFromCholesky(cholesky(hessianAt(), d).L, d, f.cov);
}

// Paired differences against the first (update, rule): mean over (seed, model) pairs (random orders averaged
// within a pair), with a 95% bootstrap interval over the pairs.
const base = variants[0]!;
const perPair = (v: { update: Update; strategy: string }, key: "probes" | "at100") => {
  const out = new Map<string, number[]>();
  for (const r of rows)
    if (r.update === v.update && r.strategy === v.strategy) out.set(r.pair, [...(out.get(r.pair) ?? []), r[key]]);
  return new Map([...out].map(([k, xs]) => [k, mean(xs)]));
};
for (const v of variants.slice(1)) {
  const parts = (["probes", "at100"] as const).map((key) => {
    const a = perPair(base, key);
    const b = perPair(v, key);
    const diffs = [...a.keys()].map((k) => b.get(k)! - a.get(k)!);
    const rng = seededRng(7);
    const stats = Array.from({ length: 2000 }, () =>
      mean(diffs.map(() => diffs[Math.floor(rng.next() * diffs.length)]!)),
    ).sort((x, y) => x - y);
    const scale = key === "at100" ? 100 : 1;
    return `${key === "probes" ? "probes" : "error@100 (points)"} ${(scale * mean(diffs)).toFixed(2)} [${(scale * stats[49]!).toFixed(2)}, ${(scale * stats[1949]!).toFixed(2)}]`;
  });
  console.log(
    `${v.update}/${v.strategy} minus ${base.update}/${base.strategy}, mean over ${perPair(base, "probes").size} pairs: ${parts.join("; ")}`,
  );
}
