/**
 * Correctness and routing metrics over CSR labels, used for early stopping and calibration.
 * (The evaluation harness in src/eval reports the protocol's full metric set.)
 */
import { routingAccuracy as routingAccuracyOf } from "../stats/routing-scores.js";

/** CSR labels of a dataset (same layout as CorrectnessDataset.labels). */
export interface CsrLabels {
  readonly offsets: Int32Array;
  readonly model: Int32Array;
  readonly y: Float32Array;
}

/** Observed (p, y) pairs of the given items; `p` is `rows.length x nModels` row-major. */
export function observedPairs(
  p: Float32Array,
  nModels: number,
  labels: CsrLabels,
  rows: readonly number[],
): { p: Float64Array; y: Float64Array } {
  let n = 0;
  for (const i of rows) n += labels.offsets[i + 1]! - labels.offsets[i]!;
  const po = new Float64Array(n);
  const yo = new Float64Array(n);
  let k = 0;
  rows.forEach((i, r) => {
    for (let j = labels.offsets[i]!; j < labels.offsets[i + 1]!; j++) {
      po[k] = p[r * nModels + labels.model[j]!]!;
      yo[k++] = labels.y[j]!;
    }
  });
  return { p: po, y: yo };
}

/** ROC AUC (ties averaged) and 15-bin ECE: the evaluation protocol's own definitions, shared. */
export { rocAucWithTies as rocAuc, expectedCalibrationError as ece, logLoss } from "../stats/metrics.js";

/**
 * Routing accuracy: per item, the observed model with the highest p (ties to the lower model index); its label,
 * averaged over items that have at least one observed model. Defined in src/stats/routing-scores.ts.
 */
export function routingAccuracy(p: Float32Array, nModels: number, labels: CsrLabels, rows: readonly number[]): number {
  return routingAccuracyOf(labels, rows, p, nModels);
}
