/**
 * {@link IrtRouterProcessor}: irt-router as a Mastra processor. It routes each step of an agent run in
 * `processInputStep` (the step's model becomes the routed one), records the step's usage and realized cost in
 * `processOutputStep`, and on an API error escalates in `processAPIError` (the router's next model for that call,
 * retried by Mastra). Every routing rule is the core's ({@link RouterCore}); this file only maps Mastra's hooks.
 *
 * Mastra's retry limits (`maxProcessorRetries`, and the step budget a retry uses up: `maxSteps`, `stopWhen`) are not
 * visible to a processor, so a retry asked for is confirmed by the hook that follows: the retried step's
 * `processInputStep`. When Mastra refuses the retry (its `maxProcessorRetries`) it passes the error on and the
 * processor closes the decision in `processOutputStep`; when the run ends before the retry (the step budget),
 * Mastra would drop the error, so `processOutputResult` closes the decision and throws the provider's error.
 *
 * The agent's own fallback models are left alone: once Mastra moves a step to one of the agent's fallback entries,
 * the processor no longer replaces the model, and when the agent has fallback entries an API error goes to them
 * (the processor records the failure and does not ask for a retry). Mastra shows that error to error processors only,
 * so for such an agent the processor watches the calls of the model it serves (watched-model.ts) and, when it is not
 * an error processor, records the failure as the step moves to a fallback entry.
 */
import type {
  ProcessInputArgs,
  ProcessAPIErrorArgs,
  ProcessAPIErrorResult,
  ProcessInputStepArgs,
  ProcessInputStepResult,
  ProcessOutputResultArgs,
  ProcessOutputStepArgs,
  Processor,
} from "@mastra/core/processors";
import type { MessageList } from "@mastra/core/agent";
import type { MastraModelConfig } from "@mastra/core/llm";
import { z } from "zod";
import type { CoreModelConfig, RouterCoreOptions } from "../core/contracts/options.js";
import type { TokenUsage } from "../core/contracts/route-decision.js";
import { RouterCore, type CorePlan } from "../core/router-core.js";
import type { FeedbackOptions } from "../core/feedback/outcome-events.js";
import type { FeedbackEvent } from "../learning/events.js";
import { parseWith } from "../util/validate.js";
import { routeMessagesOf, type AiSdkMessage } from "./messages.js";
import { MASTRA_RUN_ID_KEY, runIdOf } from "./run-id.js";
import { stepErrorOf } from "./step-error.js";
import { isWatchable, unseenFailure, watched, type CallWatch } from "./watched-model.js";

/** A model the processor may give a step: any model a Mastra agent accepts (an AI SDK model, a model id string). */
export type MastraStepModel = MastraModelConfig;

/** One routed model: the Mastra model that serves it, and what the router knows of it (price, capabilities). */
export interface MastraRoutedModel extends Omit<CoreModelConfig, "id"> {
  readonly model: MastraStepModel;
}

/** Options of {@link IrtRouterProcessor}: the models by registered id, and the router's options. */
export interface IrtRouterProcessorOptions extends Omit<RouterCoreOptions, "models"> {
  /** The models to route between, by the id the router knows them under (a catalog id gets catalog priors). */
  readonly models: Readonly<Record<string, MastraRoutedModel>>;
}

const STATE_KEY = "irtRouter";
/** State key: whether the agent has fallback models of its own (found in `processInput`, where Mastra gives it). */
const FALLBACKS_KEY = "irtRouterAgentFallbacks";
/** State key: the request's run id (read, or made, in `processInput`, the request's first hook). */
const RUN_ID_KEY = "irtRouterRequestRunId";

/** What the processor keeps for one agent request (in the processor state Mastra gives each request). */
interface RunState {
  readonly runId: string;
  /** The agent's model entry the request started on; another entry means Mastra fell back to the agent's own. */
  readonly primary: string;
  /** Whether the agent has fallback models of its own. */
  readonly ownFallbacks: boolean;
  /** The step being served (see {@link StepCall}). */
  call?: StepCall;
}

/** The step being served: its plan, the model it was given, and the retry asked for after an API error. */
interface StepCall {
  readonly plan: CorePlan;
  modelId: string;
  readonly stepNumber: number;
  retry?: PendingRetry;
  /** How the served model's last call ended, when it is watched (the agent has fallback models of its own). */
  watch?: CallWatch;
}

/** A retry asked of Mastra in `processAPIError`, until the retried step starts: the next model, and the error. */
interface PendingRetry {
  readonly modelId: string;
  readonly error: unknown;
}

const optionsShape = z.looseObject({
  models: z.record(
    z.string().min(1),
    z.looseObject({ model: z.custom<MastraStepModel>((v) => v !== undefined && v !== null, "a Mastra model") }),
  ),
});

/** `provider/modelId` of a Mastra model entry (or the model string itself). */
function entryKey(model: unknown): string {
  if (typeof model === "string") return model;
  const m = model as { provider?: unknown; modelId?: unknown; id?: unknown };
  return `${String(m.provider ?? "")}/${String(m.modelId ?? m.id ?? "")}`;
}

/** Mastra's step usage as the core's token usage (`inputTokens` includes the cached tokens). */
function usageOf(usage: ProcessOutputStepArgs["usage"] | undefined): TokenUsage {
  const u = (usage ?? {}) as Record<string, number | undefined>;
  return {
    ...(u.inputTokens !== undefined ? { inputTokens: u.inputTokens } : {}),
    ...(u.outputTokens !== undefined ? { outputTokens: u.outputTokens } : {}),
    ...(u.cachedInputTokens !== undefined ? { cacheReadTokens: u.cachedInputTokens } : {}),
    ...(u.cacheCreationInputTokens !== undefined ? { cacheWriteTokens: u.cacheCreationInputTokens } : {}),
  };
}

/**
 * irt-router as a Mastra processor: give it to an agent as an input, output and error processor.
 *
 * @example
 * ```ts
 * import { Agent } from "@mastra/core/agent";
 * import { createOpenAI } from "@ai-sdk/openai";
 * import { IrtRouterProcessor } from "irt-router/mastra";
 *
 * const openai = createOpenAI({ apiKey: process.env.OPENAI_API_KEY });
 * const router = new IrtRouterProcessor({
 *   models: {
 *     "gpt-4o": { model: openai.chat("gpt-4o"), price: { inputPer1M: 2.5, outputPer1M: 10 } },
 *     "gpt-4o-mini": { model: openai.chat("gpt-4o-mini"), price: { inputPer1M: 0.15, outputPer1M: 0.6 } },
 *   },
 *   policy: { kind: "cost-aware", lambda: 20 },
 * });
 * const agent = new Agent({
 *   id: "support",
 *   name: "support",
 *   instructions: "Answer briefly.",
 *   model: openai.chat("gpt-4o"), // the entry the router replaces per step
 *   inputProcessors: [router],
 *   outputProcessors: [router],
 *   errorProcessors: [router],
 *   maxProcessorRetries: 2,
 * });
 * ```
 */
export class IrtRouterProcessor implements Processor<"irt-router"> {
  readonly id = "irt-router";
  readonly name = "irt-router";
  /** The routing core (decisions, learner, run router); feedback goes through {@link IrtRouterProcessor.feedback}. */
  readonly router: RouterCore;
  private readonly models: ReadonlyMap<string, MastraStepModel>;

  constructor(options: IrtRouterProcessorOptions) {
    const parsed = parseWith(optionsShape, options, "options") as unknown as IrtRouterProcessorOptions;
    const { models, ...routing } = parsed;
    this.models = new Map(Object.entries(models).map(([id, m]) => [id, m.model]));
    this.router = new RouterCore(
      {
        ...routing,
        models: Object.entries(models).map(([id, m]) => {
          const { model: _model, ...known } = m;
          return { ...known, id };
        }),
      },
      {
        decisionId: "a decision's decisionId (router.decisions() lists the recent ones)",
        runId: `the run id in the request context (${MASTRA_RUN_ID_KEY}, set by you or by the processor)`,
      },
    );
  }

  /**
   * Reads the request's run id (a caller's `irtRouterRunId` that is not a non-empty string throws a
   * ValidationError, before any model call) and notes whether the agent has fallback models of its own (Mastra gives
   * the agent to this hook only); messages pass unchanged.
   */
  async processInput(args: ProcessInputArgs): Promise<MessageList> {
    args.state[RUN_ID_KEY] = runIdOf(args.requestContext);
    const list = await args.agent?.getModelList(args.requestContext);
    args.state[FALLBACKS_KEY] = Array.isArray(list) && list.filter((entry) => entry.enabled !== false).length > 1;
    return args.messageList;
  }

  /**
   * Routes the step: the router's choice serves it, unless Mastra has moved to one of the agent's fallbacks (then the
   * routed call that failed the step, when no error processor hook recorded it, is recorded as failed).
   */
  async processInputStep(args: ProcessInputStepArgs): Promise<ProcessInputStepResult | undefined> {
    const run = this.runOf(args);
    if (entryKey(args.model) !== run.primary) {
      this.fellBack(run, args.stepNumber);
      return undefined;
    }
    const call = run.call;
    if (call?.retry !== undefined && call.stepNumber === args.stepNumber) {
      call.modelId = call.retry.modelId;
      call.retry = undefined;
      return this.serve(run, call);
    }
    this.close(run);
    const system = args.systemMessages.map((m) => ({ role: "system", content: m.content }) as AiSdkMessage);
    const messages = routeMessagesOf([...system, ...(args.messageList.get.all.aiV5.model() as AiSdkMessage[])]);
    const plan = await this.router.route({
      messages,
      runId: run.runId,
      needs: { tools: Object.keys(args.tools ?? {}).length > 0 },
    });
    run.call = { plan, modelId: plan.models[0]!, stepNumber: args.stepNumber };
    return this.serve(run, run.call);
  }

  /**
   * Ends the step's decision: records the step's usage (cache reads included) as its realized cost, or, when the
   * model call failed and nothing retried it, the failure (the processor is not an error processor, or Mastra
   * refused the retry it asked for: the failure is already recorded).
   */
  processOutputStep(args: ProcessOutputStepArgs): MessageList {
    const run = args.state[STATE_KEY] as RunState | undefined;
    const call = run?.call;
    if (!run || !call || call.stepNumber !== args.stepNumber) return args.messageList;
    if (call.retry !== undefined) {
      this.close(run); // Mastra refused the retry (its maxProcessorRetries) and passes the error on
      return args.messageList;
    }
    const error = stepErrorOf(args);
    if (error === undefined) this.router.served(call.plan, call.modelId, usageOf(args.usage));
    else this.router.failed(call.plan, call.modelId, error, { cancelled: true });
    run.call = undefined;
    return args.messageList;
  }

  /**
   * The request is over: closes a decision still open. When a retry asked for never ran (the run ended first: its
   * step budget), Mastra would end the run with an empty answer; the provider's error is thrown instead.
   */
  processOutputResult(args: ProcessOutputResultArgs): MessageList {
    const run = args.state[STATE_KEY] as RunState | undefined;
    const retry = run?.call?.retry;
    if (run) this.close(run);
    if (retry !== undefined) throw retry.error;
    return args.messageList;
  }

  /**
   * The routed model's call was rejected: records the failure; escalates to the router's next model for the call
   * (Mastra retries the step, within `maxProcessorRetries` and the run's step budget; a retry Mastra does not run
   * is closed by the hook that follows), unless the agent has fallback models of its own, which then serve as
   * configured. With no next model the error passes on and the decision is closed.
   */
  async processAPIError(args: ProcessAPIErrorArgs): Promise<ProcessAPIErrorResult | undefined> {
    const run = args.state[STATE_KEY] as RunState | undefined;
    const call = run?.call;
    if (!run || !call || call.stepNumber !== args.stepNumber || call.retry !== undefined) return undefined;
    const next = this.router.failed(call.plan, call.modelId, args.error, { cancelled: run.ownFallbacks });
    if (next === undefined) {
      run.call = undefined;
      return undefined;
    }
    call.retry = { modelId: next, error: args.error };
    return { retry: true };
  }

  /**
   * Records whether a run's answer was right (or a grade in [0, 1]): every routed step of the run is credited.
   * The run id is the request context's `irtRouterRunId` (`MASTRA_RUN_ID_KEY`), set by you or by the processor.
   */
  feedback(runId: string, outcome: boolean | number, options: FeedbackOptions = {}): Promise<FeedbackEvent[]> {
    return this.router.feedback(runId, outcome, options);
  }

  private runOf(args: ProcessInputStepArgs): RunState {
    const existing = args.state[STATE_KEY] as RunState | undefined;
    if (existing) return existing;
    const known = args.state[RUN_ID_KEY];
    const runId = typeof known === "string" ? known : runIdOf(args.requestContext);
    const run: RunState = { runId, primary: entryKey(args.model), ownFallbacks: args.state[FALLBACKS_KEY] === true };
    args.state[STATE_KEY] = run;
    return run;
  }

  /**
   * The step input that gives the step the call's model (Mastra resolves any model config it accepts for an agent);
   * when the agent has fallback models of its own, a model object is served watched, its calls' ends noted on the call.
   */
  private serve(run: RunState, call: StepCall): ProcessInputStepResult {
    const model = this.models.get(call.modelId);
    call.watch = undefined;
    if (!run.ownFallbacks || !isWatchable(model)) return { model: model as ProcessInputStepResult["model"] };
    call.watch = {};
    return { model: watched(model, call.watch) as ProcessInputStepResult["model"] };
  }

  /**
   * Mastra moved the step to one of the agent's fallback entries, which it does only when the attempt threw. A routed
   * call still open for the step failed without reaching `processAPIError` (the processor is not an error processor):
   * it is recorded as that hook records it, with the watched model's error, or, when the model could not be watched
   * (a model id string, a config object), with `unseenFailure()`. A watched model whose call did not fail (the
   * attempt threw before the call, or after its answer) closes the decision with no attempt.
   */
  private fellBack(run: RunState, stepNumber: number): void {
    const call = run.call;
    if (call === undefined || call.stepNumber !== stepNumber || call.retry !== undefined) return this.close(run);
    const failure = call.watch === undefined ? { error: unseenFailure() } : call.watch.rejection;
    if (failure === undefined) return this.close(run);
    this.router.failed(call.plan, call.modelId, failure.error, { cancelled: true });
    run.call = undefined;
  }

  /** Settles a step that neither answered nor failed through the processor (e.g. its attempt threw before the call). */
  private close(run: RunState): void {
    if (run.call) this.router.settle(run.call.plan);
    run.call = undefined;
  }
}
