/**
 * {@link createIrtRouterModel}: an AI SDK `LanguageModelV3` that routes every call among child AI SDK models with
 * the framework-neutral {@link RouterCore}: the prompt becomes {@link RouteMessage}s, the chosen child is called,
 * a child that fails before any output (it throws, or its stream errors or ends first) falls back to the next, the
 * reported usage becomes the realized cost, and the decision rides in `providerMetadata["irt-router"]`.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamResult,
} from "@ai-sdk/provider";
import type { ModelPrice } from "../data/types.js";
import type { FeedbackEvent } from "../learning/events.js";
import type { RunRouter } from "../runs/run-router.js";
import { RouterCore, type CorePlan } from "../core/router-core.js";
import type { ModelCapabilities, RoutingOptions } from "../core/contracts/options.js";
import type { RouteDecision } from "../core/contracts/route-decision.js";
import type { FeedbackOptions } from "../core/feedback/outcome-events.js";
import { checkRegistered } from "../core/contracts/registered-model.js";
import { RUN_ID_HEADER, callOptionsOf, type IrtRouterCallOptions } from "./call-options.js";
import { childEntries } from "./children.js";
import { checkChildren, isModelOf } from "./children-schema.js";
import { PROVIDER_KEY, partTag, tagged, toRouteMessages, type AiMessage } from "./prompt-messages.js";
import { errorFinishFault } from "./error-finish.js";
import { decisionMetadata, tokenUsage } from "./route-metadata.js";
import { openStream, relayStream, type OpenedStream } from "./stream-relay.js";
import { commonSupportedUrls } from "./supported-urls.js";
import type { FeedbackIdNames } from "../core/feedback/id-names.js";

/** Where an AI SDK caller finds the ids `feedback()` takes, for the messages that refuse one. */
const AI_SDK_FEEDBACK_IDS: FeedbackIdNames = {
  decisionId: `a call's providerMetadata["${PROVIDER_KEY}"].decisionId`,
  runId:
    `the run id the calls were routed with (providerOptions["${PROVIDER_KEY}"].runId, the ${RUN_ID_HEADER} header, ` +
    `or irtPrepareStep's)`,
};

/** One child model with what the router must know of it. */
export interface AiSdkModelConfig {
  readonly model: LanguageModelV3;
  /** List price; default: the catalogs' price for the id, else unknown (cost 0, warned once). */
  readonly price?: ModelPrice;
  /** What the model can do (tools, structured output, context window); calls that need more are not routed to it. */
  readonly capabilities?: ModelCapabilities;
  /** Output tokens expected per call, for the cost estimate. */
  readonly expectedOutputTokens?: number;
}

/** Options of `createIrtRouterModel` (LanguageModelV3 children): the child models, and every routing option of the core. */
export interface IrtRouterModelOptions extends RoutingOptions {
  /**
   * The children, keyed by model id (a catalog id such as `gpt-4o` starts from its prior and price), or a list whose
   * entries are a model (its `modelId` is its id) or `{ id?, model, price?, capabilities? }`.
   */
  readonly models:
    | Readonly<Record<string, LanguageModelV3 | AiSdkModelConfig>>
    | readonly (LanguageModelV3 | (AiSdkModelConfig & { readonly id?: string }))[];
}

const isLanguageModel = isModelOf<LanguageModelV3>("v3");

/** The children as the core's models (ids, prices, capabilities) and the AI SDK models by id. */
function childrenOf(options: IrtRouterModelOptions): {
  core: Record<string, unknown>[];
  models: Map<string, LanguageModelV3>;
} {
  checkChildren(options, "v3");
  const list = childEntries(options.models, isLanguageModel);
  const models = new Map(list.map((e) => [e.id, e.model]));
  const core = list.map(({ model: _model, ...rest }) => rest);
  return { core, models };
}

/**
 * An AI SDK model that routes each call among its children (see {@link createIrtRouterModel}). Besides the
 * `LanguageModelV3` methods it has the router's own: `feedback`, `decisions`, `runs`, and `plan`/`planned` for
 * {@link irtPrepareStep}.
 */
export class IrtRouterModel implements LanguageModelV3 {
  readonly specificationVersion = "v3" as const;
  readonly provider = "irt-router";
  readonly modelId: string;
  /** The framework-neutral router the children are routed with. */
  readonly core: RouterCore;
  private readonly children: Map<string, LanguageModelV3>;

  constructor(options: IrtRouterModelOptions) {
    const { core, models } = childrenOf(options);
    const { models: _models, ...routing } = options;
    this.core = new RouterCore({ ...routing, models: core as never }, AI_SDK_FEEDBACK_IDS);
    this.children = models;
    this.modelId = `irt-router(${[...models.keys()].join(",")})`;
  }

  /**
   * The URLs every child reads itself (a call may fall back to any child): for each media type, the children's
   * patterns when they all declare the same ones for it, else none (the AI SDK downloads the URL). A promise when a
   * child's `supportedUrls` is one.
   */
  get supportedUrls(): PromiseLike<Record<string, RegExp[]>> | Record<string, RegExp[]> {
    return commonSupportedUrls([...this.children.values()]);
  }

  /**
   * Routes the call, calls the chosen child (falling back on a throw, or on a reply with no output whose finish reason
   * is "error": when no model is left, that reply is returned as it is, the decision recording the failure) and
   * returns its result with the decision.
   */
  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    return this.generate(await this.planCall(options), options);
  }

  /** As {@link doGenerate}, streaming: a child that fails before any output falls back to the next. */
  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    return this.stream(await this.planCall(options), options);
  }

  /** Plans a call from AI SDK messages (a prompt, or a step's `ModelMessage`s). */
  async plan(
    messages: readonly AiMessage[],
    call: IrtRouterCallOptions & { readonly needs?: { readonly tools?: boolean; readonly structuredOutput?: boolean } },
  ): Promise<CorePlan> {
    const { model, ...rest } = call;
    if (model !== undefined) checkRegistered(model, this.core.modelIds, "call.model", "plan(messages, call): ");
    return this.core.route({
      messages: toRouteMessages(messages),
      ...rest,
      ...(model !== undefined ? { serve: model } : {}),
    });
  }

  /** A model that serves one call with this plan (falling back in its order); a second call is routed anew. */
  planned(plan: CorePlan): LanguageModelV3 {
    let used = false;
    const take = () => !used && (used = true);
    return {
      specificationVersion: "v3",
      provider: this.provider,
      modelId: this.modelId,
      supportedUrls: this.supportedUrls,
      doGenerate: (options) => (take() ? this.generate(plan, options) : this.doGenerate(options)),
      doStream: (options) => (take() ? this.stream(plan, options) : this.doStream(options)),
    };
  }

  /** Records a run's or a decision's outcome (see `RouterCore.feedback`). */
  feedback(id: string, outcome: boolean | number, options: FeedbackOptions = {}): Promise<FeedbackEvent[]> {
    return this.core.feedback(id, outcome, options);
  }

  /** Recent decisions (oldest first), JSON-safe. */
  decisions(limit?: number): RouteDecision[] {
    return this.core.decisions(limit);
  }

  /** The run-level router over the same models. */
  get runs(): RunRouter {
    return this.core.runs;
  }

  private planCall(options: LanguageModelV3CallOptions): Promise<CorePlan> {
    const call = callOptionsOf(options, this.core.modelIds);
    const tools = (options.tools?.length ?? 0) > 0 && options.toolChoice?.type !== "none";
    return this.plan(options.prompt, {
      ...call,
      needs: { tools, structuredOutput: options.responseFormat?.type === "json" },
    });
  }

  private async generate(plan: CorePlan, options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const child = childOptions(options);
    for (let id: string | undefined = plan.models[0]; id !== undefined;) {
      const t0 = performance.now();
      const cancelled = () => options.abortSignal?.aborted === true;
      let result: LanguageModelV3GenerateResult;
      try {
        result = await this.children.get(id)!.doGenerate(child);
      } catch (error) {
        id = this.core.failed(plan, id, error, { ms: performance.now() - t0, cancelled: cancelled() });
        if (id === undefined) throw error;
        continue;
      }
      const fault = result.content.length === 0 ? errorFinishFault(id, result.finishReason) : undefined;
      if (fault) {
        const next = this.core.failed(plan, id, fault, { ms: performance.now() - t0, cancelled: cancelled() });
        // with no model left to fall back to, the reply as the provider gave it, its decision recording the failure
        if (next === undefined) return this.reply(plan, id, result);
        id = next;
        continue;
      }
      this.core.served(plan, id, tokenUsage(result.usage), performance.now() - t0);
      return this.reply(plan, id, result);
    }
    throw new Error("irt-router: a plan has at least one model"); // unreachable: route() throws NO_CANDIDATES first
  }

  /** A child's reply with its parts tagged and the decision in its provider metadata. */
  private reply(plan: CorePlan, id: string, result: LanguageModelV3GenerateResult): LanguageModelV3GenerateResult {
    const tag = partTag(id, plan.decision.decisionId);
    return {
      ...result,
      content: result.content.map((part) => tagged(part, tag)),
      providerMetadata: { ...result.providerMetadata, [PROVIDER_KEY]: decisionMetadata(plan.decision) },
    };
  }

  private async stream(plan: CorePlan, options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const child = childOptions(options);
    for (let id: string | undefined = plan.models[0]; id !== undefined;) {
      const t0 = performance.now();
      const cancelled = () => options.abortSignal?.aborted === true;
      let opened: OpenedStream;
      try {
        opened = await openStream(this.children.get(id)!, id, child);
      } catch (error) {
        id = this.core.failed(plan, id, error, { ms: performance.now() - t0, cancelled: cancelled() });
        if (id === undefined) throw error;
        continue;
      }
      if (opened.fault) {
        const next = this.core.failed(plan, id, opened.fault, { ms: performance.now() - t0, cancelled: cancelled() });
        if (next !== undefined) {
          opened.reader.cancel(opened.fault).catch(() => undefined);
          id = next;
          continue;
        }
        // with no model left to fall back to, the reply as the provider gave it, its decision recording the failure
      }
      return { ...opened.result, stream: relayStream(this.core, plan, id, opened, t0) };
    }
    throw new Error("irt-router: a plan has at least one model");
  }
}

/** The call as a child receives it: the router's own header and provider options removed. */
function childOptions(options: LanguageModelV3CallOptions): LanguageModelV3CallOptions {
  const { [PROVIDER_KEY]: _own, ...providerOptions } = options.providerOptions ?? {};
  const { [RUN_ID_HEADER]: _run, ...headers } = options.headers ?? {};
  return {
    ...options,
    ...(options.providerOptions ? { providerOptions } : {}),
    ...(options.headers ? { headers } : {}),
  };
}
