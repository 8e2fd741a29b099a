/**
 * The options of {@link irtPrepareStep} and their check: a misspelt key (`needs: { tool: true }`) is refused with a
 * ValidationError naming it, as the router's own options are, instead of silently routing without it.
 */
import { z } from "zod";
import { routingOptionsShape } from "../core/contracts/options.js";
import { parseWith } from "../util/validate.js";

/** Options of {@link irtPrepareStep}. */
export interface IrtPrepareStepOptions {
  /**
   * The run's id (feedback by run, the prompt cache of each model, the budget's spend). Default: one id per
   * `generateText`/`streamText` call, made at its first step (its `providerMetadata["irt-router"].runId`), told
   * apart by the call's own `steps` array (so concurrent calls sharing messages get one id each).
   */
  readonly runId?: string;
  /** A task hint for every step. */
  readonly task?: string;
  /**
   * What every step needs of a model: `tools` when the loop binds tools, `structuredOutput` when it asks for JSON.
   * A `prepareStep` does not see the call's tools or response format (the router reads them itself only when it is
   * the call's `model`), so tell it here: a model whose `capabilities` lack it (e.g. `{ tools: false }`) is then not
   * chosen for any step (the decision lists it in `excluded`). Without it, every model is a candidate.
   */
  readonly needs?: { readonly tools?: boolean; readonly structuredOutput?: boolean };
}

const prepareStepOptionsSchema = z.strictObject({
  runId: z.string().min(1).optional(),
  task: routingOptionsShape.task,
  needs: z.strictObject({ tools: z.boolean().optional(), structuredOutput: z.boolean().optional() }).optional(),
});

/**
 * `options` checked: a ValidationError names each bad field by its path (`options.needs.tool`), an unknown key with
 * the closest known one ("did you mean tools?").
 */
export function parsePrepareStepOptions(options: unknown): IrtPrepareStepOptions {
  return parseWith(prepareStepOptionsSchema, options, "options");
}
