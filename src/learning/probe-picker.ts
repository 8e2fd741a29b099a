/**
 * How calibration picks its next probe (the rules of `calibrateModel`, src/learning/new-model-calibration.ts): the adaptive
 * criteria, the seeded random order, the mixing of random probes into an adaptive rule, the `adaptiveProbes` probes
 * placed in the random order (after its first `randomFirst`), and the bank's predicted accuracy with its delta-method standard deviation
 * (which the "accuracy" rule targets).
 */
import type { AbilityPosterior } from "./posterior.js";
import { predictiveP } from "./posterior.js";
import type { Probe, ProbeBank } from "./probe-bank.js";
import type { ItemTracker } from "./tracker.js";
import { seededRng } from "../util/random.js";

/**
 * Default share of calibration probes asked in a seeded random order, interleaved with the adaptive rule's
 * (chosen by leave-one-dataset-out validation: docs/online.md).
 */
export const DEFAULT_RANDOM_SHARE = 0;

/** Default of calibrateModel's `mixRandom` (chosen with {@link DEFAULT_RANDOM_SHARE}). */
export const DEFAULT_MIX_RANDOM: MixRandom = "always";

/**
 * Default of calibrateModel's `adaptiveProbes`: the adaptive rule picks this many probes, the rest follow the seeded
 * random order (chosen by leave-one-dataset-out validation: docs/online.md).
 */
export const DEFAULT_ADAPTIVE_PROBES: number | "all" = 1;

/**
 * Default of calibrateModel's `randomFirst` with a bounded `adaptiveProbes`: probes asked in the seeded random order
 * before the adaptive ones (chosen by leave-one-dataset-out validation: docs/online.md). With `adaptiveProbes: "all"`
 * the default is 0 (the strategy picks every probe).
 */
export const DEFAULT_RANDOM_FIRST = 5;

/**
 * Where the adaptive probes sit in the seeded random order: "replace" takes the order's first `adaptiveProbes` places
 * (probe k after the hand-over is the order's probe k; the displaced ones come after the rest of the order), "insert"
 * asks them before the order (probe k is the order's probe k - adaptiveProbes).
 */
export type HandOver = "replace" | "insert";

/**
 * Default of calibrateModel's `handOver` (chosen by leave-one-dataset-out validation with
 * {@link DEFAULT_ADAPTIVE_PROBES}: docs/online.md).
 */
export const DEFAULT_HAND_OVER: HandOver = "replace";

/** |z| of the prior-conflict score test above which "on-conflict" mixing starts. */
const CONFLICT_Z = 2;

/** When random probes start being mixed in: from the first probe, or once the answers contradict the prior. */
export type MixRandom = "always" | "on-conflict";

/** The options of a calibration the picker follows. */
export interface PickerOptions {
  readonly strategy: "accuracy" | "fisher" | "random";
  readonly randomShare?: number | undefined;
  readonly mixRandom?: MixRandom | undefined;
  /** Probes the adaptive rule picks before the rest follow the seeded random order ("all": never switch). */
  readonly adaptiveProbes?: number | "all" | undefined;
  /** Whether the adaptive probes replace the random order's first places or are asked before it. */
  readonly handOver?: HandOver | undefined;
  /** Probes asked in the seeded random order before the adaptive ones (default {@link DEFAULT_RANDOM_FIRST}; 0 with "all"). */
  readonly randomFirst?: number | undefined;
  readonly seed: number;
}

/** Chooses the next probe by the calibration strategy, each probe at most once. */
export class ProbePicker {
  private readonly asked: Uint8Array;
  private order: number[];
  private readonly share: number;
  private cursor = 0;
  /** Probes picked so far. */
  private picked = 0;
  /** Probes picked by the strategy (and its mixing) before the seeded random order takes over. */
  private readonly head: number;
  /** Probes asked in the seeded random order before the adaptive ones. */
  private readonly first: number;
  /** Whether the adaptive probes take the random order's first places (see {@link HandOver}); done once, at the hand-over. */
  private replaceHead: boolean;
  /** Probes picked since mixing started (the interleave counter). */
  private mixed = 0;
  /** Whether random probes are being mixed in (from the start, or since the answers contradicted the prior). */
  private mixing: boolean;
  /** Prior-conflict score test: sum of y - p, sum of p (1 - p), answers. */
  private readonly surprise = { residual: 0, variance: 0, answers: 0 };

  constructor(
    private readonly o: PickerOptions,
    private readonly probes: ProbeBank,
    private readonly tracker: ItemTracker,
    private readonly posterior: AbilityPosterior,
  ) {
    const n = probes.ids.length;
    this.asked = new Uint8Array(n);
    this.share = o.strategy === "random" ? 1 : (o.randomShare ?? DEFAULT_RANDOM_SHARE);
    const head = o.adaptiveProbes ?? DEFAULT_ADAPTIVE_PROBES;
    this.head = head === "all" ? Infinity : head;
    this.first = o.strategy === "random" ? 0 : (o.randomFirst ?? (head === "all" ? 0 : DEFAULT_RANDOM_FIRST));
    this.order = this.share > 0 || Number.isFinite(this.head) || this.first > 0 ? shuffledIndices(n, o.seed) : [];
    this.replaceHead = o.strategy !== "random" && (o.handOver ?? DEFAULT_HAND_OVER) === "replace";
    this.mixing = o.strategy === "random" || (o.mixRandom ?? DEFAULT_MIX_RANDOM) === "always";
  }

  /** Records an answer to a probe that had predictive p `p` when asked (the prior-conflict test of "on-conflict"). */
  answered(p: number, y: number): void {
    const t = this.surprise;
    t.residual += y - p;
    t.variance += p * (1 - p);
    t.answers++;
    if (!this.mixing && t.answers >= 3 && Math.abs(t.residual) > CONFLICT_Z * Math.sqrt(t.variance)) this.mixing = true;
  }

  /** The predictive p of bank probe `index` under the current posterior. */
  predictive(index: number): number {
    return predictiveP(this.tracker.means()[index]!, this.tracker.variances()[index]!);
  }

  /**
   * The next probe (marked asked), or undefined when every probe was: "random" takes them in a seeded order;
   * "information" the one whose answer most narrows the ability, "accuracy" the one that most narrows the predicted
   * accuracy over the bank (`g`: that accuracy's gradient in the ability). The first `randomFirst` probes and
   * every probe after the `adaptiveProbes` adaptive ones follow the seeded random order.
   */
  next(g: Float64Array): Probe | undefined {
    // Once mixing, probe k (0-based, counted from the start of mixing) is a random one when the running count of
    // random probes, floor((k + 1) share), steps up.
    const place = this.picked++;
    const after = place >= this.first + this.head;
    let random = after || place < this.first;
    if (after && this.replaceHead) this.handOverPlaces();
    if (!random && this.mixing) {
      const k = this.mixed++;
      random = Math.floor((k + 1) * this.share) > Math.floor(k * this.share);
    }
    const i = random ? this.nextRandom() : this.nextInformative(g);
    if (i < 0) return undefined;
    this.asked[i] = 1;
    const d = this.probes.dim;
    return {
      id: this.probes.ids[i]!,
      index: i,
      alpha: this.probes.alphas.subarray(i * d, (i + 1) * d),
      beta: this.probes.betas[i]!,
    };
  }

  /**
   * "replace": from the hand-over on, probe k is the order's probe k (0-based), as in random order with the same seed;
   * the order's places before the hand-over that the random order has not reached (those the adaptive probes took)
   * move to its end.
   */
  private handOverPlaces(): void {
    this.replaceHead = false;
    const end = Math.min(this.first + this.head, this.order.length);
    if (this.cursor >= end) return;
    const o = this.order;
    this.order = [...o.slice(0, this.cursor), ...o.slice(end), ...o.slice(this.cursor, end)];
  }

  private nextRandom(): number {
    const n = this.probes.ids.length;
    while (this.cursor < n && this.asked[this.order[this.cursor]!]) this.cursor++;
    return this.cursor < n ? this.order[this.cursor]! : -1;
  }

  private nextInformative(g: Float64Array): number {
    const { probes, tracker, posterior } = this;
    const n = probes.ids.length;
    const d = probes.dim;
    const m = tracker.means();
    const s2 = tracker.variances();
    // "accuracy": u = Sigma g, so alpha_i^T Sigma g = alpha_i . u (O(d) per probe)
    const u = this.o.strategy === "accuracy" ? covTimes(posterior.covariance, g, posterior.mode === "full") : undefined;
    let best = -Infinity;
    let next = -1;
    for (let i = 0; i < n; i++) {
      if (this.asked[i]) continue;
      const p = predictiveP(m[i]!, s2[i]!);
      const w = p * (1 - p);
      let score = w * s2[i]!;
      if (u) {
        let c = 0;
        const off = i * d;
        for (let k = 0; k < d; k++) c += probes.alphas[off + k]! * u[k]!;
        score = (w * c * c) / (1 + w * s2[i]!);
      }
      if (score > best) {
        best = score;
        next = i;
      }
    }
    return next;
  }
}

/** Mean predictive p over the bank and its delta-method standard deviation. */
export function bankAccuracy(
  tracker: ItemTracker,
  bank: ProbeBank,
  cov: Float64Array,
  full: boolean,
): { mean: number; sd: number; g: Float64Array } {
  const m = tracker.means();
  const s2 = tracker.variances();
  const d = bank.dim;
  const n = bank.ids.length;
  const g = new Float64Array(d);
  let mean = 0;
  for (let i = 0; i < n; i++) {
    const p = predictiveP(m[i]!, s2[i]!);
    mean += p;
    const w = p * (1 - p);
    const o = i * d;
    for (let k = 0; k < d; k++) g[k] += w * bank.alphas[o + k]!;
  }
  let variance = 0;
  for (let i = 0; i < d; i++) {
    if (!full) {
      variance += g[i]! * g[i]! * cov[i]!;
      continue;
    }
    for (let j = 0; j < d; j++) variance += g[i]! * cov[i * d + j]! * g[j]!;
  }
  return { mean: mean / n, sd: Math.sqrt(Math.max(0, variance)) / n, g };
}

/** Sigma v for a full (d x d) or diagonal (d) covariance. */
function covTimes(cov: Float64Array, v: Float64Array, full: boolean): Float64Array {
  const d = v.length;
  const out = new Float64Array(d);
  for (let i = 0; i < d; i++) {
    if (!full) {
      out[i] = cov[i]! * v[i]!;
      continue;
    }
    let s = 0;
    for (let k = 0; k < d; k++) s += cov[i * d + k]! * v[k]!;
    out[i] = s;
  }
  return out;
}

/** @internal The seeded order strategy "random" asks probes in (also used by the validation development script). */
export function shuffledIndices(n: number, seed: number): number[] {
  const rng = seededRng(seed);
  const a = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}
