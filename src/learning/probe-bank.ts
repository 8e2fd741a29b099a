/** The probes a new model is calibrated on: item ids with their IRT parameters, never texts or answers. */

/**
 * A bank of probe items: ids with their IRT parameters (never texts or answers).
 * `alphas` is n x dim row-major.
 */
export interface ProbeBank {
  /** Dataset the probes come from (name or folder). */
  readonly dataset: string;
  readonly dim: number;
  readonly ids: readonly string[];
  readonly alphas: Float32Array;
  readonly betas: Float32Array;
}

/** One probe handed to `ask`. */
export interface Probe {
  readonly id: string;
  /** Index in the bank. */
  readonly index: number;
  readonly alpha: Float32Array;
  readonly beta: number;
}
