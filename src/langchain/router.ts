import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import { CallbackManager, type CallbackManagerForChainRun, type CallbackManagerForLLMRun, type Callbacks } from "@langchain/core/callbacks/manager";
import type { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { AIMessageChunk, coerceMessageLikeToMessage, isBaseMessage, type BaseMessage, type BaseMessageLike } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult, type LLMResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { IterableReadableStream } from "@langchain/core/utils/stream";
import { ValidationError } from "../errors.js";
import type { FeedbackEvent } from "../learning/events.js";
import { parseWith } from "../util/validate.js";
import { snapshot, type RouteDecision } from "./decision.js";
import { attachDecision, callInOrder, childConfig, isAbort, runIdOf } from "./delegate.js";
import { calibrateRoutedModel, type RouterCalibrateOptions } from "./calibrate.js";
import type { FeedbackOptions } from "./feedback.js";
import { ChildRuns } from "./child-runs.js";
import type { CalibrationResult } from "../learning/calibrate.js";
import { RouteEngine } from "./engine.js";
import { MemoryFeedbackSink } from "./feedback-recorder.js";
import type { RoutePlan } from "./planner.js";
import type { CallNeeds, ModelSlot } from "./slots.js";
import { irtRouterOptionsSchema, type IrtRouterOptions } from "./options.js";

const INTERNAL = Symbol("irt-router.internal");

/** Each router's routing core, for {@link engineOf}. */
const ENGINES = new WeakMap<IrtRouter, RouteEngine>();

/** The attempts under each of the router's own runs (see openRun), so a failed stream can end its run after them. */
const OWN_RUN_CHILDREN = new WeakMap<CallbackManagerForChainRun, ChildRuns>();

/**
 * Key of what `generate()` decided before BaseChatModel starts the router's run (see {@link Planned}). It rides on
 * the call options, as a symbol so that no serializer or child sees it: BaseChatModel copies the options object
 * (`{ ...options }`) before `getLsParams` and again before each `_generate`, so a WeakMap keyed on one of those
 * objects would lose it, while an own enumerable symbol survives every spread.
 */
const PLANNED = Symbol("irt-router.planned");

/** The plans of one `generate()` call, one per prompt (or the error planning gave), and the call's `timeout`. */
interface Planned {
  /** The prompts, as the message objects BaseChatModel hands on: a plan is found by its prompt (see {@link takePlan}). */
  readonly prompts: readonly (readonly BaseMessage[])[];
  readonly plans: readonly ({ plan: RoutePlan } | { error: unknown })[];
  /** Whether each plan was taken by the `_generate` / `_streamResponseChunks` call of its prompt. */
  readonly taken: boolean[];
  /** Handed to each attempt, as `invoke` does: taken out before BaseChatModel would turn it into one signal for the call. */
  readonly timeout?: number;
}

type WithPlanned<T> = T & { [PLANNED]?: Planned };

interface DerivedState {
  engine: RouteEngine;
  base: Pick<IrtRouterOptions, "callbacks" | "tags" | "metadata" | "verbose">;
  bound?: { tools: BindToolsInput[]; kwargs?: Partial<BaseChatModelCallOptions> };
  structured?: [unknown, unknown];
}

type Usage = { input_tokens?: number; output_tokens?: number };

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
 * import { IrtRouter } from "irt-router";
 *
 * const router = new IrtRouter({
 *   models: {
 *     "gpt-4-1106-preview": { model: new ChatOpenAI({ model: "gpt-4-1106-preview" }) },
 *     "claude-instant-v1": { model: new ChatAnthropic({ model: "claude-instant-1.2" }) },
 *   },
 *   policy: { kind: "cost-aware", lambda: 50 },
 * });
 * const reply = await router.invoke("Prove that sqrt(2) is irrational.");
 * console.log(reply.response_metadata.irtRouter.chosen);
 * await router.feedback(reply.response_metadata.irtRouter.decisionId, true);
 * ```
 */
export class IrtRouter extends BaseChatModel<BaseChatModelCallOptions> {
  static override lc_name(): string {
    return "IrtRouter";
  }
  override lc_serializable = false;

  private readonly engine: RouteEngine;
  private readonly base: DerivedState["base"];
  private readonly bound?: DerivedState["bound"];
  private readonly structured?: DerivedState["structured"];
  private readonly prepared = new Map<string, Runnable>();

  constructor(options: IrtRouterOptions) {
    const derived = (options as unknown as { [INTERNAL]?: DerivedState } | undefined)?.[INTERNAL];
    const parsed = derived ? undefined : parseWith(irtRouterOptionsSchema, options, "options");
    const base: DerivedState["base"] = derived
      ? derived.base
      : { callbacks: parsed!.callbacks, tags: parsed!.tags, metadata: parsed!.metadata, verbose: parsed!.verbose };
    super({ ...base });
    this.base = base;
    this.engine = derived ? derived.engine : new RouteEngine(parsed!);
    ENGINES.set(this, this.engine);
    this.bound = derived?.bound;
    this.structured = derived?.structured;
  }

  private derive(change: Partial<DerivedState>): IrtRouter {
    const state: DerivedState = {
      engine: this.engine,
      base: this.base,
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
   * Record whether an answer was right: `id` is a decision id (`response_metadata.irtRouter.decisionId`)
   * or a run id (the answered decisions of that run: the middleware's `irtRouterRunId`, or the
   * `metadata.irtRouterRunId` you passed). `outcome` is true/false or a grade in [0, 1]. Writes one
   * {@link FeedbackEvent} per credited decision (with the query's alpha/beta) to the sink and returns them.
   * A run's outcome credits every step with weight 1 unless `options.attribution` says otherwise
   * (`{ mode: "last" | "discounted", discount, toolErrorsAsFailures }`, as `attributeRun`).
   * Throws a FEEDBACK error for an unknown id, an outcome outside [0, 1], a bad option, or a repeated outcome.
   *
   * @example
   * ```ts
   * const reply = await router.invoke("What is 17 * 23?");
   * await router.feedback(reply.response_metadata.irtRouter.decisionId, reply.text.includes("391"));
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
  calibrate(modelId: string, options: RouterCalibrateOptions): Promise<CalibrationResult> {
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
  async decide(input: BaseLanguageModelInput, options: { toolsBound?: boolean; runId?: string } = {}): Promise<RouteDecision> {
    const messages = IrtRouter._convertInputToPromptValue(input).toChatMessages();
    const plan = await this.engine.plan(messages, { ...this.needs, toolsBound: options.toolsBound ?? this.needs.toolsBound, runId: options.runId });
    return snapshot(plan.decision);
  }

  // ---------------------------------------------------------------- model surface

  override bindTools(tools: BindToolsInput[], kwargs?: Partial<BaseChatModelCallOptions>): IrtRouter {
    if (this.structured) {
      throw new ValidationError(
        "bindTools() on a router made by withStructuredOutput() is not supported; bind tools first, or use the agent's responseFormat.",
        { path: "bindTools" },
      );
    }
    return this.derive({ bound: { tools, kwargs } });
  }

  override withStructuredOutput(outputSchema: any, config?: any): Runnable<BaseLanguageModelInput, any> {
    if (this.bound) {
      throw new ValidationError(
        "withStructuredOutput() on a router with bound tools is not supported (LangChain chat models do not support it either); call it on the unbound router.",
        { path: "withStructuredOutput" },
      );
    }
    return this.derive({ structured: [outputSchema, config] }) as unknown as Runnable<BaseLanguageModelInput, any>;
  }

  /** Conservative intersection of the children's profiles: a capability is claimed only when every child has it. */
  override get profile(): ModelProfile {
    const profiles = this.engine.slots.map((s) => ((s.model as { profile?: ModelProfile }).profile ?? {}) as Record<string, unknown>);
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

  /**
   * LangSmith parameters of the model this call goes to: BaseChatModel reads them when it opens the router's run
   * (`generate()`), after the router has chosen (see {@link IrtRouter.generate}), so the run reports the chosen
   * child's provider and model name (`ls_model_name` defaults to its key in `models`). That is the first choice: a
   * fallback's own run, nested under the router's, reports the fallback. For options that carry no choice (a
   * `generate()` whose prompts went to different models, or options from elsewhere), the router's own identity,
   * `ls_provider: "irt-router"`.
   */
  override getLsParams(options: this["ParsedCallOptions"]) {
    const plans = (options as WithPlanned<typeof options> | undefined)?.[PLANNED]?.plans ?? [];
    const first = plans.map((p) => ("plan" in p ? p.plan.order[0] : undefined));
    const slot = first[0];
    if (slot && first.every((s) => s === slot)) {
      const params = slot.model.getLsParams(options as never);
      return { ...params, ls_model_name: params.ls_model_name ?? slot.id };
    }
    return { ls_provider: "irt-router", ls_model_name: "irt-router", ls_model_type: "chat" as const, ls_stop: options?.stop };
  }

  // ---------------------------------------------------------------- delegation

  /**
   * What the calls need of a model. Tool calling when tools were bound and there is at least one: `createAgent`
   * binds its tool list even when it is empty, and a model without tool calling can serve such an agent (see
   * prepare). Structured output after `withStructuredOutput`.
   */
  private get needs(): CallNeeds {
    return { toolsBound: this.bound !== undefined && this.bound.tools.length > 0, structuredOutput: this.structured !== undefined };
  }

  /** The child as this router uses it: with the bound tools or the structured-output schema replayed. */
  private prepare(slot: ModelSlot): Runnable {
    let child = this.prepared.get(slot.id);
    if (child) return child;
    if (this.bound && !this.needs.toolsBound && typeof slot.model.bindTools !== "function") {
      // an empty tool list on a model that cannot bind tools: nothing to bind, so the model is called as it is
      child = slot.model as unknown as Runnable;
    } else if (this.bound) {
      if (typeof slot.model.bindTools !== "function") throw new TypeError(`model "${slot.id}" has no bindTools()`);
      child = slot.model.bindTools(this.bound.tools, this.bound.kwargs) as Runnable;
    } else if (this.structured) {
      child = slot.model.withStructuredOutput(this.structured[0] as never, this.structured[1] as never) as Runnable;
    } else {
      child = slot.model as unknown as Runnable;
    }
    this.prepared.set(slot.id, child);
    return child;
  }

  /**
   * Plan (unless `generate()` already did: `planned`), then call the candidates best-first until one succeeds (an
   * abort is never retried).
   */
  private async attempt<T>(
    messages: BaseMessage[],
    options: Partial<BaseChatModelCallOptions> | undefined,
    call: (child: Runnable, config: Partial<BaseChatModelCallOptions>) => Promise<T>,
    runId: string | undefined = runIdOf(options),
    planned?: Planned["plans"][number],
  ): Promise<{ out: T; plan: RoutePlan; slot: ModelSlot }> {
    let plan: RoutePlan;
    if (planned && "error" in planned) throw planned.error;
    else if (planned) plan = planned.plan;
    else {
      options?.signal?.throwIfAborted();
      this.engine.noteToolErrors(messages);
      plan = await this.engine.plan(messages, { ...this.needs, runId });
    }
    const { out, slot } = await callInOrder(plan, (slot, i) => call(this.prepare(slot), childConfig(options, plan.decision, slot.id, i)), {
      signal: options?.signal,
      cancelled: (error) => isAbort(error, options?.signal),
      fallbackOn: this.engine.fallbackOn,
    });
    return { out, plan, slot };
  }

  /**
   * The call options with the router's own `callbacks`, `tags`, `metadata` and `verbose` (constructor fields)
   * merged in, as `BaseChatModel.generate` does for every call: `invoke` and `stream` hand the call straight to
   * the child, so the router's own configuration must travel with it.
   */
  private withOwnConfig(options?: Partial<BaseChatModelCallOptions>): Partial<BaseChatModelCallOptions> | undefined {
    const ownTags = this.tags ?? [];
    const ownMetadata = this.metadata ?? {};
    if (this.callbacks === undefined && ownTags.length === 0 && Object.keys(ownMetadata).length === 0 && !this.verbose) return options;
    const tags = [...ownTags, ...(options?.tags ?? []).filter((t) => !ownTags.includes(t))];
    const callbacks = CallbackManager.configure(options?.callbacks, this.callbacks, undefined, undefined, undefined, undefined, { verbose: this.verbose });
    return { ...options, callbacks, tags, metadata: { ...ownMetadata, ...options?.metadata } };
  }

  /**
   * When the call names its run (`runId`; `streamEvents` always does), the router opens that run itself, a chain
   * run named by the call's `runName` (default "IrtRouter"), and every attempt runs nested under it with an id of its own. The id the caller chose
   * then names the call that answered, also after a fallback; handed to the first child instead, it would name a
   * failed attempt, and `streamEvents` would report a fallback's chunks twice (once under the failed attempt).
   * Without a `runId` the child is called directly and its run is the call's run.
   */
  private async openRun(
    input: BaseLanguageModelInput,
    options: Partial<BaseChatModelCallOptions> | undefined,
  ): Promise<{ run?: CallbackManagerForChainRun; options: Partial<BaseChatModelCallOptions> | undefined }> {
    if (typeof options?.runId !== "string") return { options };
    const manager = await CallbackManager.configure(options.callbacks, undefined, options.tags, undefined, options.metadata);
    if (!manager) return { options };
    const run = await manager.handleChainStart(this.toJSON(), { input }, options.runId, undefined, undefined, undefined, options.runName ?? this.getName());
    // getChild() passes on inheritable handlers only; the router's own constructor callbacks are local ones
    // (withOwnConfig) and still see the child's run, as they do when the child is called directly.
    const child = run.getChild();
    for (const handler of manager.handlers) if (!manager.inheritableHandlers.includes(handler)) child.addHandler(handler, false);
    const attempts = new ChildRuns(run.runId);
    child.addHandler(attempts, false);
    OWN_RUN_CHILDREN.set(run, attempts);
    const { runId: _own, ...rest } = options;
    return { run, options: { ...rest, callbacks: child } };
  }

  override async invoke(input: BaseLanguageModelInput, callOptions?: Partial<BaseChatModelCallOptions>): Promise<AIMessageChunk> {
    const own = this.withOwnConfig(callOptions);
    const { run, options } = await this.openRun(input, own);
    try {
      const messages = IrtRouter._convertInputToPromptValue(input).toChatMessages();
      const { out, plan, slot } = await this.attempt(messages, options, (child, config) => child.invoke(input, config), runIdOf(own));
      const output = attachDecision(out, plan.decision);
      this.engine.recordSpend(plan, slot.id, (out as { usage_metadata?: Usage })?.usage_metadata);
      await run?.handleChainEnd({ output });
      return output as AIMessageChunk;
    } catch (error) {
      await run?.handleChainError(error);
      throw error;
    }
  }

  override async stream(
    input: BaseLanguageModelInput,
    callOptions?: Partial<BaseChatModelCallOptions>,
  ): Promise<IterableReadableStream<AIMessageChunk>> {
    const own = this.withOwnConfig(callOptions);
    const { run, options } = await this.openRun(input, own);
    let started: Awaited<ReturnType<IrtRouter["attempt"]>> & { out: StartedStream };
    try {
      const messages = IrtRouter._convertInputToPromptValue(input).toChatMessages();
      started = await this.attempt(messages, options, (child, config) => startStream(child, input, config), runIdOf(own));
    } catch (error) {
      await run?.handleChainError(error);
      throw error;
    }
    return IterableReadableStream.fromAsyncGenerator(this.relay(started.out, started.plan, started.slot, run)) as IterableReadableStream<AIMessageChunk>;
  }

  private async *relay(started: StartedStream, plan: RoutePlan, slot: ModelSlot, run?: CallbackManagerForChainRun): AsyncGenerator<any> {
    const usage: Usage = {};
    let output: any;
    let failure: unknown;
    const count = (chunk: unknown) => {
      if (run) output = output === undefined ? chunk : typeof output?.concat === "function" ? output.concat(chunk) : chunk;
      const u = (chunk as { usage_metadata?: Usage })?.usage_metadata;
      if (u) {
        usage.input_tokens = (usage.input_tokens ?? 0) + (u.input_tokens ?? 0);
        usage.output_tokens = (usage.output_tokens ?? 0) + (u.output_tokens ?? 0);
      }
    };
    try {
      if (!started.first.done) {
        const first = attachDecision(started.first.value, plan.decision);
        count(first);
        yield first;
        for (let next = await started.it.next(); !next.done; next = await started.it.next()) {
          count(next.value);
          yield next.value;
        }
      }
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      // A consumer that stops early (break, return, an error downstream) closes the child's stream too, as it
      // would close the provider's stream if it iterated the child directly; what was streamed is accounted.
      await started.it.return?.();
      this.engine.recordSpend(plan, slot.id, usage.input_tokens !== undefined ? usage : undefined);
      // The router's own run (see openRun) ends with what was streamed, or with the error that stopped it.
      // After an abort mid-stream the child reports its error a moment after the stream rejected: the router's run
      // ends once its attempts have (at most 1 s later), without holding up the consumer.
      if (failure !== undefined && run) {
        const ending = (OWN_RUN_CHILDREN.get(run)?.settled(1000) ?? Promise.resolve()).then(() => run.handleChainError(failure));
        ending.catch(() => undefined);
      } else await run?.handleChainEnd({ output });
    }
  }

  override async *_streamIterator(input: BaseLanguageModelInput, options?: Partial<BaseChatModelCallOptions>): AsyncGenerator<AIMessageChunk> {
    yield* await this.stream(input, options);
  }

  /**
   * As BaseChatModel's, but the router chooses before the run opens: each prompt is planned (scored and ranked)
   * first, and the plans ride on the call options (see {@link PLANNED}) to `getLsParams`, so the router's run
   * reports the chosen child, and to `_generate` / `_streamResponseChunks`, which call the planned models without
   * planning again. A `timeout` bounds each attempt, as in `invoke`.
   */
  override async generate(messages: BaseMessageLike[][], options?: string[] | Partial<BaseChatModelCallOptions>, callbacks?: Callbacks): Promise<LLMResult> {
    const { timeout, ...rest }: Partial<BaseChatModelCallOptions> = Array.isArray(options) ? { stop: options } : { ...options };
    const prompts = messages.map((list) => list.map(coerceMessageLikeToMessage));
    // An aborted call is left to _generate, which fails inside the run, as a call that is cancelled while planning does.
    if (rest.signal?.aborted) return super.generate(prompts, rest, callbacks);
    const runId = runIdOf({ ...rest, metadata: { ...this.metadata, ...rest.metadata } });
    for (const prompt of prompts) this.engine.noteToolErrors(prompt);
    const plans = await Promise.all(
      prompts.map((prompt) => this.engine.plan(prompt, { ...this.needs, runId }).then((plan) => ({ plan }), (error: unknown) => ({ error }))),
    );
    const planned: Planned = { prompts, plans, taken: plans.map(() => false), timeout };
    try {
      return await super.generate(prompts, { ...rest, [PLANNED]: planned } as Partial<BaseChatModelCallOptions>, callbacks);
    } finally {
      // A prompt served from the router's cache never reaches _generate: its decision was not acted on, so it leaves
      // the decision log (its cached reply carries the decision of the call that made it).
      plans.forEach((p, i) => {
        if (!planned.taken[i] && "plan" in p) this.engine.log.remove(p.plan.decision.decisionId);
      });
    }
  }

  override async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const { config, planned } = delegated(messages, options, runManager);
    const { out, plan, slot } = await this.attempt(messages, config, (child, cfg) => child.invoke(messages, cfg), undefined, planned);
    if (!isBaseMessage(out)) {
      throw new ValidationError("generate() on a structured-output router is not supported; use invoke().", { path: "generate" });
    }
    const message = attachDecision(out, plan.decision);
    this.engine.recordSpend(plan, slot.id, (out as { usage_metadata?: Usage }).usage_metadata);
    return { generations: [{ message, text: message.text }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const { config, planned } = delegated(messages, options, runManager);
    const { out, plan, slot } = await this.attempt(messages, config, (child, cfg) => startStream(child, messages, cfg), undefined, planned);
    for await (const chunk of this.relay(out, plan, slot)) {
      const message = AIMessageChunk.isInstance(chunk) ? chunk : new AIMessageChunk({ content: String(chunk) });
      // No handleLLMNewToken here: the child's own run (nested under this one) already reports each token.
      yield new ChatGenerationChunk({ message, text: message.text });
    }
  }

  /**
   * The per-input configs of `batch()`. Runnable.batch runs each through `ensureConfig`, which turns a `timeout`
   * into one aborting signal for that input's whole call (a cancellation, so no fallback); the timeout is kept as
   * it is instead, so `router.batch(inputs, { timeout })` bounds each attempt, as `router.invoke(input, { timeout })` does.
   */
  protected override _getOptionsList<O extends BaseChatModelCallOptions & { runType?: string }>(
    options: Partial<O> | Partial<O>[],
    length = 0,
  ): Partial<O>[] {
    const timeoutOf = (i: number) => (Array.isArray(options) ? options[i] : options)?.timeout;
    const untimed = (o: Partial<O> | undefined) => (o?.timeout === undefined ? o : { ...o, timeout: undefined });
    const configs = super._getOptionsList((Array.isArray(options) ? options.map(untimed) : untimed(options)) as Partial<O>, length);
    return configs.map((config, i) => (timeoutOf(i) === undefined ? config : { ...config, timeout: timeoutOf(i) }));
  }
}

interface StartedStream {
  it: AsyncIterator<any>;
  first: IteratorResult<any>;
}

/** Open the child's stream and wait for its first chunk, so a failure before any output can fall back. */
async function startStream(child: Runnable, input: unknown, config: Partial<BaseChatModelCallOptions>): Promise<StartedStream> {
  const stream = await child.stream(input, config);
  const it = stream[Symbol.asyncIterator]();
  const first = await it.next();
  return { it, first };
}

/**
 * The child's config on the `generate()` path (inside the router's own LLM run): the call options without the
 * plans, with the call's `timeout` back, and callbacks nesting the child under the router's run; plus the plan
 * `generate()` made for these messages, if any.
 */
function delegated(
  messages: readonly BaseMessage[],
  options: WithPlanned<BaseChatModelCallOptions & { promptIndex?: number }>,
  runManager?: CallbackManagerForLLMRun,
): { config: Partial<BaseChatModelCallOptions>; planned?: Planned["plans"][number] } {
  const { [PLANNED]: planned, ...rest } = options;
  const config: Partial<BaseChatModelCallOptions> = { ...rest, callbacks: childCallbacks(runManager) };
  if (planned?.timeout !== undefined) config.timeout = planned.timeout;
  return { config, planned: planned && takePlan(planned, messages) };
}

/**
 * The plan of the prompt made of exactly these message objects (BaseChatModel hands each prompt's messages on as
 * given), taken once. Found by the prompt, not by BaseChatModel's `promptIndex`: with a cache, only the prompts the
 * cache missed reach `_generate`, and `promptIndex` counts within those. Undefined when no untaken plan matches (the
 * call then plans itself).
 */
function takePlan(planned: Planned, messages: readonly BaseMessage[]): Planned["plans"][number] | undefined {
  const i = planned.prompts.findIndex((prompt, k) => !planned.taken[k] && prompt.length === messages.length && prompt.every((m, j) => m === messages[j]));
  if (i < 0) return undefined;
  planned.taken[i] = true;
  return planned.plans[i];
}

/**
 * Callbacks for a child called from inside the router's own LLM run (the `generate()` path): the
 * run's inheritable handlers, tags and metadata, with the router's run as parent.
 */
function childCallbacks(runManager?: CallbackManagerForLLMRun): CallbackManager | undefined {
  if (!runManager) return undefined;
  const run = runManager as unknown as {
    runId: string;
    inheritableHandlers: BaseCallbackHandler[];
    inheritableTags: string[];
    inheritableMetadata: Record<string, unknown>;
  };
  const manager = new CallbackManager(run.runId);
  manager.setHandlers(run.inheritableHandlers);
  manager.addTags(run.inheritableTags);
  manager.addMetadata(run.inheritableMetadata);
  return manager;
}

/**
 * @internal The routing core of a router (used by the middleware): registered by the constructor, so every router,
 * derived ones included (`bindTools`, `withStructuredOutput` share their parent's), has one.
 */
export function engineOf(router: IrtRouter): RouteEngine {
  const engine = ENGINES.get(router);
  if (!engine) throw new TypeError("engineOf() needs an IrtRouter made by its constructor.");
  return engine;
}
