/**
 * The one check of a {@link FeedbackEvent}, shared by the online learner (`observe`, `check`) and every store
 * (`append`): the same rules, the same bounds and the same field paths, so an event one accepts the other accepts.
 */
import { MAX_TASK_LENGTH, type FeedbackEvent } from "./events.js";
import { z } from "zod";
import { FeedbackError } from "../errors.js";
import { parseWith } from "../util/validate.js";

/**
 * Largest plausible item parameters of a feedback event: the Euclidean norm of `alpha` and the magnitude of `beta`.
 * Events beyond them are refused by the learner and the stores (`FeedbackError`, path `event.alpha` / `event.beta`).
 */
export interface ItemBounds {
  /** Largest accepted Euclidean norm of `alpha`. */
  readonly alphaNorm: number;
  /** Largest accepted `|beta|`. */
  readonly beta: number;
}

/**
 * The default {@link ItemBounds}: three times the largest item parameters the pretrained scorer gives on the items of
 * its four training datasets, tempered as the router passes them on (alpha / T, beta / T, T = 1.048): the largest
 * `|alpha|` there is 3.3 and the largest `|beta|` 2.5 (docs/online.md, "Bounds on item parameters", names the
 * command). A scorer of your own with larger parameters needs its own bounds (`itemBounds` of the learner and the
 * stores). An event beyond them is not a real item: one event with `|alpha| = 100` and y = 0 would otherwise move a
 * model's predicted p to 0 on every prompt.
 */
export const DEFAULT_ITEM_BOUNDS: ItemBounds = Object.freeze({ alphaNorm: 10, beta: 8 });

/** Schema of the `itemBounds` option of the learner and the stores. */
export const itemBoundsSchema = z.strictObject({
  alphaNorm: z.number().positive().refine(Number.isFinite, "must be a finite number"),
  beta: z.number().positive().refine(Number.isFinite, "must be a finite number"),
});

/** How an event is checked: the learner knows the ability dimension; every checker has item bounds. */
export interface EventCheckOptions {
  /** Required length of `alpha` (the learner's ability dimension); any non-empty length when absent. */
  readonly dim?: number;
  /** Item-parameter bounds (default {@link DEFAULT_ITEM_BOUNDS}). */
  readonly itemBounds?: ItemBounds;
}

/** The first problem of an event: the field's path under the event (`alpha.3`, `y`; "" for the event itself). */
export interface EventProblem {
  readonly path: string;
  readonly message: string;
}

/** `itemBounds` given to a learner or a store, checked (a bad one is a ValidationError naming `what.itemBounds`). */
export function parseItemBounds(value: unknown, what: string): ItemBounds {
  if (value === undefined) return DEFAULT_ITEM_BOUNDS;
  return parseWith(itemBoundsSchema, value, `${what}.itemBounds`);
}

/** A value for an error message, never throwing (`String` throws on an object without a prototype). */
const shown = (v: unknown): string => {
  if (v === null || typeof v !== "object") return String(v);
  try {
    return JSON.stringify(v) ?? Object.prototype.toString.call(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
};
const nonBlank = (v: unknown): boolean => typeof v === "string" && v.trim().length > 0;
const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/**
 * The first thing wrong with a feedback event, or `undefined` when it is valid: a non-object; `id` or `model` not a
 * non-blank string; `alpha` not a non-empty plain array of finite numbers (of length `dim` when given; a typed array is
 * refused: events are stored as JSON), or of norm above `itemBounds.alphaNorm`; `beta` not finite or beyond
 * `itemBounds.beta`; `y` outside [0, 1]; `weight` outside (0, 1]; `task` present but not a non-blank label of at most
 * 200 characters; `decisionId`, `runId`, `source` present but not strings; `at` not finite. Extra fields are allowed (stores keep them as given).
 */
export function feedbackEventProblem(value: unknown, options: EventCheckOptions = {}): EventProblem | undefined {
  const at = (path: string, message: string): EventProblem => ({ path, message });
  if (typeof value !== "object" || value === null || Array.isArray(value)) return at("", "is not an object");
  const e = value as Record<string, unknown>;
  if (!nonBlank(e.id)) return at("id", "id must be a non-empty string");
  if (!nonBlank(e.model)) return at("model", "model must be a non-empty string");
  const alpha = alphaProblem(e.alpha, options);
  if (alpha) return alpha;
  const bounds = options.itemBounds ?? DEFAULT_ITEM_BOUNDS;
  if (!finite(e.beta)) return at("beta", `beta is ${shown(e.beta)}, must be a finite number`);
  if (Math.abs(e.beta) > bounds.beta) {
    return at(
      "beta",
      `|beta| is ${Math.abs(e.beta)}, above the item-parameter bound ${bounds.beta} (itemBounds.beta): not a real item`,
    );
  }
  if (!finite(e.y) || e.y < 0 || e.y > 1)
    return at("y", `outcome y is ${shown(e.y)}; it must be a finite number in [0, 1] (1 = correct)`);
  if (e.weight !== undefined && !(finite(e.weight) && e.weight > 0 && e.weight <= 1)) {
    return at("weight", `weight is ${shown(e.weight)}; it must be a number in (0, 1]`);
  }
  if (e.task !== undefined && !(typeof e.task === "string" && nonBlank(e.task) && e.task.length <= MAX_TASK_LENGTH)) {
    return at(
      "task",
      `task must be a non-empty task label of at most ${MAX_TASK_LENGTH} characters (e.g. "code") when given`,
    );
  }
  for (const key of ["decisionId", "runId", "source"] as const) {
    if (e[key] !== undefined && typeof e[key] !== "string") return at(key, `${key} must be a string when given`);
  }
  if (!finite(e.at)) return at("at", `at is ${shown(e.at)}; it must be epoch milliseconds (a finite number)`);
  return undefined;
}

function alphaProblem(
  alpha: unknown,
  { dim, itemBounds = DEFAULT_ITEM_BOUNDS }: EventCheckOptions,
): EventProblem | undefined {
  const at = (path: string, message: string): EventProblem => ({ path, message });
  if (ArrayBuffer.isView(alpha)) {
    return at(
      "alpha",
      `alpha is a ${(alpha as object).constructor.name}; events hold plain arrays (they are stored as JSON): use Array.from(alpha)`,
    );
  }
  if (!Array.isArray(alpha) || alpha.length === 0 || (dim !== undefined && alpha.length !== dim)) {
    const want = dim !== undefined ? `an array of length ${dim}` : "a non-empty array of finite numbers";
    return at("alpha", `alpha must be ${want}, got ${Array.isArray(alpha) ? `length ${alpha.length}` : typeof alpha}`);
  }
  let squares = 0;
  for (let i = 0; i < alpha.length; i++) {
    const a: unknown = alpha[i];
    if (!finite(a)) return at(`alpha.${i}`, `alpha[${i}] is ${shown(a)}, must be a finite number`);
    squares += a * a;
  }
  const norm = Math.sqrt(squares);
  if (!(norm <= itemBounds.alphaNorm)) {
    return at(
      "alpha",
      `|alpha| is ${norm.toPrecision(4)}, above the item-parameter bound ${itemBounds.alphaNorm} (itemBounds.alphaNorm): not a real item`,
    );
  }
  return undefined;
}

/**
 * Throws a {@link FeedbackError} for the first problem of `event` ({@link feedbackEventProblem}), its path under
 * `where.prefix` (`event.alpha.3`, `events.2.y`), the message opened by `where.label` and closed by `where.suffix`.
 */
export function assertFeedbackEvent(
  event: unknown,
  options: EventCheckOptions,
  where: { prefix: string; label: string; suffix?: string },
): asserts event is FeedbackEvent {
  const problem = feedbackEventProblem(event, options);
  if (!problem) return;
  const path = problem.path ? `${where.prefix}.${problem.path}` : where.prefix;
  throw new FeedbackError(`${where.label}: ${path}: ${problem.message}.${where.suffix ?? ""}`, {
    path,
    details: { field: problem.path },
  });
}
