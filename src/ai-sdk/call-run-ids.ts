/**
 * The run id of each `generateText`/`streamText` call whose steps {@link irtPrepareStep} routes without a `runId`
 * option: one id per call, the same at every step of that call.
 *
 * The key is the `steps` array `prepareStep` receives: the AI SDK makes one per call when the call starts and passes
 * that same array, grown by each finished step, to every step's `prepareStep` (ai 6 and ai 7, `generateText` and
 * `streamText`, hence `ToolLoopAgent`). No two calls share it. The call's messages are no key: the AI SDK builds a new
 * array at each step, and two calls' messages may start with the same object (a shared few-shot prefix or history).
 */
import { randomUUID } from "node:crypto";
import { ValidationError } from "../errors.js";

/** Run ids by the call's `steps` array. */
const RUNS = new WeakMap<object, string>();

/**
 * The run id of the call `steps` belongs to: made at the call's first step, the same at its later ones. Throws a
 * ValidationError when `steps` is not the AI SDK's array (a hand-made step input), since nothing else tells one
 * call's steps from another's.
 */
export function callRunId(steps: unknown): string {
  if (!Array.isArray(steps)) {
    throw new ValidationError(
      `irtPrepareStep: the step input has no steps array, so its call cannot be told apart from another. ` +
        `Pass the input the AI SDK gives prepareStep unchanged (its steps array is the call's own), or give irtPrepareStep a runId.`,
      { path: "step.steps" },
    );
  }
  let id = RUNS.get(steps);
  if (id === undefined) RUNS.set(steps, (id = randomUUID()));
  return id;
}
