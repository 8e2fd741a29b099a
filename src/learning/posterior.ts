/**
 * Gaussian posterior over one model's ability vector theta ~ N(mu, Sigma), updated online from
 * logistic (IRT) outcomes p(correct) = sigmoid(alpha . theta - beta).
 *
 * State is kept in NATURAL parameters, split into a fixed prior part and a data part:
 *
 *     Lambda = Lambda0 + D,   eta = eta0 + e,   mu = Lambda^{-1} eta,  Sigma = Lambda^{-1}
 *
 * Each outcome adds a Laplace/EKF term for the logistic likelihood, linearised at the CURRENT
 * posterior mean mu (the extended-Kalman-filter choice): with z0 = alpha . mu - beta,
 * p0 = sigmoid(z0), w = weight * p0 (1 - p0),
 *
 *     D += w alpha alpha^T,   e += alpha * (weight * (y - p0) + w * (alpha . mu)).
 *
 * Terms add, so two events commute exactly except through their linearisation point; the test
 * suite bounds the order effect (see docs/online.md). Moments are kept in step by a
 * Sherman-Morrison rank-1 update (O(d^2) per event) and recomputed from the natural parameters
 * by Cholesky every `refreshEvery` updates (and after every decay), so rounding cannot drift.
 *
 * Forgetting multiplies the data part by a factor in (0, 1]: precision decays toward the prior and
 * the mean relaxes toward the prior mean, so the posterior can follow a drifting ability.
 *
 * Above {@link FULL_COVARIANCE_MAX_DIM} dimensions the default is a diagonal posterior (precision
 * and eta per coordinate, alpha alpha^T replaced by its diagonal): O(d) per update.
 */
import { FeedbackError } from "../errors.js";
import { cholesky, choleskySolve, dot, inverseFromCholesky, matVec, quadForm } from "./linalg.js";
import { sigmoid } from "../util/maths.js";

/** Largest ability dimension for which the default covariance is full. */
export const FULL_COVARIANCE_MAX_DIM = 64;

export type CovarianceMode = "full" | "diagonal";

/** A Gaussian prior N(mean, covariance); covariance is d x d row-major (symmetric positive definite). */
export interface GaussianPrior {
  readonly mean: ArrayLike<number>;
  readonly covariance: ArrayLike<number>;
}

export interface PosteriorOptions {
  /** "full" (default for d <= 64) or "diagonal" (default above). */
  readonly mode?: CovarianceMode;
  /** Recompute the moments from the natural parameters every this many updates (default 64). */
  readonly refreshEvery?: number;
}

/** Serialisable state of an {@link AbilityPosterior} (plain arrays, JSON-safe). */
export interface PosteriorState {
  readonly version: 1;
  readonly dim: number;
  readonly mode: CovarianceMode;
  readonly priorMean: number[];
  /** Full: d*d row-major precision; diagonal: d precisions. */
  readonly priorPrecision: number[];
  readonly dataPrecision: number[];
  readonly dataEta: number[];
  /** Sum of event weights, decayed like the data part. */
  readonly evidence: number;
}

/** Mean and variance of the logit z = alpha . theta - beta under the posterior. */
export interface LogitMoments {
  readonly mean: number;
  readonly variance: number;
}

/**
 * Observer of rank-1 moment changes (used by {@link ItemTracker} to keep per-item predictions current
 * in O(d) per item per update instead of O(d^2)). Not marked internal: the public {@link ItemTracker} implements it.
 */
export interface PosteriorListener {
  /** mu' = mu + step * v, Sigma' = Sigma - shrink * v v^T. */
  rankOne(v: Float64Array, step: number, shrink: number): void;
  /** Moments changed in a way that is not rank-1 (refresh, decay, diagonal update). */
  invalidate(): void;
}

/** The logistic function (defined in src/util/maths.ts; re-exported for the learner). */
export { sigmoid };

/**
 * Probit approximation of E[sigmoid(z)] for z ~ N(mean, variance): sigmoid(mean / sqrt(1 + pi variance / 8)).
 *
 * @example
 * ```ts
 * predictiveP(0, 0); // 0.5
 * predictiveP(2, 4) < sigmoid(2); // true: uncertainty pulls p toward 0.5
 * ```
 */
export function predictiveP(mean: number, variance: number): number {
  return sigmoid(mean / Math.sqrt(1 + (Math.PI * Math.max(0, variance)) / 8));
}

/**
 * Online Gaussian posterior over one model's ability vector.
 *
 * @example
 * ```ts
 * const d = 2;
 * const post = new AbilityPosterior({ mean: [0, 0], covariance: [1, 0, 0, 1] });
 * post.update(new Float32Array([1, 0]), 0, 1); // answered an item of difficulty 0 correctly
 * post.mean[0] > 0; // true
 * post.predict(new Float32Array([1, 0]), 0); // predictive p, integrating over Sigma
 * ```
 */
export class AbilityPosterior {
  readonly dim: number;
  readonly mode: CovarianceMode;
  /** Posterior mean mu (read-only view; do not write). */
  readonly mean: Float64Array;
  /** Posterior covariance Sigma: d*d row-major (full) or d variances (diagonal). Read-only view. */
  readonly covariance: Float64Array;
  private readonly priorMean: Float64Array;
  private readonly priorPrecision: Float64Array;
  private readonly priorEta: Float64Array;
  private readonly dataPrecision: Float64Array;
  private readonly dataEta: Float64Array;
  private readonly refreshEvery: number;
  private sinceRefresh = 0;
  private evidenceSum = 0;
  private readonly v: Float64Array;
  private readonly listeners = new Set<PosteriorListener>();

  constructor(prior: GaussianPrior, options: PosteriorOptions = {}) {
    const d = prior.mean.length;
    if (d === 0) throw new RangeError("AbilityPosterior: the prior mean is empty");
    if (prior.covariance.length !== d * d) {
      throw new RangeError(
        `AbilityPosterior: prior covariance has ${prior.covariance.length} entries, expected ${d}x${d}=${d * d}`,
      );
    }
    this.dim = d;
    this.mode = options.mode ?? (d <= FULL_COVARIANCE_MAX_DIM ? "full" : "diagonal");
    this.refreshEvery = Math.max(1, Math.floor(options.refreshEvery ?? 64));
    const size = this.mode === "full" ? d * d : d;
    this.priorMean = Float64Array.from(prior.mean);
    this.priorPrecision = new Float64Array(size);
    this.priorEta = new Float64Array(d);
    this.dataPrecision = new Float64Array(size);
    this.dataEta = new Float64Array(d);
    this.mean = new Float64Array(d);
    this.covariance = new Float64Array(size);
    this.v = new Float64Array(d);
    if (this.mode === "full") {
      const { L } = cholesky(Float64Array.from(prior.covariance), d);
      inverseFromCholesky(L, d, this.priorPrecision);
      matVec(this.priorPrecision, d, this.priorMean, this.priorEta);
    } else {
      for (let i = 0; i < d; i++) {
        const variance = prior.covariance[i * d + i]!;
        if (!(variance > 0))
          throw new RangeError(`AbilityPosterior: prior variance of coordinate ${i} is ${variance}, must be > 0`);
        this.priorPrecision[i] = 1 / variance;
        this.priorEta[i] = this.priorMean[i]! / variance;
      }
    }
    this.refresh();
  }

  /** Sum of the weights of the events absorbed so far (decayed by forgetting). */
  get evidence(): number {
    return this.evidenceSum;
  }

  /**
   * Absorbs one outcome y in [0, 1] on an item (alpha, beta) with credit `weight` (>= 0; 0 is a no-op).
   * Linearised at the current mean (EKF); O(d^2) (full) or O(d) (diagonal).
   *
   * Atomic: when the update would make any number of the state non-finite (item parameters far too large),
   * it throws a {@link FeedbackError} (path `event`) and leaves the posterior as it was.
   */
  update(alpha: ArrayLike<number>, beta: number, y: number, weight = 1): void {
    const d = this.dim;
    const plan = this.plan(alpha, beta, y, weight);
    const { w, etaCoef } = plan;
    if (this.mode === "full") {
      const refreshNow = this.sinceRefresh + 1 >= this.refreshEvery;
      const backup = refreshNow ? this.saveData() : undefined;
      const P = this.dataPrecision;
      for (let i = 0; i < d; i++) {
        const ai = alpha[i]!;
        const wai = w * ai;
        const ri = i * d;
        for (let k = 0; k < d; k++) P[ri + k] += wai * alpha[k]!;
        this.dataEta[i] += etaCoef * ai;
      }
      this.evidenceSum += weight;
      if (backup) {
        let ok: boolean;
        try {
          this.refresh();
          ok = allFinite(this.mean) && allFinite(this.covariance);
        } catch {
          ok = false;
        }
        if (!ok) {
          this.restoreData(backup);
          throw nonFinite("the posterior's mean or covariance", { refresh: true });
        }
        return;
      }
      this.sinceRefresh++;
      // Sherman-Morrison: v = Sigma a; Sigma' = Sigma - w v v^T / (1 + w a^T v); mu' = mu + v g / (1 + w a^T v)
      const v = this.v;
      const { shrink, step } = plan;
      const S = this.covariance;
      const mu = this.mean;
      for (let i = 0; i < d; i++) {
        const svi = shrink * v[i]!;
        const ri = i * d;
        for (let k = 0; k < d; k++) S[ri + k] -= svi * v[k]!;
        mu[i] += step * v[i]!;
      }
      for (const l of this.listeners) l.rankOne(v, step, shrink);
    } else {
      for (let i = 0; i < d; i++) {
        const ai = alpha[i]!;
        this.dataPrecision[i] += w * ai * ai;
        this.dataEta[i] += etaCoef * ai;
      }
      this.evidenceSum += weight;
      this.refresh();
    }
  }

  /**
   * Throws the {@link FeedbackError} {@link AbilityPosterior.update} would throw for this outcome (a non-finite
   * intermediate), changing nothing. The refresh every `refreshEvery` updates is not simulated.
   * @internal
   */
  checkUpdate(alpha: ArrayLike<number>, beta: number, y: number, weight = 1): void {
    this.plan(alpha, beta, y, weight);
  }

  /**
   * The scalars of one update, checked to keep every number of the state finite (triangle bounds on each
   * entry that changes). Writes only the scratch vector `v` (full mode).
   */
  private plan(
    alpha: ArrayLike<number>,
    beta: number,
    y: number,
    weight: number,
  ): { w: number; etaCoef: number; shrink: number; step: number } {
    const d = this.dim;
    const am = dot(alpha, this.mean, d);
    const p0 = sigmoid(am - beta);
    const w = weight * p0 * (1 - p0);
    const g = weight * (y - p0);
    const etaCoef = g + w * am;
    let amax = 0;
    for (let i = 0; i < d; i++) amax = Math.max(amax, Math.abs(alpha[i]!));
    const scalars = { am, p0, w, g, etaCoef, amax, weight, beta, y };
    if (!(
      Number.isFinite(etaCoef) &&
      Number.isFinite(amax) &&
      Number.isFinite(w) &&
      Number.isFinite(beta) &&
      Number.isFinite(y)
    )) {
      const k = Object.entries(scalars).find(([, v]) => !Number.isFinite(v))?.[0] ?? "intermediates";
      throw nonFinite(`the update's ${k}`, scalars);
    }
    if (!Number.isFinite(this.evidenceSum + weight)) throw nonFinite("the posterior's evidence", scalars);
    if (!Number.isFinite(maxAbs(this.dataPrecision) + w * amax * amax))
      throw nonFinite("the posterior's precision", scalars);
    if (!Number.isFinite(maxAbs(this.dataEta) + Math.abs(etaCoef) * amax))
      throw nonFinite("the posterior's natural mean", scalars);
    if (this.mode !== "full" || this.sinceRefresh + 1 >= this.refreshEvery) return { w, etaCoef, shrink: 0, step: 0 };
    const v = matVec(this.covariance, d, alpha, this.v);
    const denom = 1 + w * dot(alpha, v, d);
    const shrink = w / denom;
    const step = g / denom;
    const vmax = maxAbs(v);
    if (
      !(denom > 0) ||
      !Number.isFinite(denom) ||
      !Number.isFinite(maxAbs(this.covariance) + Math.abs(shrink) * vmax * vmax) ||
      !Number.isFinite(maxAbs(this.mean) + Math.abs(step) * vmax)
    ) {
      throw nonFinite("the posterior's mean or covariance", { ...scalars, denom, vmax });
    }
    return { w, etaCoef, shrink, step };
  }

  /**
   * Copy of the data part (natural parameters and evidence), for {@link AbilityPosterior.restoreData}.
   * @internal
   */
  saveData(): { precision: Float64Array; eta: Float64Array; evidence: number } {
    return {
      precision: Float64Array.from(this.dataPrecision),
      eta: Float64Array.from(this.dataEta),
      evidence: this.evidenceSum,
    };
  }

  /**
   * Puts back a data part saved by {@link AbilityPosterior.saveData} and recomputes the moments.
   * @internal
   */
  restoreData(saved: { precision: Float64Array; eta: Float64Array; evidence: number }): void {
    this.dataPrecision.set(saved.precision);
    this.dataEta.set(saved.eta);
    this.evidenceSum = saved.evidence;
    this.refresh();
  }

  /**
   * Forgetting: multiplies the data part of the natural parameters by `factor` in [0, 1],
   * moving precision back toward the prior (factor = 0.5 halves the weight of all evidence so far;
   * 0, the limit of a decay that underflows, resets the posterior to its prior).
   */
  decay(factor: number): void {
    if (!(factor >= 0 && factor <= 1)) throw new RangeError(`decay factor must be in [0, 1], got ${factor}`);
    if (factor === 1) return;
    for (let i = 0; i < this.dataPrecision.length; i++) this.dataPrecision[i] *= factor;
    for (let i = 0; i < this.dim; i++) this.dataEta[i] *= factor;
    this.evidenceSum *= factor;
    this.refresh();
  }

  /** Recomputes mu and Sigma from the natural parameters (Cholesky; jitter added if needed). */
  refresh(): void {
    const d = this.dim;
    this.sinceRefresh = 0;
    if (this.mode === "full") {
      const Lambda = new Float64Array(d * d);
      for (let i = 0; i < Lambda.length; i++) Lambda[i] = this.priorPrecision[i]! + this.dataPrecision[i]!;
      const eta = new Float64Array(d);
      for (let i = 0; i < d; i++) eta[i] = this.priorEta[i]! + this.dataEta[i]!;
      const { L } = cholesky(Lambda, d);
      choleskySolve(L, d, eta, this.mean);
      inverseFromCholesky(L, d, this.covariance);
    } else {
      for (let i = 0; i < d; i++) {
        const lambda = this.priorPrecision[i]! + this.dataPrecision[i]!;
        this.covariance[i] = 1 / lambda;
        this.mean[i] = (this.priorEta[i]! + this.dataEta[i]!) / lambda;
      }
    }
    for (const l of this.listeners) l.invalidate();
  }

  /** Mean and variance of the logit alpha . theta - beta. */
  logit(alpha: ArrayLike<number>, beta: number): LogitMoments {
    const d = this.dim;
    const mean = dot(alpha, this.mean, d) - beta;
    let variance: number;
    if (this.mode === "full") variance = quadForm(this.covariance, d, alpha);
    else {
      variance = 0;
      for (let i = 0; i < d; i++) variance += alpha[i]! * alpha[i]! * this.covariance[i]!;
    }
    return { mean, variance: Math.max(0, variance) };
  }

  /** Predictive p(correct), integrating theta over the posterior (probit approximation). */
  predict(alpha: ArrayLike<number>, beta: number): number {
    const { mean, variance } = this.logit(alpha, beta);
    return predictiveP(mean, variance);
  }

  /** The prior mean this posterior started from. */
  priorMeanVector(): Float64Array {
    return Float64Array.from(this.priorMean);
  }

  /** @internal */
  addListener(l: PosteriorListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Serialisable copy of the state (restored, to rounding, by {@link AbilityPosterior.fromState}). */
  toState(): PosteriorState {
    return {
      version: 1,
      dim: this.dim,
      mode: this.mode,
      priorMean: Array.from(this.priorMean),
      priorPrecision: Array.from(this.priorPrecision),
      dataPrecision: Array.from(this.dataPrecision),
      dataEta: Array.from(this.dataEta),
      evidence: this.evidenceSum,
    };
  }

  /** Rebuilds a posterior from {@link AbilityPosterior.toState} output. */
  static fromState(state: PosteriorState, options: Omit<PosteriorOptions, "mode"> = {}): AbilityPosterior {
    const d = state.dim;
    const size = state.mode === "full" ? d * d : d;
    for (const [name, arr, n] of [
      ["priorMean", state.priorMean, d],
      ["priorPrecision", state.priorPrecision, size],
      ["dataPrecision", state.dataPrecision, size],
      ["dataEta", state.dataEta, d],
    ] as const) {
      if (!Array.isArray(arr) || arr.length !== n || !arr.every(Number.isFinite)) {
        throw new RangeError(`posterior state: ${name} must be ${n} finite numbers`);
      }
    }
    let covariance: Float64Array;
    if (state.mode === "full") {
      const { L } = cholesky(Float64Array.from(state.priorPrecision), d);
      covariance = inverseFromCholesky(L, d);
    } else {
      covariance = new Float64Array(d * d);
      for (let i = 0; i < d; i++) covariance[i * d + i] = 1 / state.priorPrecision[i]!;
    }
    const post = new AbilityPosterior({ mean: state.priorMean, covariance }, { ...options, mode: state.mode });
    post.dataPrecision.set(state.dataPrecision);
    post.dataEta.set(state.dataEta);
    post.evidenceSum = state.evidence;
    post.refresh();
    return post;
  }
}

function maxAbs(a: Float64Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const v = Math.abs(a[i]!);
    if (Number.isNaN(v)) return NaN;
    if (v > m) m = v;
  }
  return m;
}

function allFinite(a: Float64Array): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i]!)) return false;
  return true;
}

function nonFinite(what: string, details: Record<string, unknown>): FeedbackError {
  return new FeedbackError(
    `this outcome would make ${what} non-finite, so it was not applied (the posterior is unchanged). ` +
      `Item parameters are expected to be of order 1; check the scorer that produced alpha and beta.`,
    { path: "event", details },
  );
}
