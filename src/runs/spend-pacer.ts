/**
 * A spend target for escalation: the cost weight that makes the mean spend per task track a target, set from what was
 * spent (see {@link SpendPacer}).
 */
import { ValidationError } from "../errors.js";
import { parseWith } from "../util/validate.js";
import { z } from "zod";

/** Options of a {@link SpendPacer}. */
export interface SpendPacerOptions {
  /** Mean spend per task to aim at (> 0), in the unit `record` is given (USD for {@link RunRouter.escalate}). */
  readonly target: number;
  /** Cost weight of the first task (> 0; default 0.3). */
  readonly start?: number;
  /** Step of the cost weight's log per task, per unit of relative overspend (> 0; default 0.2). */
  readonly rate?: number;
}

/** The pacer's default settings, chosen on Terminal-Bench's training items only (docs/agents.md). */
export const DEFAULT_SPEND_PACER = { start: 0.3, rate: 0.2 } as const;

const pacerSchema = z.strictObject({
  target: z.number().finite().positive(),
  start: z.number().finite().positive().optional(),
  rate: z.number().finite().positive().optional(),
});

/** Bounds of the cost weight: below the lower one every plan is the most able one; above the upper, the cheapest. */
const MIN_WEIGHT = 1e-3;
const MAX_WEIGHT = 10;
/**
 * Relative overspend counted per task, at most (one dear escalation moves the weight by a bounded step). A stream whose
 * tasks often cost more than 11 x the target settles above the target.
 */
const MAX_OVERSPEND = 10;

/**
 * Escalation's plans move in steps with the cost weight: every task looks alike to the router, so they switch plan at
 * about the same weight and a fixed weight spends either well under or well over what a user wants. A pacer holds the
 * cost weight and moves it after each task by what was spent: up (dearer models weigh more) when the task cost more
 * than the target, down when it cost less, by `rate` x the relative difference on a log scale. Over a stream of tasks
 * the weight settles where the plans either side of the target alternate, so the mean spend meets it: the standard
 * answer to a mean-cost constraint (a dual variable updated by the constraint's violation). It needs no outcomes and
 * nothing about the models (its rate was chosen on Terminal-Bench's training items; docs/agents.md). Where even the
 * most able plans cost less than the target, it spends less. It knows nothing of the router: one pacer can pace
 * several routers (replicas in one process) that share a budget.
 *
 * @example
 * ```ts
 * import { RunRouter, SpendPacer } from "irt-router/runs";
 *
 * const router = new RunRouter({
 *   models: { big: { runCost: 2 }, small: { runCost: 0.2 } },
 * });
 * // Aim at USD 0.7 per task on average, escalations included.
 * const pacer = new SpendPacer({ target: 0.7 });
 * const result = await router.escalate(
 *   { id: "t1", text: "Fix the failing build." },
 *   async (modelId) => ({ modelId }),
 *   async () => true,
 *   { pacer },
 * );
 * console.log(result.cost, pacer.costWeight, pacer.meanSpend);
 * ```
 */
export class SpendPacer {
  /** The mean spend per task it aims at. */
  readonly target: number;
  private readonly rate: number;
  private weight: number;
  private spent = 0;
  private tasks = 0;

  constructor(options: SpendPacerOptions) {
    const o = parseWith(pacerSchema, options, "options");
    this.target = o.target;
    this.rate = o.rate ?? DEFAULT_SPEND_PACER.rate;
    this.weight = clamp(o.start ?? DEFAULT_SPEND_PACER.start);
  }

  /** The cost weight for the next task. */
  get costWeight(): number {
    return this.weight;
  }

  /** Mean spend per task recorded so far (0 before the first). */
  get meanSpend(): number {
    return this.tasks === 0 ? 0 : this.spent / this.tasks;
  }

  /** Tasks recorded so far. */
  get taskCount(): number {
    return this.tasks;
  }

  /** Record what one task cost (every attempt of its escalation), which sets the next cost weight. */
  record(spent: number): void {
    if (!Number.isFinite(spent) || spent < 0) {
      throw new ValidationError(`spent must be a finite number >= 0, got ${String(spent)}`, { path: "spent" });
    }
    this.spent += spent;
    this.tasks += 1;
    const over = Math.min(MAX_OVERSPEND, spent / this.target - 1);
    this.weight = clamp(this.weight * Math.exp(this.rate * over));
  }
}

function clamp(w: number): number {
  return Math.min(MAX_WEIGHT, Math.max(MIN_WEIGHT, w));
}
