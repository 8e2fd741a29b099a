/**
 * The routing engine every face of the router shares (the neutral {@link RouterCore}, LangChain's `IrtRouter` and
 * `irtRouterMiddleware`, the AI SDK model), put together from its parts: the registered models ({@link ModelSlot},
 * routing/model-slots.ts), the scoring context (routing/scoring-context.ts),
 * call planning (routing/route-planner.ts), spend (routing/run-spend.ts) and feedback recording (feedback/recorder.ts).
 */
import { runRouterOf } from "../runs/registered.js";
import type { RunRouter } from "../runs/run-router.js";
import type { RunRoutingOptions } from "../runs/options.js";
import type { FeedbackEvent } from "../learning/events.js";
import type { PolicyConfig } from "../policy/types.js";
import { describePolicy } from "../policy/schema.js";
import { DecisionLog } from "./routing/decision-log.js";
import { FeedbackRecorder, MemoryFeedbackSink, type RecordOptions } from "./feedback/recorder.js";
import type { FeedbackOptions } from "./feedback/outcome-events.js";
import { NEUTRAL_FEEDBACK_ID_NAMES as NEUTRAL_IDS, type FeedbackIdNames } from "./feedback/id-names.js";
import {
  feedbackLimitsSchema,
  type AbilityLearner,
  type FeedbackSink,
  type ParsedRoutingOptions,
  type RouterLogger,
} from "./contracts/options.js";
import { RoutePlanner } from "./routing/route-planner.js";
import type { RoutePlan } from "./routing/route-plan.js";
import { ScoringContextLoader, type ScoringContext } from "./routing/scoring-context.js";
import { modelSlots, type CallNeeds, type ModelSlot, type SlotSpec } from "./routing/model-slots.js";
import { SpendHold } from "./routing/spend-hold.js";
import { SharedBudget, SpendRecorder } from "./routing/run-spend.js";
import { StoreBinding } from "./feedback/store-binding.js";
import { InMemoryLearning } from "./feedback/memory-learning.js";
import { OnceWarnings } from "./contracts/warnings.js";
import { RunMemory } from "./routing/run-memory.js";
import { DEFAULT_CACHE_LIFETIME_MS } from "../policy/cached-input.js";

import { ValidationError } from "../errors.js";
import { checkRegistered } from "./contracts/registered-model.js";
import { RouteTracer, type PendingRoute } from "../tracing/route-span.js";
import { decisionRecord, tracedRoute } from "./routing/decision-record.js";
import type { DecisionRecord, RouteDecision, TokenUsage } from "./contracts/route-decision.js";
import type { RouteMessage } from "./contracts/route-message.js";
import { routingText } from "./routing/routing-text.js";

export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_DECISION_LOG_SIZE = 10_000;
/** Runs whose prompt caches and last call the router remembers (least recently used dropped first). */
export const DEFAULT_RUNS_REMEMBERED = 10_000;

/**
 * One router's state and the operations on it: filters the models that can serve a call, scores them, ranks them
 * with the policy, keeps the decision log that feedback reads, the spend, and records feedback. Pure apart from the
 * lazy default load. `M` is the adapter's model object, carried by each slot and never read here.
 */
export class RouteEngine<M = unknown> {
  readonly slots: readonly ModelSlot<M>[];
  readonly policy: PolicyConfig;
  readonly policyName: string;
  readonly maxAttempts: number;
  readonly log: DecisionLog;
  readonly logger: RouterLogger;
  readonly fallbackOn: (error: unknown) => boolean;
  /** Milliseconds an attempt may take when the call gives no timeout (option `attemptTimeout`; default in calls/attempt.ts). */
  readonly attemptTimeout?: number;
  /** The configured learner (`learner` option, or the one `store` restores); undefined when neither is given. */
  private readonly configuredLearner?: AbilityLearner;
  /** Without `store` and `learner`: the in-memory learner started by the first recorded outcome. */
  private readonly memoryLearning?: InMemoryLearning;
  private readonly warnings: OnceWarnings;
  private readonly loader: ScoringContextLoader;
  private readonly planner: RoutePlanner;
  private readonly spend: SpendRecorder;
  private readonly recorder: FeedbackRecorder;
  private readonly memory: RunMemory;
  /** The run-level router over the same models (option `runs`), made on first use. */
  get runs(): RunRouter {
    return (this.runRouter ??= runRouterOf(this.slots, this.runOptions));
  }
  private runRouter?: RunRouter;
  private readonly runOptions?: RunRoutingOptions;
  /** The `store` option's wiring (learner restored from it, feedback journaled to it, a shared store followed). */
  readonly binding?: StoreBinding;
  /** Spans of routed calls (option `tracing`); undefined when off. */
  private readonly tracer?: RouteTracer;
  private readonly includeText: boolean;
  private readonly decisionSink?: (record: DecisionRecord) => unknown;
  private readonly textOptions: ParsedRoutingOptions["routingText"];
  /** Each planned decision's span-to-be (when tracing), until it is settled. */
  private readonly pending = new WeakMap<RouteDecision, { route?: PendingRoute; text?: string }>();
  /** Decisions already settled (a span and a log line each, once). */
  private readonly settled = new WeakSet<RouteDecision>();

  /**
   * `ids`: where the face's callers find the ids `feedback()` takes, for the messages that refuse an id (default: no
   * framework's fields).
   */
  constructor(options: ParsedRoutingOptions, models: readonly SlotSpec<M>[], ids: FeedbackIdNames = NEUTRAL_IDS) {
    this.slots = modelSlots(models, options);
    this.policy = (options.policy as PolicyConfig | undefined) ?? { kind: "quality" };
    this.policyName = describePolicy(this.policy);
    this.maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    const store = options.store;
    this.log = new DecisionLog(options.decisionLogSize ?? DEFAULT_DECISION_LOG_SIZE, store?.decisions);
    this.logger = options.logger ?? { warn: (message: string) => console.warn(message) };
    this.fallbackOn = options.fallbackOn ?? (() => true);
    this.attemptTimeout = options.attemptTimeout;
    this.runOptions = runOptionsOf(options);
    this.warnings = new OnceWarnings(this.logger);
    if (store && (options.learner || options.feedbackSink)) {
      throw new ValidationError(
        `options.store restores the learner and takes the feedback itself; give either store, or learner and feedbackSink.`,
        { path: options.learner ? "options.learner" : "options.feedbackSink" },
      );
    }
    const registered = this.slots.map((s) => s.id);
    if (options.shadow) checkRegistered(options.shadow.serve, registered, "options.shadow.serve");
    const tracing = options.tracing ?? true;
    this.tracer = tracing === false ? undefined : new RouteTracer(tracing === true ? {} : tracing);
    this.includeText = typeof tracing === "object" && tracing.includeText === true;
    this.decisionSink = options.decisionSink;
    this.textOptions = options.routingText;
    this.binding = store ? new StoreBinding(store, this.logger, this.warnings) : undefined;
    this.configuredLearner = this.binding?.learner ?? options.learner;
    const binding = this.binding;
    const memory = this.configuredLearner ? undefined : new InMemoryLearning();
    this.memoryLearning = memory;
    this.loader = new ScoringContextLoader(
      options,
      this.slots,
      this.warnings,
      binding
        ? (scorer, starts) => binding.init(scorer, starts)
        : memory && ((scorer, starts) => Promise.resolve(memory.onScorer(scorer, starts))),
    );
    const budget =
      store?.spend && this.policy.kind === "budget"
        ? new SharedBudget(store.spend, this.log, this.warnings)
        : undefined;
    const cache = typeof options.cacheAware === "object" ? options.cacheAware : {};
    this.memory = new RunMemory({
      lifetimeMs: cache.lifetimeMs ?? DEFAULT_CACHE_LIFETIME_MS,
      now: cache.now,
      maxRuns: DEFAULT_RUNS_REMEMBERED,
    });
    const escalation = options.escalation;
    this.planner = new RoutePlanner({
      slots: this.slots,
      policy: this.policy,
      policyName: this.policyName,
      maxAttempts: this.maxAttempts,
      log: this.log,
      learner: () => this.learner,
      scoring: this.loader,
      textOptions: options.routingText ?? {},
      warnings: this.warnings,
      memory: this.memory,
      cacheAware: options.cacheAware !== false,
      ...(options.task !== undefined ? { task: options.task } : {}),
      ...(options.shadow ? { shadow: options.shadow.serve } : {}),
      ...(escalation
        ? { escalation: { bar: (typeof escalation === "object" ? escalation.bar : undefined) ?? "stronger" } }
        : {}),
      budget,
      // On by default: used only with a learner and the cost-aware policy (issue 36 item 5).
      ...(options.holdSpend !== false ? { hold: new SpendHold() } : {}),
    });
    this.spend = new SpendRecorder(this.slots, this.log, this.loader, options.learnOutputTokens !== false, budget);
    const sink = this.binding?.sink ?? options.feedbackSink ?? new MemoryFeedbackSink();
    const limits = feedbackLimitsSchema.parse(options.feedbackLimits ?? {});
    const learnerFor = memory ? () => memory.start(this.catalogIds()) : () => this.configuredLearner;
    const ledger = this.binding?.store.budget;
    this.recorder = new FeedbackRecorder(this.log, sink, learnerFor, this.logger, this.warnings, limits, ledger, ids);
  }

  /**
   * The online learner whose posterior gives p: the `learner` option, the one `store` restores, or (with neither) the
   * in-memory learner once the first outcome has started it; undefined before that.
   */
  get learner(): AbilityLearner | undefined {
    return this.configuredLearner ?? this.memoryLearning?.learner;
  }

  /** The learner outcomes go to, after loading the scorer (starts the in-memory learner of a router without one). */
  async learnerForOutcomes(): Promise<AbilityLearner | undefined> {
    await this.loader.load();
    return this.memoryLearning ? this.memoryLearning.start(this.catalogIds()) : this.configuredLearner;
  }

  /** The registered models' catalog ids (once the scorer has loaded). */
  private catalogIds(): string[] {
    return Object.values(this.loader.loaded?.catalogIds ?? {});
  }

  /** The sink feedback events are written to (a {@link MemoryFeedbackSink} when none was configured). */
  get sink(): FeedbackSink {
    return this.recorder.sink;
  }

  /** Loads the scorer (and encoder) on first use; later calls reuse it. A failed load is retried next call. */
  scoring(): Promise<ScoringContext> {
    return this.loader.load();
  }

  warnOnce(key: string, message: string): void {
    this.warnings.warn(key, message);
  }

  /**
   * See {@link RoutePlanner.plan}. With tracing, the context active now is kept as the parent of the call's span,
   * which {@link settle} records.
   */
  async plan(
    messages: readonly RouteMessage[],
    call: CallNeeds & { runId?: string; task?: string; serve?: string },
  ): Promise<RoutePlan<M>> {
    const route = await this.tracer?.begin().catch((error: unknown) => {
      this.warnOnce("tracing", `irt-router: tracing is off for this call (${String(error)}); routing goes on.`);
      return undefined;
    });
    const plan = (await this.planner.plan(messages, call)) as RoutePlan<M>;
    if (route) {
      const text = this.includeText ? routingText(messages, this.textOptions ?? {}) : undefined;
      this.pending.set(plan.decision, { route, ...(text !== undefined ? { text } : {}) });
    }
    return plan;
  }

  /**
   * A routed call is over (answered: from {@link recordSpend}; failed on every model tried: from its caller): records
   * its span and its decision-log line, once. Neither can fail the call: a failure is warned about once.
   */
  settle(plan: RoutePlan): void {
    const { decision } = plan;
    if (this.settled.has(decision)) return;
    this.settled.add(decision);
    const pending = this.pending.get(decision);
    this.pending.delete(decision);
    if (this.tracer && pending?.route) {
      this.tracer
        .end(pending.route, tracedRoute(decision, pending.text))
        .catch((error: unknown) =>
          this.warnOnce("tracing", `irt-router: a route span could not be recorded (${String(error)}).`),
        );
    }
    if (this.decisionSink) {
      try {
        const out = this.decisionSink(decisionRecord(decision, new Date()));
        if (out instanceof Promise) out.catch((error: unknown) => this.sinkFailed(error));
      } catch (error) {
        this.sinkFailed(error);
      }
    }
  }

  private sinkFailed(error: unknown): void {
    this.warnOnce(
      "decision-sink",
      `irt-router: the decisionSink failed (${(error as Error)?.message ?? String(error)}); decisions go on being routed, not logged.`,
    );
  }

  /**
   * Records what a finished call cost (usage tokens when reported, else the estimate) for the budget policy, as the
   * decision's `realized` cost, notes the served prompt in the run's memory (with the provider's reported cache,
   * which bounds the cache the next call of the run is priced with) and settles the call (see {@link settle}).
   */
  recordSpend(plan: RoutePlan, slotId: string, usage?: TokenUsage): void {
    plan.decision.realized = this.spend.record(plan, slotId, usage);
    this.memory.served(plan.decision.runId, slotId, plan.shape, usage);
    // An answered decision is published for feedback on any process (a shared log only); a failure is a warning.
    if (this.log.shared) {
      this.log
        .publish(plan.logged)
        .catch((error: unknown) =>
          this.warnings.warn(
            "shared-log",
            `irt-router: a decision could not be published to the shared decision log (${(error as Error)?.message ?? String(error)}); ` +
              `feedback for it works on this process only.`,
          ),
        );
    }
    this.settle(plan);
  }

  /** See {@link FeedbackRecorder.feedback}. With a `store`, the learner is restored from it first. */
  async feedback(
    idOrRunId: string,
    outcome: boolean | number,
    options: FeedbackOptions | null = {},
  ): Promise<FeedbackEvent[]> {
    if (this.binding) await this.loader.load();
    return this.recorder.feedback(idOrRunId, outcome, options);
  }

  /** See {@link FeedbackRecorder.noteToolErrors}. */
  noteToolErrors(messages: readonly RouteMessage[]): void {
    this.recorder.noteToolErrors(messages);
  }

  /** See {@link FeedbackRecorder.record}. */
  async record(events: readonly FeedbackEvent[], options: RecordOptions = {}): Promise<void> {
    if (this.binding) await this.loader.load();
    return this.recorder.record(events, options);
  }
}

/**
 * The run-level router's options: it traces as the router does, and warns through its logger, unless `runs.tracing`
 * or `runs.logger` says otherwise.
 */
function runOptionsOf(options: ParsedRoutingOptions): RunRoutingOptions | undefined {
  const tracing = options.runs?.tracing ?? options.tracing;
  const logger = options.runs?.logger ?? options.logger;
  if (tracing === undefined && logger === undefined) return options.runs;
  return { ...options.runs, ...(tracing !== undefined && { tracing }), ...(logger !== undefined && { logger }) };
}
