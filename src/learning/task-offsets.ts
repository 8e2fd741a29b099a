/**
 * Per-task ability offsets: for each (model, task) pair a scalar Gaussian offset delta ~ N(mean, variance) added to
 * the model's logit on calls that carry that task hint, p = sigmoid(alpha . theta - beta + delta). Every offset
 * starts at N(0, priorSd^2) and is learned online from the feedback events that carry the task, with the same
 * one-step Laplace update as the abilities (a logistic observation of the logit, weighted by the event's weight).
 * Tasks absorb what the item parameters miss about a kind of work (a model that is better at code than its general
 * ability says); without hints nothing changes.
 */
import { FeedbackError, ValidationError } from "../errors.js";
import { MAX_TASK_LENGTH } from "./events.js";
import { sigmoid } from "./posterior.js";

/** Prior standard deviation of a task offset on the logit scale (a small offset: 1 logit moves p = 0.5 to 0.73). */
export const DEFAULT_TASK_OFFSET_SD = 1;
// Defined with the event's `task` field, so a router checks task hints without importing this module (issue 37).
export { MAX_TASK_LENGTH } from "./events.js";

/** One offset's posterior. */
export interface TaskOffset {
  readonly mean: number;
  readonly variance: number;
}

/** Serialisable form (in the learner state as `taskOffsets`). */
export interface TaskOffsetsState {
  readonly version: 1;
  readonly priorSd: number;
  /** model -> task -> [mean, variance]. */
  readonly offsets: Record<string, Record<string, [number, number]>>;
}

/** Throws a FeedbackError naming `event.task` unless `task` is undefined or a non-blank string of at most 200 chars. */
export function checkTask(task: unknown, path = "event.task"): void {
  if (task === undefined) return;
  if (typeof task !== "string" || task.trim().length === 0 || task.length > MAX_TASK_LENGTH) {
    throw new FeedbackError(
      `${path} must be a non-empty task label of at most ${MAX_TASK_LENGTH} characters (e.g. "code"), got ${JSON.stringify(task)}.`,
      { path },
    );
  }
}

/**
 * The offset of one (model, task) pair fitted in one go on labelled calls: the maximum a posteriori delta of
 * y_i ~ Bernoulli(sigmoid(logit_i + delta)) under the prior N(0, priorSd^2) (Newton's method), with the Laplace
 * variance at it. `logits` are the calls' logits without the offset, `ys` their labels in [0, 1]. With no calls it
 * is the prior. Used where labels of a task are at hand at once (a folder's items with a category column) instead of
 * one feedback event at a time.
 *
 * @example
 * ```ts
 * fitTaskOffset([0.2, 1.1, -0.3], [1, 1, 1]); // { mean: > 0, variance: < 1 }
 * ```
 */
export function fitTaskOffset(
  logits: ArrayLike<number>,
  ys: ArrayLike<number>,
  priorSd: number = DEFAULT_TASK_OFFSET_SD,
): TaskOffset {
  if (logits.length !== ys.length) {
    throw new ValidationError(
      `fitTaskOffset: ${logits.length} logits but ${ys.length} labels; give one label per logit.`,
      {
        path: "ys",
      },
    );
  }
  if (!(Number.isFinite(priorSd) && priorSd > 0)) {
    throw new ValidationError(`taskOffsetSd must be a finite number > 0, got ${priorSd}.`, { path: "taskOffsetSd" });
  }
  const prec0 = 1 / priorSd ** 2;
  let delta = 0;
  for (let iter = 0; iter < 50; iter++) {
    let grad = -delta * prec0;
    let precision = prec0;
    for (let i = 0; i < logits.length; i++) {
      const p = sigmoid(logits[i]! + delta);
      grad += ys[i]! - p;
      precision += p * (1 - p);
    }
    // Newton on a concave objective; the clamp keeps a far start from overshooting.
    const step = Math.max(-2, Math.min(2, grad / precision));
    delta += step;
    if (Math.abs(step) < 1e-9) break;
  }
  let precision = prec0;
  for (let i = 0; i < logits.length; i++) {
    const p = sigmoid(logits[i]! + delta);
    precision += p * (1 - p);
  }
  return { mean: delta, variance: 1 / precision };
}

/** The offsets of every (model, task) pair seen in feedback. */
export class TaskOffsets {
  private readonly offsets = new Map<string, Map<string, { mean: number; variance: number }>>();

  constructor(readonly priorSd: number = DEFAULT_TASK_OFFSET_SD) {
    if (!(Number.isFinite(priorSd) && priorSd > 0)) {
      throw new ValidationError(`taskOffsetSd must be a finite number > 0, got ${priorSd}.`, { path: "taskOffsetSd" });
    }
  }

  /** Pairs learned so far. */
  get size(): number {
    let n = 0;
    for (const tasks of this.offsets.values()) n += tasks.size;
    return n;
  }

  /** The offset of `model` on `task`: its posterior, or the prior N(0, priorSd^2) before any feedback. */
  offset(model: string, task: string): TaskOffset {
    return this.offsets.get(model)?.get(task) ?? { mean: 0, variance: this.priorSd ** 2 };
  }

  /**
   * Absorbs one observation: `y` in [0, 1] of `model` on a `task` call whose logit without the offset was
   * `baseLogit` (the ability posterior's mean logit before this event), with credit `weight`.
   */
  observe(model: string, task: string, baseLogit: number, y: number, weight = 1): void {
    const prior = this.offset(model, task);
    const p = sigmoid(baseLogit + prior.mean);
    const precision = 1 / prior.variance + weight * p * (1 - p);
    const mean = prior.mean + (weight * (y - p)) / precision;
    if (!Number.isFinite(mean) || !Number.isFinite(precision)) return; // an extreme logit: no information
    let tasks = this.offsets.get(model);
    if (!tasks) this.offsets.set(model, (tasks = new Map()));
    tasks.set(task, { mean, variance: 1 / precision });
  }

  /** Forgets a model's offsets (the model was removed). */
  remove(model: string): void {
    this.offsets.delete(model);
  }

  exportState(): TaskOffsetsState {
    const offsets: TaskOffsetsState["offsets"] = Object.fromEntries(
      [...this.offsets].map(([model, tasks]) => [
        model,
        Object.fromEntries([...tasks].map(([t, o]) => [t, [o.mean, o.variance]])),
      ]),
    );
    return { version: 1, priorSd: this.priorSd, offsets };
  }

  /**
   * Offsets from {@link TaskOffsets.exportState} output, checked: a malformed state throws a ValidationError naming
   * the field (`state.taskOffsets.offsets.gpt-4o.code`). Undefined gives empty offsets at `priorSd`.
   */
  static fromState(state: unknown, priorSd = DEFAULT_TASK_OFFSET_SD): TaskOffsets {
    if (state === undefined) return new TaskOffsets(priorSd);
    const bad = (path: string, what: string): never => {
      throw new ValidationError(`Invalid learner state: state.taskOffsets${path} ${what}.`, {
        path: `state.taskOffsets${path}`,
      });
    };
    const s = state as Partial<TaskOffsetsState>;
    if (typeof s !== "object" || s === null || s.version !== 1) return bad(".version", "must be 1");
    if (typeof s.priorSd !== "number" || !(s.priorSd > 0) || !Number.isFinite(s.priorSd))
      return bad(".priorSd", "must be a finite number > 0");
    if (typeof s.offsets !== "object" || s.offsets === null)
      return bad(".offsets", "must be an object keyed by model id");
    const out = new TaskOffsets(s.priorSd);
    for (const [model, tasks] of Object.entries(s.offsets)) {
      if (typeof tasks !== "object" || tasks === null)
        return bad(`.offsets.${model}`, "must be an object keyed by task");
      const map = new Map<string, { mean: number; variance: number }>();
      for (const [task, pair] of Object.entries(tasks)) {
        const ok =
          Array.isArray(pair) &&
          pair.length === 2 &&
          Number.isFinite(pair[0]) &&
          Number.isFinite(pair[1]) &&
          pair[1] > 0;
        if (!ok)
          return bad(`.offsets.${model}.${task}`, "must be [mean, variance] with a finite mean and a variance > 0");
        map.set(task, { mean: pair[0], variance: pair[1] });
      }
      out.offsets.set(model, map);
    }
    return out;
  }
}
