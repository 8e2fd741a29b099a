/**
 * The router's per-call options as an AI SDK call gives them: `providerOptions["irt-router"]` (`runId`, `task`,
 * `model`), validated into a ValidationError that names the field as the user wrote it
 * (`providerOptions["irt-router"].runId`), an unknown key refused with the closest known one, a `model` that is no
 * registered child refused with the registered ids; and the run id of the `x-irt-router-run-id` header.
 */
import { z } from "zod";
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { checkRegistered } from "../core/contracts/registered-model.js";
import { parseWith } from "../util/validate.js";
import { PROVIDER_KEY } from "./prompt-messages.js";

/** The header that carries a call's run id when `providerOptions` cannot (it is removed before the child's call). */
export const RUN_ID_HEADER = "x-irt-router-run-id";

/** The router's per-call options, read from `providerOptions["irt-router"]`. */
export interface IrtRouterCallOptions {
  /** The agent run the call belongs to (feedback by run, the run's prompt cache, the budget's spend). */
  readonly runId?: string;
  /** A task hint for the call. */
  readonly task?: string;
  /**
   * Serve this child (its registered id), without fallback, whatever the router would choose (the choice is kept as
   * the decision's `shadow.chosen`): for a call whose conversation state lives at one provider.
   */
  readonly model?: string;
}

/** The field the options are read from, as the user writes it. */
export const CALL_OPTIONS_FIELD = `providerOptions["${PROVIDER_KEY}"]`;

const text = (what: string) => z.string({ error: `must be a string (${what})` }).min(1, { error: "must not be empty" });

const callOptionsSchema = z.strictObject(
  {
    runId: text("the agent run's id").optional(),
    task: text("a task hint").optional(),
    model: text("a registered child's id").optional(),
  },
  { error: "must be an object: { runId?, task?, model? }" },
) satisfies z.ZodType<IrtRouterCallOptions>;

/**
 * The call's router options (see the module comment): `runId` from the provider options, else the header. Throws a
 * ValidationError for bad options, or a `model` not among `registered`.
 */
export function callOptionsOf(
  options: LanguageModelV3CallOptions,
  registered: readonly string[],
): IrtRouterCallOptions {
  const given = options.providerOptions?.[PROVIDER_KEY];
  const parsed = given === undefined ? {} : parseWith(callOptionsSchema, given, CALL_OPTIONS_FIELD);
  if (parsed.model !== undefined) checkRegistered(parsed.model, registered, `${CALL_OPTIONS_FIELD}.model`);
  const runId = parsed.runId ?? options.headers?.[RUN_ID_HEADER];
  return {
    ...(runId !== undefined && runId !== "" ? { runId } : {}),
    ...(parsed.task !== undefined ? { task: parsed.task } : {}),
    ...(parsed.model !== undefined ? { model: parsed.model } : {}),
  };
}
