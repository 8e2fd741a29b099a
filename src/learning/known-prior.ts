/**
 * Fitting the prior of a catalogued model on training data (empirical Bayes over workloads).
 *
 * A known model enters the learner at N(theta_pretrained, s * Sigma_pop): its ability on a user's
 * workload differs from its benchmark ability by a shift of covariance s * Sigma_pop. The scale s is
 * fitted on training labels grouped by workload (a dataset's categories: subjects, tasks): each
 * (model, category) group has its own ability theta_mc ~ N(theta_m, s Sigma_pop), and s maximises the
 * Laplace approximation of the marginal likelihood of all groups' labels,
 *
 *     log Z_g(s) = sum_i [y_i log p_i + (1 - y_i) log(1 - p_i)] - delta' Lambda delta / (2 s)
 *                  - (d log s + log|Sigma_pop|) / 2 - log|H| / 2,
 *
 * at the group's MAP theta* = theta_m + delta, with p_i = sigmoid(alpha_i . theta* - beta_i) and
 * H = Lambda / s + sum_i p_i (1 - p_i) alpha_i alpha_i^T (Lambda = Sigma_pop^{-1}). Graded labels enter
 * as soft targets (the same quasi-likelihood the scorer trains on; each graded label counts as one Bernoulli trial). The search is a log-spaced grid over
 * [1e-3, 10] (12 steps) refined by golden section (about +-4% in s); the top end leaves room for s > 1, a
 * workload shift larger than the spread between models, which the pretrained scorer's training data shows. Caveat: theta_m was fitted on the same labels (all
 * categories pooled), so s is, if anything, slightly underestimated. Pure: no I/O.
 */
import { cholesky, choleskySolve } from "./linalg.js";
import { logSigmoid, sigmoid } from "../util/maths.js";
import { DEFAULT_SHRINKAGE, populationPrior } from "./prior.js";

/** The labels of one model on one workload (category). */
export interface WorkloadGroup {
  /** The model's pretrained ability (the prior mean of the group's ability). */
  readonly ability: ArrayLike<number>;
  /** Item indices into the fit's `alphas` (n x dim row-major) and `betas`. */
  readonly items: ArrayLike<number>;
  /** The model's label on each item, in [0, 1]. */
  readonly y: ArrayLike<number>;
}

export interface KnownScaleFitArgs {
  readonly dim: number;
  readonly alphas: Float32Array;
  readonly betas: Float32Array;
  /** The population covariance the scale multiplies (d x d, symmetric positive definite). */
  readonly covariance: ArrayLike<number>;
  readonly groups: readonly WorkloadGroup[];
  /** Search range of s (default [1e-3, 10]). */
  readonly range?: readonly [number, number];
}

/** Result of {@link fitKnownScale}. */
export interface KnownScaleFit {
  /** The fitted fraction of the population covariance. */
  readonly scale: number;
  /** Total log evidence at `scale`. */
  readonly logEvidence: number;
  /** The grid the search started from: (scale, total log evidence). */
  readonly curve: readonly { readonly scale: number; readonly logEvidence: number }[];
  /** True when the maximum is at an end of the search range (the true optimum may lie beyond it). */
  readonly atBoundary: boolean;
  readonly groups: number;
  readonly labels: number;
  /** Group evaluations whose Newton iteration hit its cap (evaluated at the last iterate); 0 in a healthy fit. */
  readonly unconverged: number;
}

/**
 * Empirical-Bayes fit of the known-model prior scale (see the module comment).
 *
 * @example
 * ```ts
 * const fit = fitKnownScale({ dim, alphas, betas, covariance: population.covariance, groups });
 * const learner = new OnlineLearner(known, { knownScale: fit.scale });
 * ```
 */
export function fitKnownScale(args: KnownScaleFitArgs): KnownScaleFit {
  const [lo, hi] = args.range ?? [1e-3, 10];
  if (!(lo > 0 && hi > lo)) throw new RangeError(`fitKnownScale: range must satisfy 0 < lo < hi, got [${lo}, ${hi}]`);
  const labels = checkGroups(args);
  const evidence = new WorkloadEvidence(args);
  const search = maximiseOnLogScale((s) => evidence.total(s), lo, hi);
  return { ...search, groups: args.groups.length, labels, unconverged: evidence.unconverged };
}

/** Checks the fit's inputs; returns the number of labels. */
function checkGroups(args: KnownScaleFitArgs): number {
  const { dim: d, alphas, betas, groups } = args;
  if (groups.length === 0) throw new RangeError("fitKnownScale: no workload groups to fit on");
  if (args.covariance.length !== d * d)
    throw new RangeError(`fitKnownScale: covariance has ${args.covariance.length} entries, expected ${d * d}`);
  if (alphas.length !== betas.length * d)
    throw new RangeError(`fitKnownScale: alphas has ${alphas.length} entries, expected ${betas.length} x ${d}`);
  let labels = 0;
  for (const [g, grp] of groups.entries()) {
    if (grp.ability.length !== d)
      throw new RangeError(`fitKnownScale: group ${g} ability has length ${grp.ability.length}, expected ${d}`);
    if (grp.items.length !== grp.y.length)
      throw new RangeError(`fitKnownScale: group ${g} has ${grp.items.length} items but ${grp.y.length} labels`);
    for (let t = 0; t < grp.items.length; t++) {
      const i = grp.items[t]!;
      if (!Number.isInteger(i) || i < 0 || i >= betas.length)
        throw new RangeError(
          `fitKnownScale: group ${g} item ${t} is ${i}, expected an integer in [0, ${betas.length})`,
        );
      const y = grp.y[t]!;
      if (!(y >= 0 && y <= 1))
        throw new RangeError(`fitKnownScale: group ${g} label ${t} is ${y}, expected a number in [0, 1]`);
    }
    for (let k = 0; k < d; k++)
      if (!Number.isFinite(grp.ability[k]!))
        throw new RangeError(`fitKnownScale: group ${g} ability[${k}] is not finite`);
    labels += grp.items.length;
  }
  return labels;
}

/**
 * The total Laplace log evidence of all groups at a prior scale s. Holds the population precision Lambda, the
 * scratch buffers of the Newton iterations, and each group's last MAP shift as the warm start of the next
 * evaluation (nearby s).
 */
class WorkloadEvidence {
  /** Group evaluations whose Newton iteration hit its cap. */
  unconverged = 0;
  private readonly d: number;
  private readonly Lambda: Float64Array;
  private readonly logDetSigma: number;
  private readonly shifts: Float64Array[];
  private readonly H: Float64Array;
  private readonly grad: Float64Array;
  private readonly theta: Float64Array;
  private readonly row: Float64Array;

  constructor(private readonly args: KnownScaleFitArgs) {
    const d = args.dim;
    this.d = d;
    const { L: LSigma } = cholesky(Float64Array.from(args.covariance), d);
    let logDetSigma = 0;
    for (let k = 0; k < d; k++) logDetSigma += 2 * Math.log(LSigma[k * d + k]!);
    this.logDetSigma = logDetSigma;
    this.Lambda = new Float64Array(d * d);
    const e = new Float64Array(d);
    for (let c = 0; c < d; c++) {
      e.fill(0);
      e[c] = 1;
      const col = choleskySolve(LSigma, d, e);
      for (let r = 0; r < d; r++) this.Lambda[r * d + c] = col[r]!;
    }
    this.shifts = args.groups.map(() => new Float64Array(d));
    this.H = new Float64Array(d * d);
    this.grad = new Float64Array(d);
    this.theta = new Float64Array(d);
    this.row = new Float64Array(d);
  }

  total(s: number): number {
    let total = 0;
    for (const [g, grp] of this.args.groups.entries()) total += this.group(grp, this.shifts[g]!, s);
    return total;
  }

  /**
   * Log-likelihood and gradient of the group's log posterior at ability + delta; with `withHessian`, also the
   * negative Hessian into H (lower triangle accumulated, then mirrored).
   */
  private pass(grp: WorkloadGroup, delta: Float64Array, s: number, withHessian: boolean): number {
    const { d, Lambda, H, grad, theta, row } = this;
    const { alphas, betas } = this.args;
    for (let k = 0; k < d; k++) theta[k] = grp.ability[k]! + delta[k]!;
    for (let r = 0; r < d; r++) {
      let v = 0;
      for (let c = 0; c < d; c++) {
        if (withHessian) H[r * d + c] = Lambda[r * d + c]! / s;
        v += Lambda[r * d + c]! * delta[c]!;
      }
      grad[r] = -v / s;
    }
    let ll = 0;
    for (let t = 0; t < grp.items.length; t++) {
      const i = grp.items[t]!;
      const off = i * d;
      let z = -betas[i]!;
      for (let k = 0; k < d; k++) {
        const v = alphas[off + k]!;
        row[k] = v;
        z += v * theta[k]!;
      }
      const y = grp.y[t]!;
      ll += y * logSigmoid(z) + (1 - y) * logSigmoid(-z);
      const p = sigmoid(z);
      const res = y - p;
      for (let r = 0; r < d; r++) grad[r] += res * row[r]!;
      if (withHessian) {
        const w = p * (1 - p);
        for (let r = 0, base = 0; r < d; r++, base += d) {
          const war = w * row[r]!;
          for (let c = 0; c <= r; c++) H[base + c] += war * row[c]!;
        }
      }
    }
    if (withHessian) for (let r = 0; r < d; r++) for (let c = 0; c < r; c++) H[c * d + r] = H[r * d + c]!;
    return ll;
  }

  private normOf(v: Float64Array): number {
    let sq = 0;
    for (let k = 0; k < this.d; k++) sq += v[k]! * v[k]!;
    return Math.sqrt(sq);
  }

  /** delta += step; returns |step|. */
  private applyStep(step: Float64Array, delta: Float64Array): number {
    for (let k = 0; k < this.d; k++) delta[k] += step[k]!;
    return this.normOf(step);
  }

  /**
   * The group's Laplace log evidence at prior scale s. Newton with a frozen Hessian between rebuilds (the
   * O(n d^2) Hessian is built about twice per call, the O(n d) gradient as often as needed); converged when a
   * full Newton step is below 1e-4, so the evidence uses the Hessian at the MAP.
   */
  private group(grp: WorkloadGroup, delta: Float64Array, s: number): number {
    const { d, H, grad } = this;
    let ll = 0;
    let LH: Float64Array = H;
    let converged = false;
    for (let outer = 0; outer < 20 && !converged; outer++) {
      ll = this.pass(grp, delta, s, true);
      LH = cholesky(H, d).L;
      const step = choleskySolve(LH, d, grad);
      // Converged: ll and the Hessian were just computed at delta, which is within 1e-4 of the MAP.
      if (this.normOf(step) < 1e-4) converged = true;
      else {
        this.applyStep(step, delta);
        for (let inner = 0; inner < 10; inner++) {
          this.pass(grp, delta, s, false);
          if (this.applyStep(choleskySolve(LH, d, grad), delta) < 1e-5) break;
        }
      }
    }
    if (!converged) {
      // Iteration cap: evaluate at the last iterate so likelihood, Hessian and prior term refer to one point.
      this.unconverged++;
      ll = this.pass(grp, delta, s, true);
      LH = cholesky(H, d).L;
    }
    return this.logEvidence(ll, delta, s, LH);
  }

  /** ll - delta' Lambda delta / (2 s) - (d log s + log|Sigma_pop|) / 2 - log|H| / 2, with H given by its Cholesky factor. */
  private logEvidence(ll: number, delta: Float64Array, s: number, LH: Float64Array): number {
    const { d, Lambda } = this;
    let quad = 0;
    for (let r = 0; r < d; r++) {
      let v = 0;
      for (let c = 0; c < d; c++) v += Lambda[r * d + c]! * delta[c]!;
      quad += delta[r]! * v;
    }
    let logDetH = 0;
    for (let k = 0; k < d; k++) logDetH += 2 * Math.log(LH[k * d + k]!);
    return ll - quad / (2 * s) - 0.5 * (d * Math.log(s) + this.logDetSigma) - 0.5 * logDetH;
  }
}

/**
 * Maximises `evidence` over [lo, hi]: a 12-step log-spaced grid, then (unless the best grid point is at an end)
 * six golden-section steps on log s between the best grid point's neighbours.
 */
function maximiseOnLogScale(
  evidence: (s: number) => number,
  lo: number,
  hi: number,
): Pick<KnownScaleFit, "scale" | "logEvidence" | "curve" | "atBoundary"> {
  const steps = 12;
  const grid = Array.from({ length: steps + 1 }, (_, k) =>
    Math.exp(Math.log(lo) + (k / steps) * (Math.log(hi) - Math.log(lo))),
  );
  const curve = grid.map((s) => ({ scale: s, logEvidence: evidence(s) }));
  let best = 0;
  for (let k = 1; k < curve.length; k++) if (curve[k]!.logEvidence > curve[best]!.logEvidence) best = k;
  const atBoundary = best === 0 || best === curve.length - 1;
  let scale = curve[best]!.scale;
  let logEvidence = curve[best]!.logEvidence;
  if (!atBoundary) {
    const [x, f] = goldenSection(evidence, Math.log(curve[best - 1]!.scale), Math.log(curve[best + 1]!.scale));
    if (f > logEvidence) {
      scale = Math.exp(x);
      logEvidence = f;
    }
  }
  return { scale, logEvidence, curve, atBoundary };
}

/** Six golden-section steps maximising `evidence(exp(x))` over x in [a, b]; returns the better final point. */
function goldenSection(evidence: (s: number) => number, a: number, b: number): [number, number] {
  const r = (Math.sqrt(5) - 1) / 2;
  let x1 = b - r * (b - a);
  let x2 = a + r * (b - a);
  let f1 = evidence(Math.exp(x1));
  let f2 = evidence(Math.exp(x2));
  for (let it = 0; it < 6; it++) {
    if (f1 > f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - r * (b - a);
      f1 = evidence(Math.exp(x1));
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + r * (b - a);
      f2 = evidence(Math.exp(x2));
    }
  }
  return f1 > f2 ? [x1, f1] : [x2, f2];
}

/**
 * The known-model prior a learner needs: catalogued models start at N(theta, scale x the population covariance
 * shrunk by `shrinkage`).
 */
export interface KnownPrior {
  readonly scale: number;
  readonly shrinkage: number;
}

/** What a scorer artifact records about its fitted known-model prior (manifest `knownPrior`). */
export interface KnownPriorRecord extends KnownPrior {
  /** How it was fitted. */
  readonly method: string;
  readonly groups: number;
  readonly labels: number;
  readonly atBoundary: boolean;
  readonly curve: readonly { readonly scale: number; readonly logEvidence: number }[];
  /** Group evaluations whose Newton iteration hit its cap (0 in a healthy fit). */
  readonly unconverged?: number;
  /**
   * The same fit on each training dataset's groups alone (artifacts trained on several datasets), for a user
   * whose workload resembles one of them: `OnlineLearner.forScorer(scorer, { knownScale: byDataset[name].scale })`.
   */
  readonly byDataset?: Readonly<
    Record<
      string,
      { readonly scale: number; readonly atBoundary: boolean; readonly groups: number; readonly labels: number }
    >
  >;
}

/**
 * Fits the known-model prior scale of a trained scorer on its training labels: one workload group per
 * (model, category) over `rows` (the train split), category from `groupOf(row)` (rows without one are not
 * part of the fit). Alphas and betas are the scorer's item parameters with its temperature folded in (what the
 * learner sees); `abilities[m]` is model m's ability row, and models without one (undefined) are left out of
 * both the groups and the population covariance. Undefined when no row has a category.
 *
 * @example
 * ```ts
 * const abilities = models.map((_, m) => theta.subarray(m * dim, (m + 1) * dim));
 * const record = fitKnownPriorOnTraining({ dim, alphas, betas, abilities, labels, rows: split.train, groupOf: (i) => items[i].category });
 * ```
 */
export function fitKnownPriorOnTraining(args: {
  readonly dim: number;
  readonly alphas: Float32Array;
  readonly betas: Float32Array;
  readonly abilities: readonly (ArrayLike<number> | undefined)[];
  readonly labels: { readonly offsets: Int32Array; readonly model: Int32Array; readonly y: Float32Array };
  readonly rows: readonly number[];
  readonly groupOf: (row: number) => string | undefined;
  readonly shrinkage?: number;
}): KnownPriorRecord | undefined {
  const { dim: d, abilities, labels } = args;
  const shrinkage = args.shrinkage ?? DEFAULT_SHRINKAGE;
  const byKey = new Map<string, { ability: ArrayLike<number>; items: number[]; y: number[] }>();
  for (const i of args.rows) {
    const category = args.groupOf(i);
    if (category === undefined) continue;
    for (let j = labels.offsets[i]!; j < labels.offsets[i + 1]!; j++) {
      const m = labels.model[j]!;
      const ability = abilities[m];
      if (!ability) continue;
      const key = `${m}\u0000${category}`;
      let g = byKey.get(key);
      if (!g) byKey.set(key, (g = { ability, items: [], y: [] }));
      g.items.push(i);
      g.y.push(labels.y[j]!);
    }
  }
  if (byKey.size === 0) return undefined;
  const population = populationPrior(
    abilities.filter((a): a is ArrayLike<number> => a !== undefined),
    { shrinkage },
  );
  const fit = fitKnownScale({
    dim: d,
    alphas: args.alphas,
    betas: args.betas,
    covariance: population.covariance,
    groups: [...byKey.values()],
  });
  return {
    scale: fit.scale,
    shrinkage,
    method: "Laplace evidence over (model, category) groups of the train split; see src/learning/known-prior.ts",
    groups: fit.groups,
    labels: fit.labels,
    atBoundary: fit.atBoundary,
    curve: fit.curve,
    unconverged: fit.unconverged,
  };
}
