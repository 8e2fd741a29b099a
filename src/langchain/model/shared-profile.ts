/**
 * What the router reports about its children as a whole: the profile they share, and the LangSmith parameters they
 * share when a call has not chosen one of them yet.
 */
import type { BaseChatModel, BindToolsInput } from "@langchain/core/language_models/chat_models";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import { snapshot } from "../../core/contracts/route-decision.js";
import { PLANNED, type WithPlanned } from "../calls/call-plans.js";
import { profileOf } from "../bridge/chat-model-slots.js";
import type { ChatSlot } from "../bridge/chat-engine.js";

/**
 * Conservative intersection of the children's profiles: a capability is claimed only when every child has it
 * (booleans: all true; numbers: the minimum; lists: the common items). A child whose profile cannot be read has none.
 */
export function sharedProfile(models: readonly unknown[]): ModelProfile {
  const profiles = models.map((m) => {
    const read = profileOf(m);
    return "profile" in read ? read.profile : {};
  });
  const keys = new Set(profiles.flatMap((p) => Object.keys(p)));
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const values = profiles.map((p) => p[key]);
    if (values.some((v) => v === undefined)) continue;
    if (values.every((v) => typeof v === "boolean")) out[key] = values.every(Boolean);
    else if (values.every((v) => typeof v === "number")) out[key] = Math.min(...(values as number[]));
    else if (values.every(Array.isArray)) {
      out[key] = (values[0] as unknown[]).filter((x) => values.every((v) => (v as unknown[]).includes(x)));
    }
  }
  return out as ModelProfile;
}

/** LangSmith parameters every child reports alike. */
const SHARED_LS_KEYS = ["ls_temperature", "ls_max_tokens", "ls_stop"] as const;

/**
 * The six standard LangSmith parameters, each present (undefined when not known), as LangChain's own chat models
 * report them (ChatOpenAI: `ls_temperature: params.temperature ?? undefined`) and its standard tests require.
 */
const STANDARD_LS_PARAMS = {
  ls_provider: undefined,
  ls_model_name: undefined,
  ls_model_type: "chat",
  ls_temperature: undefined,
  ls_max_tokens: undefined,
  ls_stop: undefined,
} as const;

/**
 * The router's LangSmith parameters for a call that carries no choice: its own identity, plus the temperature, max
 * tokens and stop sequences when every child reports the same (the call's own `stop` first); each standard key is
 * present, undefined when the children differ or do not report it.
 */
export function sharedLsParams(
  models: readonly BaseChatModel[],
  options: { stop?: string[] } | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...STANDARD_LS_PARAMS,
    ls_provider: "irt-router",
    ls_model_name: "irt-router",
    ls_model_type: "chat",
  };
  const params = models.map((m) => {
    try {
      return m.getLsParams((options ?? {}) as never) as Record<string, unknown>;
    } catch {
      return {};
    }
  });
  for (const key of SHARED_LS_KEYS) {
    const first = JSON.stringify(params[0]?.[key]);
    if (params[0]?.[key] !== undefined && params.every((p) => JSON.stringify(p[key]) === first))
      out[key] = params[0]![key];
  }
  if (options?.stop !== undefined) out.ls_stop = options.stop;
  return out;
}

/** The bound tools (as OpenAI-format definitions, which serialize) and their options, for the cache key and traces. */
export function boundTools(bound: { tools: BindToolsInput[]; kwargs?: unknown } | undefined): Record<string, unknown> {
  if (!bound) return {};
  const tools = bound.tools.map((t) => {
    try {
      return convertToOpenAITool(t as never);
    } catch {
      return t;
    }
  });
  return { tools, tool_options: bound.kwargs };
}

/**
 * The LangSmith parameters of a call the router planned (see `IrtRouter.getLsParams`): the chosen child's provider
 * and model name (`ls_model_name` defaults to its key in `models`), with the decision when the call has one prompt.
 * That is the first choice: a fallback's own run, nested under the router's, reports the fallback. Every standard
 * key is present (undefined when the child does not report it). For options that
 * carry no choice (a `generate()` whose prompts went to different models, or options from elsewhere), the router's
 * own identity, `ls_provider: "irt-router"`, with the temperature, max tokens and stop sequences the children share.
 */
export function plannedLsParams(
  options: unknown,
  slots: readonly ChatSlot[],
): ReturnType<BaseChatModel["getLsParams"]> {
  const plans = (options as WithPlanned<object> | undefined)?.[PLANNED]?.plans ?? [];
  const first = plans.map((p) => ("plan" in p ? p.plan.order[0] : undefined));
  const slot = first[0];
  if (slot && first.every((s) => s === slot)) {
    const params = slot.model.getLsParams(options as never);
    // BaseChatModel puts these in the run's metadata: with them, the decision as planned (one prompt)
    const decision = plans.length === 1 && "plan" in plans[0]! ? { irtRouter: snapshot(plans[0].plan.decision) } : {};
    const stop = (options as { stop?: string[] } | undefined)?.stop;
    return {
      ...STANDARD_LS_PARAMS,
      ls_stop: stop,
      ...params,
      ls_model_name: params.ls_model_name ?? slot.id,
      ...decision,
    };
  }
  return sharedLsParams(
    slots.map((s) => s.model),
    options as never,
  ) as ReturnType<BaseChatModel["getLsParams"]>;
}
