import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import { CallbackManager, type CallbackManagerForLLMRun, type Callbacks } from "@langchain/core/callbacks/manager";
import {
  AIMessageChunk,
  coerceMessageLikeToMessage,
  type AIMessage,
  type BaseMessage,
  type BaseMessageLike,
} from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult, type LLMResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import type { IterableReadableStream } from "@langchain/core/utils/stream";
import { ValidationError } from "../../errors.js";
import type { FeedbackEvent } from "../../learning/events.js";
import { parseWith } from "../../util/validate.js";
import { snapshot, type RouteDecision } from "../../core/contracts/route-decision.js";
import { attachDecision } from "../calls/delegate.js";
import { TASK_METADATA_KEY, taskOf } from "../../core/routing/task-hint.js";
import type { RouterCalibrateOptions } from "./calibrate.js";
import type { FeedbackOptions } from "../../core/feedback/outcome-events.js";
import type { CalibrationResult } from "../../learning/new-model-calibration.js";
import { MemoryFeedbackSink } from "../../core/feedback/recorder.js";
import type { CallNeeds } from "../../core/routing/model-slots.js";
import { irtRouterOptionsSchema, type IrtRouterOptions } from "../bridge/options.js";
import { ATTEMPT_TIMEOUT, usableUsage, type AttemptBound } from "../calls/attempt.js";
import { PLANNED, delegated, dropUntaken, planCall } from "../calls/call-plans.js";
import { relayChunks, reportChunks, startStream, streamKeepingTimeout } from "../calls/stream-relay.js";
import { invokeStructured, streamStructured, type StructuredHost } from "./structured-run.js";
import { boundTools, plannedLsParams, sharedProfile } from "./shared-profile.js";
import { attemptInOrder, prepareChild, type AttemptHow } from "../calls/fallback-chain.js";
import { ChildRuns } from "../calls/child-runs.js";
import { asChunk, cacheKeyOptions, cacheLookup, cacheStore, mergeResults } from "./router-cache.js";
import { keepTimeouts } from "./batch-timeouts.js";
import { RunRoutedChatModel } from "./run-surface.js";
import { INTERNAL, NOT_BOTH, ownSettings, type DerivedState, type OwnSettings } from "./router-state.js";
import { chatEngine, tokenUsage, type ChatEngine, type ChatSlot } from "../bridge/chat-engine.js";
import { toRouteMessages } from "../bridge/route-messages.js";

/** Each router's routing core, for {@link engineOf}. */
const ENGINES = new WeakMap<IrtRouter, ChatEngine>();

/**
 * A LangChain chat model that, on every call, sends the request to the wrapped model most likely
 * to answer it correctly at the price the policy accepts (IRT scorer: p = sigmoid(alpha . theta - beta)).
 *
 * It behaves like the chosen child: `bindTools` binds the raw tools on whichever child is picked,
 * `withStructuredOutput` is replayed on it, `stream`/`streamEvents` yield the child's own chunks,
 * and all call options (callbacks, signal, stop, timeout, tags, metadata, runName, configurable)
 * reach the child unchanged. Every response carries `response_metadata.irtRouter` (the decision);
 * the child's run carries it in `metadata.irtRouter` and the tags `irt-router`, `irt-router:<id>`.
 * When the chosen child throws (rate limit, 5xx, timeout; never an abort), the next-best candidate
 * is tried, up to `maxAttempts` models.
 *
 * @example
 * ```ts
 * import { ChatOpenAI } from "@langchain/openai";
 * import { ChatAnthropic } from "@langchain/anthropic";
 * import { IrtRouter, routeDecisionOf } from "irt-router/langchain";
 *
 * const router = new IrtRouter({
 *   models: {
 *     "gpt-4-1106-preview": { model: new ChatOpenAI({ model: "gpt-4-1106-preview" }) },
 *     "claude-instant-v1": { model: new ChatAnthropic({ model: "claude-instant-1.2" }) },
 *   },
 *   policy: { kind: "cost-aware", lambda: 50 },
 * });
 * const reply = await router.invoke("Prove that sqrt(2) is irrational.");
 * const decision = routeDecisionOf(reply)!;
 * console.log(decision.chosen);
 * await router.feedback(decision.decisionId, true);
 * ```
 */
export class IrtRouter extends RunRoutedChatModel {
  static override lc_name(): string {
    return "IrtRouter";
  }
  override lc_serializable = false;

  protected readonly engine: ChatEngine;
  private readonly own: OwnSettings;
  private readonly bound?: DerivedState["bound"];
  private readonly structured?: DerivedState["structured"];
  private readonly prepared = new Map<string, Runnable>();

  constructor(options: IrtRouterOptions) {
    const derived = (options as unknown as { [INTERNAL]?: DerivedState } | undefined)?.[INTERNAL];
    const parsed = derived ? undefined : parseWith(irtRouterOptionsSchema, options, "options");
    const own = derived ? derived.own : ownSettings(parsed!);
    super({ callbacks: own.callbacks, tags: own.tags, metadata: own.metadata, verbose: own.verbose, cache: own.cache });
    this.own = own;
    this.engine = derived ? derived.engine : chatEngine(parsed!);
    ENGINES.set(this, this.engine);
    this.bound = derived?.bound;
    this.structured = derived?.structured;
  }

  /** A router sharing this one's engine and settings (its cache as it is now) with `change` applied. */
  private derive(change: Partial<DerivedState>): IrtRouter {
    const state: DerivedState = {
      engine: this.engine,
      own: { ...this.own, cache: this.cache ?? false },
      bound: this.bound,
      structured: this.structured,
      ...change,
    };
    return new IrtRouter({ [INTERNAL]: state } as unknown as IrtRouterOptions);
  }

  override _llmType(): string {
    return "irt-router";
  }

  /** The registered model ids, in registration order. */
  get modelIds(): string[] {
    return this.engine.slots.map((s) => s.id);
  }

  /** The routing policy in short form, e.g. `cost-aware(lambda=20)`. */
  get policyName(): string {
    return this.engine.policyName;
  }

  /** Recent decisions (oldest first), as kept for feedback. */
  decisions(limit?: number): RouteDecision[] {
    return this.engine.log.recent(limit).map(snapshot);
  }

  /** Events written by `feedback()` when no `feedbackSink` was configured (else undefined). */
  get feedbackEvents(): readonly FeedbackEvent[] | undefined {
    return this.engine.sink instanceof MemoryFeedbackSink ? this.engine.sink.events : undefined;
  }

  /**
   * Record whether an answer was right: `id` is a decision id (`routeDecisionOf(reply).decisionId`)
   * or a run id (the answered decisions of that run: the middleware's `irtRouterRunId`, or the
   * `metadata.irtRouterRunId` you passed). `outcome` is true/false or a grade in [0, 1]. Writes one
   * {@link FeedbackEvent} per credited decision (with the query's alpha/beta) to the sink, applies them to the learner
   * (the `learner` given, the one `store` restores, else an in-memory one the first outcome starts) and returns them.
   * A run's outcome is spread over its steps as `options.attribution` says (default: mode "posterior", a success
   * credits every step and a failure blames each step by its chance of being the one that failed, from the p the
   * router predicted for it; a step whose tool call errored is a failure of its own). Other modes: "every", "last",
   * "discounted" (`{ mode, discount, toolErrorsAsFailures }`, as `attributeRun`). The events' total weight is at most
   * `feedbackLimits.maxRunWeight` (default 1).
   * Throws a FEEDBACK error for an unknown id, an outcome outside [0, 1], a bad option, or a repeated outcome.
   *
   * @example
   * ```ts
   * import { routeDecisionOf } from "irt-router/langchain";
   *
   * const reply = await router.invoke("What is 17 * 23?");
   * await router.feedback(routeDecisionOf(reply)!.decisionId, reply.text.includes("391"));
   * await router.feedback(result.irtRouterRunId, true, { attribution: { mode: "discounted", toolErrorsAsFailures: true } });
   * ```
   */
  feedback(id: string, outcome: boolean | number, options: FeedbackOptions = {}): Promise<FeedbackEvent[]> {
    return this.engine.feedback(id, outcome, options);
  }

  /**
   * Brings a model's ability estimate up to speed: asks it probe questions chosen by maximum Fisher information
   * under the router's `learner` (an `OnlineLearner`), grades the replies, journals each outcome to the feedback
   * sink before it counts, and stops at `budget` or when the estimate is certain enough.
   *
   * The probe set (`probes`, `prompt`, `grade`) is given: `multipleChoiceProbes(scorer)` from `irt-router/adapters`
   * builds one from the data root's MMLU-Pro (or your own bank, question text and grader).
   *
   * @example
   * ```ts
   * import { multipleChoiceProbes } from "irt-router/adapters";
   * const result = await router.calibrate("my-new-model", { budget: 40, ...(await multipleChoiceProbes(scorer)) });
   * console.log(result.predictedAccuracy, result.stopReason);
   * ```
   */
  async calibrate(modelId: string, options: RouterCalibrateOptions): Promise<CalibrationResult> {
    // loaded on first use: a router that never calibrates does not load the probe picker (first-call time)
    const { calibrateRoutedModel } = await import("./calibrate.js");
    return calibrateRoutedModel(this.engine, modelId, options);
  }

  /**
   * Decide without calling any model: the decision the router would make for these messages now
   * (with `attempts` empty). Useful for dry runs and offline evaluation. The decision is logged but,
   * having no answer, takes no feedback.
   *
   * @example
   * ```ts
   * const d = await router.decide("Prove that sqrt(2) is irrational.");
   * console.log(d.chosen, d.candidates);
   * ```
   */
  async decide(
    input: BaseLanguageModelInput,
    options: { toolsBound?: boolean; runId?: string; task?: string } = {},
  ): Promise<RouteDecision> {
    const messages = IrtRouter._convertInputToPromptValue(input).toChatMessages();
    const { toolsBound = this.needs.toolsBound, runId } = options;
    const task = taskOf({ metadata: { [TASK_METADATA_KEY]: options.task } });
    const routed = toRouteMessages(messages);
    return snapshot((await this.engine.plan(routed, { ...this.needs, toolsBound, runId, task })).decision);
  }

  // ---------------------------------------------------------------- model surface

  override bindTools(tools: BindToolsInput[], kwargs?: Partial<BaseChatModelCallOptions>): IrtRouter {
    if (this.structured) throw new ValidationError(NOT_BOTH, { path: "bindTools" });
    return this.derive({ bound: { tools, kwargs } });
  }

  override withStructuredOutput(outputSchema: any, config?: any): Runnable<BaseLanguageModelInput, any> {
    if (this.bound) throw new ValidationError(NOT_BOTH, { path: "withStructuredOutput" });
    return this.derive({ structured: [outputSchema, config] }) as unknown as Runnable<BaseLanguageModelInput, any>;
  }

  /** Conservative intersection of the children's profiles: a capability is claimed only when every child has it. */
  override get profile(): ModelProfile {
    return sharedProfile(this.engine.slots.map((s) => s.model));
  }

  /**
   * LangSmith parameters of the model this call goes to, read by BaseChatModel when it opens the router's run, after
   * the router has chosen (see {@link IrtRouter.generate}); `plannedLsParams` (shared-profile.ts) says which.
   */
  override getLsParams(options: this["ParsedCallOptions"]) {
    return plannedLsParams(options, this.engine.slots);
  }

  /**
   * What makes two calls of this router the same call, for its cache key and traces: the models, the policy and the
   * bound tools (as OpenAI-format definitions) with their options.
   */
  override invocationParams(): Record<string, unknown> {
    return { models: this.modelIds, policy: this.policyName, ...boundTools(this.bound) };
  }

  override _identifyingParams(): Record<string, unknown> {
    return this.invocationParams();
  }

  /** The cache key leaves out what an agent's runtime adds to every call (checkpoint ids, writer, signal). */
  override _getSerializedCacheKeyParametersForCall(
    options: Parameters<BaseChatModel["_getSerializedCacheKeyParametersForCall"]>[0],
  ): string {
    return super._getSerializedCacheKeyParametersForCall(
      cacheKeyOptions(options as Record<string, unknown>) as typeof options,
    );
  }

  // ---------------------------------------------------------------- delegation

  /**
   * What the calls need of a model. Tool calling when tools were bound and there is at least one: `createAgent`
   * binds its tool list even when it is empty, and a model without tool calling can serve such an agent (see
   * prepare). Structured output after `withStructuredOutput`.
   */
  private get needs(): CallNeeds {
    return {
      toolsBound: this.bound !== undefined && this.bound.tools.length > 0,
      structuredOutput: this.structured !== undefined,
    };
  }

  /** The child as this router uses it: with the bound tools or the structured-output schema replayed (cached). */
  private prepare(slot: ChatSlot): Runnable {
    let child = this.prepared.get(slot.id);
    if (!child) this.prepared.set(slot.id, (child = prepareChild(slot, this.bound, this.structured)));
    return child;
  }

  /** See {@link attemptInOrder}. */
  private attempt<T>(
    messages: BaseMessage[],
    config: Partial<BaseChatModelCallOptions> | undefined,
    how: AttemptHow<T>,
  ) {
    const parts = {
      engine: this.engine,
      needs: this.needs,
      attemptTimeout: this.engine.attemptTimeout,
      structured: this.structured !== undefined,
    };
    return attemptInOrder({ ...parts, prepare: (slot) => this.prepare(slot) }, messages, config, how);
  }

  /** What the structured-output path (structured-run.ts) uses of this router. */
  private get host(): StructuredHost {
    return {
      engine: this.engine,
      name: this.getName(),
      own: { callbacks: this.callbacks, tags: this.tags, metadata: this.metadata, verbose: this.verbose },
      serialized: () => this.toJSON(),
      messages: (input) => IrtRouter._convertInputToPromptValue(input).toChatMessages(),
      attempt: (messages, config, how) => this.attempt(messages, config, how),
    };
  }

  /**
   * A chat model's `invoke` (BaseChatModel's: through {@link generate}, so the router's own chat-model run, its
   * cache and its callbacks apply), or, after `withStructuredOutput`, the chosen child's parsed output.
   */
  override async invoke(
    input: BaseLanguageModelInput,
    options?: Partial<BaseChatModelCallOptions>,
  ): Promise<AIMessageChunk> {
    if (this.structured) return (await invokeStructured(this.host, input, options)) as AIMessageChunk;
    return super.invoke(input, options);
  }

  /** As a chat model's, with the call's `timeout` kept to bound each attempt (see `streamKeepingTimeout`). */
  override async stream(
    input: BaseLanguageModelInput,
    options?: Partial<BaseChatModelCallOptions>,
  ): Promise<IterableReadableStream<AIMessageChunk>> {
    if (this.structured)
      return (await streamStructured(this.host, input, options)) as IterableReadableStream<AIMessageChunk>;
    return streamKeepingTimeout(options, (config) => this._streamIterator(input, config));
  }

  /**
   * BaseChatModel's stream, with the choice made before its run opens (so the run reports the chosen child) and the
   * router's cache read and written: a cached reply comes back as one chunk, through {@link invoke}.
   */
  override async *_streamIterator(
    input: BaseLanguageModelInput,
    options?: Partial<BaseChatModelCallOptions>,
  ): AsyncGenerator<AIMessageChunk> {
    if (this.structured) {
      yield* (await streamStructured(this.host, input, options)) as AsyncIterable<AIMessageChunk>;
      return;
    }
    const { [ATTEMPT_TIMEOUT]: timeout, ...rest } = (options ?? {}) as Partial<BaseChatModelCallOptions> & {
      [ATTEMPT_TIMEOUT]?: number;
    };
    const messages = IrtRouter._convertInputToPromptValue(input).toChatMessages();
    if (await cacheLookup(this, messages, rest)) {
      yield asChunk(await this.invoke(input, { ...rest, timeout: timeout ?? rest.timeout }));
      return;
    }
    const planned = await this.planned([messages], rest, timeout);
    let aggregate: AIMessageChunk | undefined;
    try {
      for await (const chunk of super._streamIterator(input, {
        ...rest,
        [PLANNED]: planned,
      } as Partial<BaseChatModelCallOptions>)) {
        aggregate = aggregate === undefined ? chunk : aggregate.concat(chunk);
        yield chunk;
      }
      await cacheStore(this, messages, rest, aggregate);
    } finally {
      dropUntaken(this.engine, planned);
    }
  }

  /** See {@link planCall}. */
  private planned(prompts: BaseMessage[][], options: Partial<BaseChatModelCallOptions>, timeout?: number) {
    return planCall(this.engine, prompts, options, { needs: this.needs, ownMetadata: this.metadata, timeout });
  }

  /**
   * As BaseChatModel's, but the router chooses before the run opens: each prompt is planned (scored and ranked)
   * first, and the plans ride on the call options (see {@link PLANNED}) to `getLsParams`, so the router's run
   * reports the chosen child, and to `_generate` / `_streamResponseChunks`, which call the planned models without
   * planning again. A `timeout` bounds each attempt, as in `invoke`. With a cache, each prompt is a call of its own
   * (BaseChatModel 1.4 files a cached reply at its index among the cache hits, which drops replies of a mixed batch).
   */
  override async generate(
    messages: BaseMessageLike[][],
    options?: string[] | Partial<BaseChatModelCallOptions>,
    callbacks?: Callbacks,
  ): Promise<LLMResult> {
    const { timeout, ...rest }: Partial<BaseChatModelCallOptions> = Array.isArray(options)
      ? { stop: options }
      : { ...options };
    const prompts = messages.map((list) => list.map(coerceMessageLikeToMessage));
    if (this.cache && prompts.length > 1)
      return mergeResults(await Promise.all(prompts.map((p) => this.generate([p], { ...rest, timeout }, callbacks))));
    // An aborted call is left to _generate, which fails inside the run, as a call that is cancelled while planning does.
    if (rest.signal?.aborted) return super.generate(prompts, rest, callbacks);
    const planned = await this.planned(prompts, rest, timeout);
    try {
      return await super.generate(
        prompts,
        { ...rest, [PLANNED]: planned } as Partial<BaseChatModelCallOptions>,
        callbacks,
      );
    } finally {
      // A prompt served from the router's cache never reaches _generate: its decision was not acted on, so it leaves
      // the decision log (its cached reply carries the decision of the call that made it).
      dropUntaken(this.engine, planned);
    }
  }

  override async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const { config, planned, timeout } = delegated(messages, options, runManager);
    const call = (child: Runnable, cfg: Record<string, unknown>) => child.invoke(messages, cfg);
    const { out, plan, slot } = await this.attempt(messages, config, { call, planned, timeout });
    this.engine.recordSpend(
      plan,
      slot.id,
      tokenUsage(usableUsage((out as AIMessage).usage_metadata, slot.id, (k, m) => this.engine.warnOnce(k, m))),
    );
    const message = attachDecision(out as BaseMessage, plan.decision); // with the realized cost
    return { generations: [{ message, text: message.text }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const { config, planned, timeout } = delegated(messages, options, runManager);
    // the attempts' runs, so that a stream that fails mid-way ends the router's run after its child's (one run tree)
    const runs = runManager && new ChildRuns(runManager.runId);
    if (runs) (config.callbacks as CallbackManager).addHandler(runs, false);
    const call = (child: Runnable, cfg: Record<string, unknown>, bound: AttemptBound) =>
      startStream(child, messages, cfg, bound);
    const started = await this.attempt(messages, config, { call, stream: true, planned, timeout });
    yield* reportChunks(relayChunks(started.out, { ...started, engine: this.engine }), runManager, runs);
  }

  /** The per-input configs of `batch()`, each `timeout` kept to bound each attempt (see `keepTimeouts`). */
  protected override _getOptionsList<O extends BaseChatModelCallOptions & { runType?: string }>(
    options: Partial<O> | Partial<O>[],
    length = 0,
  ): Partial<O>[] {
    return keepTimeouts(options, (untimed) => super._getOptionsList(untimed, length));
  }
}

/**
 * @internal The routing core of a router (used by the middleware): registered by the constructor, so every router,
 * derived ones included (`bindTools`, `withStructuredOutput` share their parent's), has one.
 */
export function engineOf(router: IrtRouter): ChatEngine {
  const engine = ENGINES.get(router);
  if (!engine) throw new TypeError("engineOf() needs an IrtRouter made by its constructor.");
  return engine;
}
