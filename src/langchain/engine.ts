/**
 * The routing core shared by {@link IrtRouter} and {@link irtRouterMiddleware}, put together from its parts: the
 * registered models ({@link ModelSlot}, slots.ts), the scoring context (scoring-context.ts), call planning
 * (planner.ts), spend (spend.ts) and feedback recording (feedback-recorder.ts).
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { FeedbackEvent } from "../learning/events.js";
import type { PolicyConfig } from "../policy/types.js";
import { describePolicy } from "../policy/schema.js";
import { DecisionLog } from "./decision-log.js";
import { FeedbackRecorder, MemoryFeedbackSink, type RecordOptions } from "./feedback-recorder.js";
import type { FeedbackOptions } from "./feedback.js";
import type { AbilityLearner, FeedbackSink, ParsedRouterOptions, RouterLogger } from "./options.js";
import { RoutePlanner, type RoutePlan } from "./planner.js";
import { ScoringContextLoader, type ScoringContext } from "./scoring-context.js";
import { modelSlots, type CallNeeds, type ModelSlot } from "./slots.js";
import { SpendRecorder, type CallUsage } from "./spend.js";
import { OnceWarnings } from "./warnings.js";
import { RunMemory } from "./run-memory.js";
import { DEFAULT_CACHE_LIFETIME_MS } from "../policy/cached-input.js";

export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_DECISION_LOG_SIZE = 10_000;
/** Runs whose prompt caches and last call the router remembers (least recently used dropped first). */
export const DEFAULT_RUNS_REMEMBERED = 10_000;

/**
 * One router's state and the operations on it: filters the models that can serve a call, scores them, ranks them
 * with the policy, keeps the decision log that feedback reads, the spend, and records feedback. Pure apart from the
 * lazy default load.
 */
export class RouteEngine {
  readonly slots: readonly ModelSlot[];
  readonly policy: PolicyConfig;
  readonly policyName: string;
  readonly maxAttempts: number;
  readonly log: DecisionLog;
  readonly logger: RouterLogger;
  readonly fallbackOn: (error: unknown) => boolean;
  /** Online learner whose posterior gives p, when configured. */
  readonly learner?: AbilityLearner;
  private readonly warnings: OnceWarnings;
  private readonly loader: ScoringContextLoader;
  private readonly planner: RoutePlanner;
  private readonly spend: SpendRecorder;
  private readonly recorder: FeedbackRecorder;
  private readonly memory: RunMemory;

  constructor(options: ParsedRouterOptions) {
    this.slots = modelSlots(options);
    this.policy = (options.policy as PolicyConfig | undefined) ?? { kind: "quality" };
    this.policyName = describePolicy(this.policy);
    this.maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.log = new DecisionLog(options.decisionLogSize ?? DEFAULT_DECISION_LOG_SIZE);
    this.learner = options.learner;
    this.logger = options.logger ?? console;
    this.fallbackOn = options.fallbackOn ?? (() => true);
    this.warnings = new OnceWarnings(this.logger);
    this.loader = new ScoringContextLoader(options, this.slots, this.warnings);
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
      learner: this.learner,
      scoring: this.loader,
      textOptions: options.routingText ?? {},
      warnings: this.warnings,
      memory: this.memory,
      cacheAware: options.cacheAware !== false,
      ...(escalation ? { escalation: { bar: (typeof escalation === "object" ? escalation.bar : undefined) ?? "stronger" } } : {}),
    });
    this.spend = new SpendRecorder(this.slots, this.log, this.loader, options.learnOutputTokens !== false);
    const sink = options.feedbackSink ?? new MemoryFeedbackSink();
    this.recorder = new FeedbackRecorder(this.log, sink, this.learner, this.logger, this.warnings);
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

  /** See {@link RoutePlanner.plan}. */
  plan(messages: readonly BaseMessage[], call: CallNeeds & { runId?: string }): Promise<RoutePlan> {
    return this.planner.plan(messages, call);
  }

  /** Records what a finished call cost (usage tokens when reported, else the estimate) for the budget policy. */
  recordSpend(plan: RoutePlan, slotId: string, usage?: CallUsage): void {
    this.spend.record(plan, slotId, usage);
    this.memory.served(plan.decision.runId, slotId, plan.shape);
  }

  /** See {@link FeedbackRecorder.feedback}. */
  feedback(idOrRunId: string, outcome: boolean | number, options: FeedbackOptions | null = {}): Promise<FeedbackEvent[]> {
    return this.recorder.feedback(idOrRunId, outcome, options);
  }

  /** See {@link FeedbackRecorder.noteToolErrors}. */
  noteToolErrors(messages: readonly BaseMessage[]): void {
    this.recorder.noteToolErrors(messages);
  }

  /** See {@link FeedbackRecorder.record}. */
  record(events: readonly FeedbackEvent[], options: RecordOptions = {}): Promise<void> {
    return this.recorder.record(events, options);
  }
}
