import { ece, logLoss } from "./metrics.js";
import { sigmoid } from "../util/maths.js";

/** Outcome of temperature scaling on validation. */
export interface CalibrationReport {
  /** Temperature in use (1 when scaling was not applied). */
  readonly temperature: number;
  /** The NLL-optimal temperature that was fitted. */
  readonly fitted: number;
  /** Whether it was applied (it is, only when it lowers validation ECE). */
  readonly applied: boolean;
  readonly eceBefore: number;
  readonly eceAfter: number;
}

function scaled(logits: Float64Array, t: number): Float64Array {
  const out = new Float64Array(logits.length);
  for (let i = 0; i < logits.length; i++) out[i] = sigmoid(logits[i]! / t);
  return out;
}

/**
 * Fits the temperature T minimising validation log-loss of sigmoid(logit / T) (golden-section search
 * on log T in [1/8, 8]) and keeps it only when it lowers validation ECE (15 bins).
 */
export function fitTemperature(logits: Float64Array, y: Float64Array): CalibrationReport {
  const f = (u: number) => logLoss(scaled(logits, Math.exp(u)), y);
  let a = Math.log(1 / 8);
  let b = Math.log(8);
  const g = (Math.sqrt(5) - 1) / 2;
  let c = b - g * (b - a);
  let d = a + g * (b - a);
  let fc = f(c);
  let fd = f(d);
  for (let it = 0; it < 40; it++) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - g * (b - a);
      fc = f(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + g * (b - a);
      fd = f(d);
    }
  }
  const fitted = Math.exp((a + b) / 2);
  const eceBefore = ece(scaled(logits, 1), y);
  const eceAfter = ece(scaled(logits, fitted), y);
  const applied = eceAfter < eceBefore;
  return { temperature: applied ? fitted : 1, fitted, applied, eceBefore, eceAfter };
}
