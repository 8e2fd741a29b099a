/**
 * The AI SDK 7 face ({@link IrtRouterModelV4}, `LanguageModelV4`): the same router over the same core as
 * {@link IrtRouterModel}, for children that are `LanguageModelV4`s (`ai` 7's providers). LanguageModelV4 keeps
 * LanguageModelV3's shapes for everything the router reads or writes (prompt messages and parts, `usage` with
 * `inputTokens.cacheRead`/`cacheWrite`, content parts, stream parts, `providerMetadata`), so the V3 router serves V4
 * children as they are and this face only states the version. {@link createIrtRouterModel} picks the face from the
 * children's `specificationVersion`.
 */
import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { FeedbackEvent } from "../learning/events.js";
import type { RunRouter } from "../runs/run-router.js";
import type { CorePlan, RouterCore } from "../core/router-core.js";
import type { RouteDecision } from "../core/contracts/route-decision.js";
import type { FeedbackOptions } from "../core/feedback/outcome-events.js";
import { ValidationError } from "../errors.js";
import { childEntries, childVersions } from "./children.js";
import { checkChildren, isModelOf } from "./children-schema.js";
import type { AiMessage } from "./prompt-messages.js";
import type { IrtRouterCallOptions } from "./call-options.js";
import { IrtRouterModel, type AiSdkModelConfig, type IrtRouterModelOptions } from "./router-model.js";

/**
 * An AI SDK `LanguageModelV4` (ai 7), as far as the router relies on it. Typed structurally: this package's types
 * import `@ai-sdk/provider`, whose major is 3 under ai 6 and 4 under ai 7, and only the latter has the V4 types.
 */
export interface LanguageModelV4Like {
  readonly specificationVersion: "v4";
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls: PromiseLike<Record<string, RegExp[]>> | Record<string, RegExp[]>;
  doGenerate(options: any): PromiseLike<any>;
  doStream(options: any): PromiseLike<any>;
}

/** One V4 child with what the router must know of it. */
export interface AiSdkModelConfigV4 extends Omit<AiSdkModelConfig, "model"> {
  readonly model: LanguageModelV4Like;
}

/** Options of the V4 face: as {@link IrtRouterModelOptions}, with `LanguageModelV4` children. */
export interface IrtRouterModelV4Options extends Omit<IrtRouterModelOptions, "models"> {
  readonly models:
    | Readonly<Record<string, LanguageModelV4Like | AiSdkModelConfigV4>>
    | readonly (LanguageModelV4Like | (AiSdkModelConfigV4 & { readonly id?: string }))[];
}

/** The V4 child as the V3 router calls it: the same object's methods under the V3 version tag. */
function asV3(model: LanguageModelV4Like): LanguageModelV3 {
  return {
    specificationVersion: "v3",
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },
    doGenerate: (options) => model.doGenerate(options),
    doStream: (options) => model.doStream(options),
  };
}

const isModel = isModelOf<LanguageModelV4Like>("v4");

/** The V4 children as V3 children: each entry with its id, its model seen through {@link asV3}. */
function v3Children(models: IrtRouterModelV4Options["models"]): IrtRouterModelOptions["models"] {
  return childEntries(models, isModel).map((e) => ({ ...e, model: asV3(e.model) }));
}

/**
 * The router as an AI SDK `LanguageModelV4` (ai 7): routes every call among V4 children, with fallback, realized
 * cost from the reported usage (cache reads and writes included) and the decision in `providerMetadata["irt-router"]`,
 * exactly as {@link IrtRouterModel} (which it delegates to). Made by {@link createIrtRouterModel} when the children
 * are `LanguageModelV4`s; works with {@link irtPrepareStep}, {@link irtFeedback} and {@link irtOnFinish}.
 */
export class IrtRouterModelV4 implements LanguageModelV4Like {
  readonly specificationVersion = "v4" as const;
  readonly provider = "irt-router";
  readonly modelId: string;
  /** The V3 router this is the V4 face of (same core, same rules). */
  readonly router: IrtRouterModel;

  constructor(options: IrtRouterModelV4Options) {
    checkChildren(options, "v4");
    this.router = new IrtRouterModel({ ...options, models: v3Children(options.models) });
    this.modelId = this.router.modelId;
  }

  /** The URLs every child reads itself (see {@link IrtRouterModel.supportedUrls}). */
  get supportedUrls(): PromiseLike<Record<string, RegExp[]>> | Record<string, RegExp[]> {
    return this.router.supportedUrls;
  }

  /** The framework-neutral router the children are routed with. */
  get core(): RouterCore {
    return this.router.core;
  }

  doGenerate(options: any): PromiseLike<any> {
    return this.router.doGenerate(options);
  }

  doStream(options: any): PromiseLike<any> {
    return this.router.doStream(options);
  }

  /** Plans a call from AI SDK messages (see {@link IrtRouterModel.plan}). */
  plan(
    messages: readonly AiMessage[],
    call: IrtRouterCallOptions & { readonly needs?: { readonly tools?: boolean; readonly structuredOutput?: boolean } },
  ): Promise<CorePlan> {
    return this.router.plan(messages, call);
  }

  /** A `LanguageModelV4` that serves one call with this plan (see {@link IrtRouterModel.planned}). */
  planned(plan: CorePlan): LanguageModelV4Like {
    const model = this.router.planned(plan);
    return {
      specificationVersion: "v4",
      provider: model.provider,
      modelId: model.modelId,
      supportedUrls: this.supportedUrls,
      doGenerate: (options) => model.doGenerate(options),
      doStream: (options) => model.doStream(options),
    };
  }

  /** Records a run's or a decision's outcome (see `RouterCore.feedback`). */
  feedback(id: string, outcome: boolean | number, options: FeedbackOptions = {}): Promise<FeedbackEvent[]> {
    return this.router.feedback(id, outcome, options);
  }

  /** Recent decisions (oldest first), JSON-safe. */
  decisions(limit?: number): RouteDecision[] {
    return this.router.decisions(limit);
  }

  /** The run-level router over the same models. */
  get runs(): RunRouter {
    return this.router.runs;
  }
}

/**
 * An AI SDK language model that routes every call among `models`: with `LanguageModelV3` children (ai 6 providers)
 * an {@link IrtRouterModel} (`LanguageModelV3`), with `LanguageModelV4` children (ai 7 providers) an
 * {@link IrtRouterModelV4} (`LanguageModelV4`); children of both versions together are refused (a ValidationError).
 * Usable anywhere an AI SDK model is (`generateText`, `streamText`, `ToolLoopAgent`). The options are the router's
 * (policy, learner or store, tracing, decisionSink, shadow, cacheAware, escalation, ...). A call's run id is
 * `providerOptions["irt-router"].runId` (or the `x-irt-router-run-id` header); its decision is
 * `providerMetadata["irt-router"]`.
 *
 * @example
 * ```ts
 * import { generateText } from "ai";
 * import { createOpenAI } from "@ai-sdk/openai";
 * import { createIrtRouterModel } from "irt-router/ai-sdk";
 *
 * const openai = createOpenAI({ apiKey: process.env.OPENAI_API_KEY });
 * const model = createIrtRouterModel({
 *   models: { "gpt-4o": openai.chat("gpt-4o"), "gpt-4o-mini": openai.chat("gpt-4o-mini") },
 *   policy: { kind: "cost-aware", lambda: 20 },
 * });
 * const result = await generateText({
 *   model,
 *   prompt: "What is 17 * 23?",
 *   providerOptions: { "irt-router": { runId: "run-1" } },
 * });
 * console.log(result.providerMetadata?.["irt-router"]?.chosen);
 * await model.feedback("run-1", result.text.includes("391"), { source: "grader" });
 * ```
 */
export function createIrtRouterModel(options: IrtRouterModelV4Options): IrtRouterModelV4;
export function createIrtRouterModel(options: IrtRouterModelOptions): IrtRouterModel;
export function createIrtRouterModel(
  options: IrtRouterModelOptions | IrtRouterModelV4Options,
): IrtRouterModel | IrtRouterModelV4 {
  const versions = childVersions((options as { models?: unknown } | undefined)?.models);
  if (versions.has("v3") && versions.has("v4")) {
    throw new ValidationError(
      "options.models: give children of one AI SDK version (all LanguageModelV3, or all LanguageModelV4), " +
        "not a mix of both",
      { path: "options.models" },
    );
  }
  // Without a V4 child, the V3 face (whose validation tells what is wrong with any other child, or the options)
  return versions.has("v4")
    ? new IrtRouterModelV4(options as IrtRouterModelV4Options)
    : new IrtRouterModel(options as IrtRouterModelOptions);
}
