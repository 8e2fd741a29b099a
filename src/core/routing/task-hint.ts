/**
 * Task hints: an optional subtask label per call (`metadata.irtRouterTask` in the call's config, or the router's
 * `task` option for a fixed task). With an online learner, each (model, task) pair has an ability offset learned
 * from feedback (src/learning/task-offsets.ts) that the call's p includes.
 */
import { ValidationError } from "../../errors.js";
import { MAX_TASK_LENGTH } from "../../learning/events.js";

/** Metadata key under which a call's task hint is read (`config.metadata.irtRouterTask`). */
export const TASK_METADATA_KEY = "irtRouterTask";

/**
 * The task hint of a call: `metadata.irtRouterTask` when set. Throws a ValidationError naming it when it is not a
 * non-empty string of at most 200 characters.
 *
 * @example
 * ```ts
 * // the hint a call carries, read by taskOf(config):
await router.invoke("Fix the off-by-one in this loop.", { metadata: { irtRouterTask: "code" } });
 * ```
 */
export function taskOf(config: { readonly metadata?: Record<string, unknown> } | undefined): string | undefined {
  const task = config?.metadata?.[TASK_METADATA_KEY];
  if (task === undefined || task === null) return undefined;
  if (typeof task !== "string" || task.trim().length === 0 || task.length > MAX_TASK_LENGTH) {
    throw new ValidationError(
      `metadata.${TASK_METADATA_KEY} must be a non-empty task label of at most ${MAX_TASK_LENGTH} characters (e.g. "code"), ` +
        `got ${JSON.stringify(task)}.`,
      { path: `metadata.${TASK_METADATA_KEY}` },
    );
  }
  return task;
}
