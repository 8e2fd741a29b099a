import type { AbilityPosterior, PosteriorListener } from "./posterior.js";
import { predictiveP } from "./posterior.js";

/**
 * Keeps the logit mean and variance of a fixed set of items current under one posterior.
 *
 * A full-covariance update is rank-1 (Sigma' = Sigma - c v v^T, mu' = mu + s v), so each tracked
 * item costs O(d) per update (one dot product a_i . v) instead of O(d^2). After a refresh or a decay
 * the tracker recomputes lazily on next read. Used by adaptive calibration (Fisher scores of a
 * whole probe bank) and by the simulation (predicted accuracy on the test split after every probe).
 *
 * @example
 * ```ts
 * const tracker = new ItemTracker(posterior, alphas, betas); // alphas: n*d row-major
 * posterior.update(alphas.subarray(0, d), betas[0], 1);
 * tracker.predictedAccuracy(); // mean predictive p over the tracked items
 * tracker.dispose();
 * ```
 */
export class ItemTracker implements PosteriorListener {
  readonly size: number;
  private readonly m: Float64Array;
  private readonly s2: Float64Array;
  private stale = true;
  private readonly detach: () => void;

  /**
   * @param alphas n x d row-major item discriminations
   * @param betas n item difficulties
   */
  constructor(
    private readonly posterior: AbilityPosterior,
    private readonly alphas: Float32Array | Float64Array,
    private readonly betas: ArrayLike<number>,
  ) {
    const d = posterior.dim;
    if (alphas.length !== betas.length * d) {
      throw new RangeError(`ItemTracker: alphas has ${alphas.length} numbers, expected ${betas.length} items x ${d}`);
    }
    this.size = betas.length;
    this.m = new Float64Array(this.size);
    this.s2 = new Float64Array(this.size);
    this.detach = posterior.addListener(this);
  }

  /** Logit means (alpha_i . mu - beta_i), current. */
  means(): Float64Array {
    this.ensure();
    return this.m;
  }

  /** Logit variances (alpha_i^T Sigma alpha_i), current. */
  variances(): Float64Array {
    this.ensure();
    return this.s2;
  }

  /** Mean predictive p over the tracked items (the predicted accuracy on them). */
  predictedAccuracy(): number {
    this.ensure();
    let s = 0;
    for (let i = 0; i < this.size; i++) s += predictiveP(this.m[i]!, this.s2[i]!);
    return this.size > 0 ? s / this.size : NaN;
  }

  /** The posterior's rank-1 update (`PosteriorListener`): moves every tracked item's moments with it. */
  rankOne(v: Float64Array, step: number, shrink: number): void {
    if (this.stale) return;
    const d = this.posterior.dim;
    const A = this.alphas;
    for (let i = 0; i < this.size; i++) {
      let t = 0;
      const o = i * d;
      for (let k = 0; k < d; k++) t += A[o + k]! * v[k]!;
      this.m[i] += step * t;
      this.s2[i] = Math.max(0, this.s2[i]! - shrink * t * t);
    }
  }

  /** The posterior changed otherwise (`PosteriorListener`): the moments are recomputed on the next read. */
  invalidate(): void {
    this.stale = true;
  }

  /** Stops listening to the posterior. */
  dispose(): void {
    this.detach();
  }

  private ensure(): void {
    if (!this.stale) return;
    const d = this.posterior.dim;
    for (let i = 0; i < this.size; i++) {
      const { mean, variance } = this.posterior.logit(this.alphas.subarray(i * d, (i + 1) * d), this.betas[i]!);
      this.m[i] = mean;
      this.s2[i] = variance;
    }
    this.stale = false;
  }
}
