/**
 * {@link RouterCore}: the framework-neutral router. An adapter (or an application with its own model calls) asks it
 * which model to call for a list of {@link RouteMessage}s, tells it which model answered (with the provider's usage)
 * or failed, and gives run outcomes as feedback. Every rule lives in the {@link RouteEngine} it wraps, which the
 * LangChain face uses too.
 */
import type { FeedbackIdNames } from "./feedback/id-names.js";
import type { RunRouter } from "../runs/run-router.js";
import type { FeedbackEvent } from "../learning/events.js";
import { ValidationError } from "../errors.js";
import { parseWith } from "../util/validate.js";
import { RouteEngine } from "./engine.js";
import { checkRegistered } from "./contracts/registered-model.js";
import { routerCoreOptionsSchema, type AbilityLearner, type RouterCoreOptions } from "./contracts/options.js";
import { snapshot, type RealizedCostRecord, type RouteDecision, type TokenUsage } from "./contracts/route-decision.js";
import type { RouteMessage } from "./contracts/route-message.js";
import type { FeedbackOptions } from "./feedback/outcome-events.js";
import type { RoutePlan } from "./routing/route-plan.js";
import { recordAllFailed, recordAnswered, recordFailed } from "./call-order.js";

/** One call to route. */
export interface RouteCall {
  /** The call's messages, as the adapter converted them. */
  readonly messages: readonly RouteMessage[];
  /** The agent run the call belongs to: feedback by run, the run's prompt cache, the budget policy's spend. */
  readonly runId?: string;
  /** A task hint (wins over the router's `task` option). */
  readonly task?: string;
  /** What the call needs of a model: models that lack it (by their `capabilities`) are not candidates. */
  readonly needs?: { readonly tools?: boolean; readonly structuredOutput?: boolean };
  /**
   * Serve this registered model, without fallback, whatever the router would choose (its choice is kept as the
   * decision's `shadow.chosen`, as in shadow mode): for a call whose conversation state lives at one provider.
   */
  readonly serve?: string;
}

/** The plan of one routed call: its decision, and the models to try in order (the first is the choice). */
export interface CorePlan {
  /** The decision, updated as tries are reported (`attempts`, `chosen`, `realized`). */
  readonly decision: RouteDecision;
  /** Model ids to try, best first: the choice, then its fallbacks (at most `maxAttempts`). */
  readonly models: readonly string[];
}

/**
 * The framework-neutral router: plans each call from its messages (which model, which fallbacks), records what the
 * call cost from the provider's usage, and learns from run outcomes.
 *
 * @example
 * ```ts
 * import { RouterCore } from "irt-router";
 *
 * // your own model call
 * declare function callMyModel(id: string): Promise<{ inputTokens: number; outputTokens: number }>;
 *
 * const router = new RouterCore({
 *   models: [
 *     { id: "gpt-4o", capabilities: { tools: true } },
 *     { id: "gpt-4o-mini", capabilities: { tools: true } },
 *   ],
 *   policy: { kind: "cost-aware", lambda: 20 },
 * });
 * const plan = await router.route({ messages: [{ role: "user", text: "What is 17 * 23?" }], runId: "run-1" });
 * for (const id of plan.models) {
 *   try {
 *     const reply = await callMyModel(id);
 *     router.served(plan, id, { inputTokens: reply.inputTokens, outputTokens: reply.outputTokens });
 *     break;
 *   } catch (error) {
 *     if (!router.failed(plan, id, error)) throw error;
 *   }
 * }
 * await router.feedback("run-1", true, { source: "grader" });
 * ```
 */
export class RouterCore {
  /** The engine every face shares (internal: adapters use the methods below). @internal */
  readonly engine: RouteEngine<undefined>;
  private readonly plans = new WeakMap<CorePlan, RoutePlan<undefined>>();

  /**
   * @param ids - where a face built on this core puts the ids `feedback()` takes, for the messages that refuse an id
   *   (the AI SDK and Mastra faces give theirs; default: no framework's fields).
   */
  constructor(options: RouterCoreOptions, ids?: FeedbackIdNames) {
    const parsed = parseWith(routerCoreOptionsSchema, options, "options");
    this.engine = new RouteEngine(
      parsed,
      parsed.models.map((m) => ({
        id: m.id,
        model: undefined,
        price: m.price,
        expectedOutputTokens: m.expectedOutputTokens,
        capabilities: () => m.capabilities ?? {},
      })),
      ids,
    );
  }

  /** The registered model ids, in registration order. */
  get modelIds(): string[] {
    return this.engine.slots.map((s) => s.id);
  }

  /** The routing policy in short form, e.g. `cost-aware(lambda=20)`. */
  get policyName(): string {
    return this.engine.policyName;
  }

  /** The run-level router over the same models (option `runs`): one model per agent run. */
  get runs(): RunRouter {
    return this.engine.runs;
  }

  /** The online learner whose posterior gives p (see the `learner` and `store` options); undefined before one starts. */
  get learner(): AbilityLearner | undefined {
    return this.engine.learner;
  }

  /** Recent decisions (oldest first), as kept for feedback; JSON-safe copies. */
  decisions(limit?: number): RouteDecision[] {
    return this.engine.log.recent(limit).map(snapshot);
  }

  /**
   * Plans one call: the candidates' p and expected cost (prompt-cache-aware for a run), ranked by the policy; the
   * decision is logged for feedback. Tool errors in the messages (a tool result with `toolError` answering a call of
   * an assistant turn with this router's `decisionId`) mark that step for feedback. Throws NO_CANDIDATES when no
   * model can serve the call.
   */
  async route(call: RouteCall): Promise<CorePlan> {
    const { messages, runId, task, needs, serve } = call;
    if (!Array.isArray(messages)) {
      throw new ValidationError("route(call): call.messages must be an array of RouteMessage.", {
        path: "call.messages",
      });
    }
    if (serve !== undefined) checkRegistered(serve, this.modelIds, "call.serve", "route(call): ");
    this.engine.noteToolErrors(messages);
    const plan = await this.engine.plan(messages, {
      toolsBound: needs?.tools === true,
      ...(needs?.structuredOutput ? { structuredOutput: true } : {}),
      ...(runId !== undefined ? { runId } : {}),
      ...(task !== undefined ? { task } : {}),
      ...(serve !== undefined ? { serve } : {}),
    });
    const out: CorePlan = { decision: plan.decision, models: plan.order.map((s) => s.id) };
    this.plans.set(out, plan);
    return out;
  }

  /**
   * `modelId` answered the call: records the try (it becomes `chosen`), what the call cost (from `usage` when the
   * provider reported it and the model has a price, else the estimate) as the decision's `realized`, the served
   * prompt in the run's memory (with the provider's reported cache, which bounds the cache the run's next call is
   * priced with), and settles the call (its span and decision-log line). Returns the realized cost.
   */
  served(plan: CorePlan, modelId: string, usage?: TokenUsage, ms = 0): RealizedCostRecord {
    const inner = this.planOf(plan, modelId);
    recordAnswered(inner.decision, modelId, ms);
    this.engine.recordSpend(inner, modelId, usage);
    return inner.decision.realized!;
  }

  /**
   * `modelId` failed the call with `error`: records the try and returns the next model to try, or undefined when
   * there is none (every planned model was tried, `fallbackOn` refuses the error, or `cancelled`), in which case
   * the call is over and settled, with `chosen` back at the first choice and the decision attached to the error as
   * `error.irtRouter`.
   */
  failed(
    plan: CorePlan,
    modelId: string,
    error: unknown,
    options: { readonly ms?: number; readonly cancelled?: boolean } = {},
  ): string | undefined {
    const inner = this.planOf(plan, modelId);
    recordFailed(inner.decision, modelId, error, options.ms ?? 0);
    const tried = new Set(inner.decision.attempts.map((a) => a.id));
    const next = plan.models.find((id) => !tried.has(id));
    if (next !== undefined && !options.cancelled && this.engine.fallbackOn(error)) return next;
    recordAllFailed(inner.decision, error);
    this.engine.settle(inner);
    return undefined;
  }

  /** The call is over without an answer (e.g. the caller gave up): records its span and decision-log line, once. */
  settle(plan: CorePlan): void {
    const inner = this.plans.get(plan);
    if (inner) this.engine.settle(inner);
  }

  /**
   * Records whether an answer was right: `id` is a decision id or a run id (every answered decision of the run,
   * spread over its steps as `options.attribution` says). `outcome` is true/false or a grade in [0, 1]. Returns the
   * events written to the feedback sink and applied to the learner. See docs/online.md.
   */
  feedback(id: string, outcome: boolean | number, options: FeedbackOptions = {}): Promise<FeedbackEvent[]> {
    return this.engine.feedback(id, outcome, options);
  }

  private planOf(plan: CorePlan, modelId: string): RoutePlan<undefined> {
    const inner = this.plans.get(plan);
    if (!inner) {
      throw new ValidationError("the plan was not made by this router's route().", { path: "plan" });
    }
    if (!plan.models.includes(modelId)) {
      throw new ValidationError(`model "${modelId}" is not in the plan (one of: ${plan.models.join(", ")}).`, {
        path: "modelId",
      });
    }
    return inner;
  }
}
