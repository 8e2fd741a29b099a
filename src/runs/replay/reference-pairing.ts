/**
 * A replay's intervals against a reference (the best fixed model; online, the best fixed model in hindsight) in a
 * folder with gaps, where the reference is not scored on every run: a reference that has no label on a task is scored
 * on the others, so a policy is paired with it run by run, over the runs the reference was scored on. Each task's
 * values are then means over those runs (NaN where there is none, skipped by the bootstrap). In a folder with a label
 * for every pair every run is scored, and the intervals are those of per-task sums, as before gaps were allowed.
 */
import { bootstrapDiffCi, bootstrapMeanCi, type BootstrapPlan } from "../../stats/bootstrap.js";

/** A policy's successes per task: over all its runs (`item`), and over the runs the reference was scored on. */
export interface PairedSums {
  readonly item: Float64Array;
  readonly paired: Float64Array;
}

/** Which runs of each task the reference was scored on (see the module comment). */
export class ReferencePairing {
  /** Runs of each task the reference was scored on. */
  readonly scored: Float64Array;
  private unscored = 0;

  constructor(
    tasks: number,
    /** A per-task sum as a per-run mean (divided by the runs of each task, one per seed). */
    private readonly perRun: (sum: number) => number,
  ) {
    this.scored = new Float64Array(tasks);
  }

  /** Notes one run of task `i`, scored or not for the reference. */
  note(i: number, scored: boolean): void {
    if (scored) this.scored[i]! += 1;
    else this.unscored++;
  }

  /** Whether the reference was scored on every run. */
  get complete(): boolean {
    return this.unscored === 0;
  }

  /** An interval of per-task sums as one of a per-run mean. */
  perRunCi([lo, hi]: [number, number]): [number, number] {
    return [this.perRun(lo), this.perRun(hi)];
  }

  /** Per-task means of `sums` over the scored runs (NaN where none was). */
  private means(sums: Float64Array): Float64Array {
    return sums.map((x, i) => (this.scored[i]! > 0 ? x / this.scored[i]! : Number.NaN));
  }

  /** 95% interval of a policy's success minus the reference's, paired over the runs the reference was scored on. */
  diffCi(policy: PairedSums, reference: PairedSums, plan: BootstrapPlan): [number, number] {
    if (this.complete) return this.perRunCi(bootstrapDiffCi(policy.item, reference.item, plan));
    return bootstrapDiffCi(this.means(policy.paired), this.means(reference.paired), plan);
  }

  /** 95% interval of the reference's success, over the runs it was scored on. */
  referenceCi(reference: PairedSums, plan: BootstrapPlan): [number, number] {
    if (this.complete) return this.perRunCi(bootstrapMeanCi(reference.item, plan));
    return bootstrapMeanCi(this.means(reference.paired), plan);
  }

  /** The reference's success, the mean over tasks of its means over the runs it was scored on (as its interval). */
  referenceSuccess(reference: PairedSums, pooled: number): number {
    if (this.complete) return pooled;
    const m = this.means(reference.paired).filter(Number.isFinite);
    return m.reduce((a, b) => a + b, 0) / m.length;
  }
}
