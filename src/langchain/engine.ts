import { randomUUID } from "node:crypto";
import type { BaseMessage } from "@langchain/core/messages";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { assertSameEncoder } from "../encoders/identity.js";
import { FeedbackError, IrtRouterError, ValidationError } from "../errors.js";
import type { ModelPrice } from "../data/types.js";
import type { QueryEncoder } from "../encoders/types.js";
import type { FeedbackEvent } from "../learning/events.js";
import { snapshotNeedsReopen } from "../learning/store.js";
import type { PolicyConfig } from "../policy/types.js";
import { describePolicy } from "../policy/schema.js";
import { rankCandidates } from "../policy/rank.js";
import { expectedCostUsd } from "../policy/expected-cost.js";
import { estimateTokens } from "../policy/tokens.js";
import { OutputTokenTracker } from "../policy/output-tokens.js";
import { listPrice } from "../policy/prices.js";
import type { ItemParams, Scorer } from "../scorer/types.js";
import type { RouteDecision, ExclusionRecord } from "./decision.js";
import { DecisionLog, type LoggedDecision } from "./decision-log.js";
import { loadDefaultScorer } from "./defaults.js";
import { NoCandidatesError } from "./errors.js";
import { decisionEvent, markToolErrors, parseFeedbackOptions, runEvents, type FeedbackOptions } from "./feedback.js";
import { LruCache } from "../encoders/lru.js";
import type { AbilityLearner, FeedbackSink, ParsedRouterOptions, RouterLogger } from "./options.js";
import { missingScorerParts } from "./options.js";
import { messageText, routingText, type RoutingTextOptions } from "./routing-text.js";

export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_EXPECTED_OUTPUT_TOKENS = 256;
/** How many observed calls the configured output-token guess is worth when output lengths are learned. */
export const DEFAULT_OUTPUT_TOKENS_PRIOR_WEIGHT = 4;
export const DEFAULT_CACHE_SIZE = 1024;
export const DEFAULT_DECISION_LOG_SIZE = 10_000;
/** The exclusion reason of a registered model its learner removed (see `RouteEngine.plan`). */
export const REMOVED_FROM_LEARNER = "removed from the learner (removeModel)";

/** One registered model, resolved. */
export interface ModelSlot {
  /** The key it was registered under. */
  readonly id: string;
  readonly model: BaseChatModel;
  readonly price?: ModelPrice;
  readonly contextWindow?: number;
  /** Expected output tokens per call: the configured guess, updated from observed usage unless learning is off. */
  readonly outputTokens: OutputTokenTracker;
}

/** What a call needs of a model; a model that lacks it is excluded before scoring (see `RouteEngine.plan`). */
export interface CallNeeds {
  /** At least one tool is bound: the model must be able to call tools. */
  readonly toolsBound: boolean;
  /**
   * The caller calls `bindTools()` on the model whatever the tool list: `createAgent` does on every step, even with
   * no tools, so under {@link irtRouterMiddleware} a model without `bindTools()` would only fail.
   */
  readonly bindsTools?: boolean;
  /** The call wants structured output (`withStructuredOutput` is replayed on the model). */
  readonly structuredOutput?: boolean;
}

/** A decision plus the order in which to try the models. */
export interface RoutePlan {
  readonly decision: RouteDecision;
  /** Models to try, best first, at most `maxAttempts`. */
  readonly order: readonly ModelSlot[];
  readonly logged: LoggedDecision;
}

/** In-memory feedback sink used when none is configured. */
export class MemoryFeedbackSink implements FeedbackSink {
  readonly events: FeedbackEvent[] = [];
  append(events: readonly FeedbackEvent[]): void {
    this.events.push(...events);
  }
}

interface ScoringContext {
  scorer: Scorer;
  encoder?: QueryEncoder;
  /** Population-average ability: the mean theta of the catalog, for models the scorer does not know. */
  meanTheta: Float32Array;
  /** Registered key -> theta (the catalog's, or meanTheta for an unknown key). */
  theta: Map<string, Float32Array>;
  /** Registered key -> catalog id (the key itself when unknown). */
  catalogIds: Record<string, string>;
  /** Registered key -> price (the user's, else the catalog's). */
  prices: Map<string, ModelPrice | undefined>;
}

/** The catalog entry of an id or alias (exact match first, then case-insensitive). */
function catalogEntry(scorer: Scorer, id: string) {
  const lower = id.toLowerCase();
  return (
    scorer.models.find((m) => m.id === id || m.aliases.includes(id)) ??
    scorer.models.find((m) => m.id.toLowerCase() === lower || m.aliases.some((a) => a.toLowerCase() === lower))
  );
}

/** theta of a model the scorer knows (it resolves ids and aliases itself), or undefined when unknown. */
function abilityOf(scorer: Scorer, id: string): { theta?: Float32Array; suggestions: string[] } {
  try {
    return { theta: scorer.ability(id), suggestions: [] };
  } catch (error) {
    if (error instanceof IrtRouterError && error.code === "UNKNOWN_MODEL") {
      const suggestions = (error.details?.suggestions as string[] | undefined) ?? [];
      return { suggestions };
    }
    throw error;
  }
}

/**
 * Item parameters with the scorer's logit temperature folded in (alpha / T, beta / T), so that
 * p = sigmoid(alpha . theta - beta) is exactly the scorer's p, and feedback events carry parameters
 * the learner can use as they are. Scorers without a `temperature` are used as they are.
 */
function tempered(item: ItemParams, scorer: Scorer): ItemParams {
  const t = (scorer as { temperature?: unknown }).temperature;
  if (typeof t !== "number" || !(t > 0) || t === 1) return item;
  return { alpha: item.alpha.map((a) => a / t), beta: item.beta / t };
}

const sigmoid = (z: number): number => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

/**
 * The routing core shared by {@link IrtRouter} and {@link irtRouterMiddleware}: filters the models
 * that can serve a call, scores them (item parameters of the routing text, cached), ranks them with
 * the policy, and keeps the decision log that feedback reads. Pure apart from the lazy default load.
 */
export class RouteEngine {
  readonly slots: readonly ModelSlot[];
  readonly policy: PolicyConfig;
  readonly policyName: string;
  readonly maxAttempts: number;
  readonly log: DecisionLog;
  readonly sink: FeedbackSink;
  readonly logger: RouterLogger;
  readonly fallbackOn: (error: unknown) => boolean;
  private readonly textOptions: RoutingTextOptions;
  private readonly cache: LruCache<string, ItemParams>;
  private readonly scorerOption: ParsedRouterOptions["scorer"];
  private readonly encoderOption: ParsedRouterOptions["encoder"];
  private context?: Promise<ScoringContext>;
  private loaded?: ScoringContext;
  private readonly warned = new Set<string>();
  /** Whether observed usage updates each slot's expected output tokens (option `learnOutputTokens`). */
  private readonly learnOutputTokens: boolean;
  /** Online learner whose posterior gives p, when configured. */
  readonly learner?: AbilityLearner;

  constructor(options: ParsedRouterOptions) {
    const defaultOut = options.expectedOutputTokens ?? DEFAULT_EXPECTED_OUTPUT_TOKENS;
    const learn = options.learnOutputTokens;
    const learnWeight = typeof learn === "object" ? learn.weight : DEFAULT_OUTPUT_TOKENS_PRIOR_WEIGHT;
    this.slots = Object.entries(options.models).map(([id, entry]) => ({
      id,
      model: entry.model,
      price: entry.price,
      contextWindow: entry.contextWindow,
      outputTokens: new OutputTokenTracker(entry.expectedOutputTokens ?? defaultOut, learnWeight),
    }));
    this.learnOutputTokens = learn !== false;
    this.policy = (options.policy as PolicyConfig | undefined) ?? { kind: "quality" };
    this.policyName = describePolicy(this.policy);
    this.maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.log = new DecisionLog(options.decisionLogSize ?? DEFAULT_DECISION_LOG_SIZE);
    this.sink = options.feedbackSink ?? new MemoryFeedbackSink();
    this.learner = options.learner;
    this.logger = options.logger ?? console;
    this.fallbackOn = options.fallbackOn ?? (() => true);
    this.textOptions = options.routingText ?? {};
    this.cache = new LruCache(options.cacheSize ?? DEFAULT_CACHE_SIZE);
    this.scorerOption = options.scorer;
    this.encoderOption = options.encoder;
  }

  /** Loads the scorer (and encoder) on first use; later calls reuse it. A failed load is retried next call. */
  scoring(): Promise<ScoringContext> {
    if (!this.context) {
      this.context = this.loadContext();
      this.context.catch(() => (this.context = undefined));
    }
    return this.context;
  }

  private async loadContext(): Promise<ScoringContext> {
    let scorer: Scorer;
    let encoder: QueryEncoder | undefined;
    if (this.scorerOption === undefined) {
      ({ scorer, encoder } = await loadDefaultScorer());
    } else {
      scorer = typeof this.scorerOption === "function" ? await this.scorerOption() : this.scorerOption;
      assertScorerShape(scorer);
    }
    if (this.encoderOption !== undefined) {
      encoder = typeof this.encoderOption === "function" ? await this.encoderOption() : this.encoderOption;
      assertSameEncoder(scorer.encoder, encoder, "scorer");
    }
    const d = scorer.abilityDim;
    const meanTheta = new Float32Array(d);
    for (const m of scorer.models) for (let k = 0; k < d; k++) meanTheta[k]! += m.ability[k]! / scorer.models.length;
    const theta = new Map<string, Float32Array>();
    const catalogIds: Record<string, string> = {};
    const prices = new Map<string, ModelPrice | undefined>();
    for (const slot of this.slots) {
      const entry = catalogEntry(scorer, slot.id);
      const known = abilityOf(scorer, slot.id);
      if (known.theta) {
        theta.set(slot.id, known.theta);
        catalogIds[slot.id] = entry?.id ?? slot.id;
      } else {
        theta.set(slot.id, meanTheta);
        catalogIds[slot.id] = slot.id;
        this.warnOnce(
          `unknown:${slot.id}`,
          `irt-router: model "${slot.id}" is not in the scorer's catalog (${scorer.models.length} models, e.g. ${scorer.models
            .slice(0, 4)
            .map((m) => m.id)
            .join(", ")}); it is scored at the population-average ability until feedback teaches its own. ` +
            (known.suggestions.length > 0
              ? `Did you mean ${known.suggestions.join(", ")}?`
              : `Use a catalog id or alias as the key if this is a known model.`),
        );
      }
      const price = slot.price ?? entry?.price ?? listPrice(entry?.id ?? slot.id);
      prices.set(slot.id, price);
      if (!price) {
        this.warnOnce(
          `price:${slot.id}`,
          `irt-router: model "${slot.id}" has no price; its expected cost is taken as 0. ` +
            `Give it one: models: { "${slot.id}": { model, price: { inputPer1M, outputPer1M } } }.`,
        );
      }
    }
    this.loaded = { scorer, encoder, meanTheta, theta, catalogIds, prices };
    return this.loaded;
  }

  warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn(message);
  }

  /** Why a model cannot serve this call, or undefined when it can. */
  private exclusion(slot: ModelSlot, needs: CallNeeds, inputTokens: number): string | undefined {
    const model = slot.model as BaseChatModel & { profile?: { toolCalling?: boolean; maxInputTokens?: number } };
    const profile = model.profile ?? {};
    const canBindTools = typeof model.bindTools === "function";
    if (needs.toolsBound && (!canBindTools || profile.toolCalling === false)) {
      return "cannot call tools (no bindTools / profile.toolCalling is false) and tools are bound";
    }
    if (needs.bindsTools && !canBindTools) {
      return "has no bindTools(), which createAgent calls on every model it is given (also with no tools)";
    }
    // LangChain's default withStructuredOutput is built on bindTools; a model that has neither its own nor bindTools would throw
    if (needs.structuredOutput && !canBindTools && model.withStructuredOutput === BaseChatModel.prototype.withStructuredOutput) {
      return "cannot give structured output (no bindTools, which LangChain's default withStructuredOutput needs, and no withStructuredOutput of its own)";
    }
    const window = slot.contextWindow ?? profile.maxInputTokens;
    if (window !== undefined && inputTokens > window) {
      return `input is ~${inputTokens} tokens, over its context window of ${window}`;
    }
    return undefined;
  }

  /**
   * Decide which models to try for one call. Throws NO_CANDIDATES when no model can serve it. `runId` names the
   * run the call belongs to (feedback by run, and the budget policy's spend).
   */
  async plan(messages: readonly BaseMessage[], call: CallNeeds & { runId?: string }): Promise<RoutePlan> {
    const inputTokens = estimateTokens(messages.map(messageText).join("\n"));
    const eligible: ModelSlot[] = [];
    const excluded: ExclusionRecord[] = [];
    for (const slot of this.slots) {
      const reason = this.exclusion(slot, call, inputTokens);
      if (reason === undefined) eligible.push(slot);
      else excluded.push({ id: slot.id, reason });
    }
    if (eligible.length === 0) throw new NoCandidatesError(excluded);
    if (this.policy.kind === "budget" && call.runId === undefined) {
      this.warnOnce(
        "budget:no-run-id",
        `irt-router: the ${this.policyName} policy got a call with no run id, so its spend counts toward one budget ` +
          `shared by every call without a run id, for as long as the router lives. Name each run: ` +
          `metadata: { irtRouterRunId: "<id>" } in the call's config (for a createAgent run: ` +
          `agent.invoke(input, { metadata: { irtRouterRunId } })), ` +
          `or route the agent with irtRouterMiddleware, which gives each run its own id.`,
      );
    }

    const ctx = await this.scoring();
    this.excludeRemoved(eligible, excluded, ctx);
    if (eligible.length === 0) throw new NoCandidatesError(excluded);
    const text = routingText(messages, this.textOptions) || "(no text)";
    let encodeMs = 0;
    let scoreMs = 0;
    let item = this.cache.get(text);
    const cacheHit = item !== undefined;
    if (!item) {
      const t0 = performance.now();
      if (ctx.encoder) {
        const [vector] = await ctx.encoder.embed([text]);
        const t1 = performance.now();
        encodeMs = t1 - t0;
        item = await ctx.scorer.itemParams(vector!);
        scoreMs = performance.now() - t1;
      } else {
        // The scorer embeds the text itself; that time is reported as encodeMs.
        item = await ctx.scorer.itemParams(text);
        encodeMs = performance.now() - t0;
      }
      item = tempered(item, ctx.scorer);
      this.cache.set(text, item);
    }
    const t2 = performance.now();
    // Again after the awaits above: a model removed from the learner while this query was scored is left out here,
    // with no await between this check and learnerScores' addModel (which refuses a removed id).
    this.excludeRemoved(eligible, excluded, ctx);
    if (eligible.length === 0) throw new NoCandidatesError(excluded);
    const learned = this.learnerScores(item, eligible, ctx);
    const candidates = eligible.map((slot, i) => {
      let p: number;
      if (learned) p = learned[i]!;
      else {
        const theta = ctx.theta.get(slot.id)!;
        let z = -item.beta;
        for (let k = 0; k < theta.length; k++) z += item.alpha[k]! * theta[k]!;
        p = sigmoid(z);
      }
      const price = ctx.prices.get(slot.id);
      const expectedCost = price
        ? expectedCostUsd({ inputTokens, expectedOutputTokens: slot.outputTokens.estimate, price })
        : 0;
      return { id: slot.id, p, expectedCost };
    });
    const ranked = rankCandidates(this.policy, candidates, { spentUsd: this.log.spent(call.runId) });
    scoreMs += performance.now() - t2;

    const decision: RouteDecision = {
      decisionId: randomUUID(),
      ...(call.runId !== undefined ? { runId: call.runId } : {}),
      chosen: ranked[0]!.id,
      policy: this.policyName,
      candidates: ranked.map((r) => ({ id: r.id, p: r.p, expectedCost: r.expectedCost, utility: r.utility })),
      excluded,
      encodeMs,
      scoreMs,
      cacheHit,
      inputTokens,
      attempts: [],
    };
    const bySlot = new Map(eligible.map((s) => [s.id, s]));
    const order = ranked.slice(0, this.maxAttempts).map((r) => bySlot.get(r.id)!);
    const logged: LoggedDecision = { decision, alpha: item.alpha, beta: item.beta, catalogIds: ctx.catalogIds, feedbackGiven: false };
    this.log.add(logged);
    return { decision, order, logged };
  }

  /**
   * Moves the models the learner removed (`removeModel`, also as recorded by a restored snapshot) from `eligible` to
   * `excluded`: a removed id cannot be added back (`addModel` throws), so it is left out like a model that cannot
   * serve the call, and the others are routed as usual.
   */
  private excludeRemoved(eligible: ModelSlot[], excluded: ExclusionRecord[], ctx: ScoringContext): void {
    const learner = this.learner;
    if (typeof learner?.isRemoved !== "function") return;
    const kept = eligible.filter((slot) => {
      const id = ctx.catalogIds[slot.id] ?? slot.id;
      if (learner.has(id) || !learner.isRemoved!(id)) return true;
      excluded.push({ id: slot.id, reason: REMOVED_FROM_LEARNER });
      return false;
    });
    eligible.splice(0, eligible.length, ...kept);
  }

  /**
   * With a learner: each eligible model's exploration score (its predictive p when exploration is off), by
   * catalog id; models the learner has not seen are added at its new-model prior (a model it removed is no longer
   * eligible, see {@link RouteEngine.excludeRemoved}). Undefined without a learner.
   */
  private learnerScores(item: ItemParams, eligible: readonly ModelSlot[], ctx: ScoringContext): number[] | undefined {
    if (!this.learner) return undefined;
    const ids = eligible.map((slot) => ctx.catalogIds[slot.id] ?? slot.id);
    for (const id of ids) if (!this.learner.has(id)) this.learner.addModel(id);
    const scores = this.learner.score(item, ids);
    return scores.map((s) => s.score);
  }

  /** Records what a finished call cost (usage tokens when reported, else the estimate) for the budget policy. */
  recordSpend(plan: RoutePlan, slotId: string, usage?: { input_tokens?: number; output_tokens?: number }): void {
    const candidate = plan.decision.candidates.find((c) => c.id === slotId);
    const slot = this.slots.find((s) => s.id === slotId);
    const price = slot?.price ?? this.cachedPrice(slotId);
    let usd = candidate?.expectedCost ?? 0;
    if (this.learnOutputTokens && slot && usage?.output_tokens !== undefined) slot.outputTokens.observe(usage.output_tokens);
    if (price && usage && Number.isFinite(usage.input_tokens) && Number.isFinite(usage.output_tokens)) {
      usd = expectedCostUsd({
        inputTokens: usage.input_tokens!,
        expectedOutputTokens: usage.output_tokens!,
        price,
      });
    }
    this.log.addSpend(plan.decision.runId, usd);
  }

  private cachedPrice(slotId: string): ModelPrice | undefined {
    // Prices are resolved when the scoring context loads; plan() always runs after that.
    return this.loaded?.prices.get(slotId);
  }

  /**
   * Record an observed outcome for one decision (by decision id) or for the answered decisions of a run (by run id,
   * spread over its steps as `options.attribution` says), as {@link FeedbackEvent}s written to the sink. Returns the
   * events written.
   */
  async feedback(idOrRunId: string, outcome: boolean | number, givenOptions: FeedbackOptions | null = {}): Promise<FeedbackEvent[]> {
    const options = parseFeedbackOptions(givenOptions);
    if (typeof idOrRunId !== "string" || idOrRunId.length === 0) {
      throw new FeedbackError("feedback() needs a decision id (response_metadata.irtRouter.decisionId) or a run id.", {
        path: "id",
      });
    }
    const y = typeof outcome === "boolean" ? (outcome ? 1 : 0) : outcome;
    if (typeof y !== "number" || !Number.isFinite(y) || y < 0 || y > 1) {
      throw new FeedbackError(
        `outcome must be true/false or a number in [0, 1] (1 = correct), got ${String(outcome)}.`,
        { path: "outcome" },
      );
    }
    const weight = options.weight ?? 1;
    const single = this.log.get(idOrRunId);
    if (single && options.attribution !== undefined) {
      throw new FeedbackError(
        `options.attribution spreads a run's outcome over its steps; "${idOrRunId}" is a decision id, which takes the outcome as given. ` +
          `Pass the run id (irtRouterRunId) to attribute, or leave attribution out.`,
        { path: "options.attribution" },
      );
    }
    const targets = single ? [single] : this.log.ofRun(idOrRunId);
    if (targets.length === 0) {
      throw new FeedbackError(
        `No decision or run with id "${idOrRunId}" (the router keeps the last ${this.log.capacity} decisions). ` +
          `Use response_metadata.irtRouter.decisionId, or the run id given as metadata.irtRouterRunId / by the middleware.`,
        { path: "id", details: { id: idOrRunId } },
      );
    }
    const answered = targets.filter((t) => t.decision.attempts.some((a) => a.ok));
    if (answered.length === 0) {
      throw new FeedbackError(`"${idOrRunId}" has no answered call (every attempt failed), so there is no model to credit.`, {
        path: "id",
      });
    }
    const repeated = answered.filter((t) => t.feedbackGiven);
    if (repeated.length > 0) {
      throw new FeedbackError(
        `Decision(s) ${repeated.map((t) => t.decision.decisionId).join(", ")} already has an outcome (recorded, or being recorded by a concurrent ` +
          `feedback() call); each decision takes one outcome.`,
        { path: "id", details: { duplicate: repeated.map((t) => t.decision.decisionId) } },
      );
    }
    // Claimed before the first await, so a concurrent feedback() for the same decision is refused above; released
    // if the outcome is not stored (the same call can then be retried).
    for (const t of answered) t.feedbackGiven = true;
    let events: FeedbackEvent[];
    let stored = false;
    try {
      const at = Date.now();
      events = single ? [decisionEvent(single, y, weight, at)] : runEvents(idOrRunId, answered, y, weight, at, options.attribution);
      await this.record(events, { onStored: () => (stored = true) });
    } catch (error) {
      if (!stored) for (const t of answered) t.feedbackGiven = false;
      throw error;
    }
    return events;
  }

  /**
   * Notes which logged decisions' tool calls failed, from the conversation a routed call receives (see
   * {@link markToolErrors}); `feedback(runId, y, { attribution: { toolErrorsAsFailures: true } })` reads it.
   */
  noteToolErrors(messages: readonly BaseMessage[]): void {
    markToolErrors(this.log, messages);
  }

  /** The tail of the sink writes in flight: {@link RouteEngine.record} runs one batch at a time. */
  private recording: Promise<unknown> = Promise.resolve();

  /**
   * Records feedback events (of `feedback()` or of a calibration probe), one batch at a time: checks them against the
   * learner (an event it would refuse is never stored: every replay would throw on it), writes them to the sink,
   * applies them to the learner, and, when the sink is a store that reports `snapshotDue` and the learner can export
   * its state, snapshots that state at the batch's sequence number. Serialised, so a snapshot covers exactly the
   * events stored up to it. A failed snapshot is a warning: the events are stored (the journal keeps them until a
   * later snapshot succeeds; the store still reports the snapshot due, so the next batch retries it). Throws a
   * FeedbackError when the sink fails (nothing then counts); `onStored` is called as soon as the sink has acknowledged
   * the events. `checked`: the caller has just run `learner.check` on these events (`calibrateModel` does before its
   * `onEvent`), so it is not run again: what can change meanwhile (an id applied since, the model removed since) makes
   * `observe` a no-op, not a refusal, and within the item-parameter bound no posterior the learner reaches in use turns
   * a checked update non-finite (see `learner.check`).
   */
  record(events: readonly FeedbackEvent[], options: { onStored?: () => void; checked?: boolean } = {}): Promise<void> {
    const run = this.recording.then(() => this.recordNow(events, options));
    this.recording = run.catch(() => undefined);
    return run;
  }

  private async recordNow(events: readonly FeedbackEvent[], { onStored, checked = false }: { onStored?: () => void; checked?: boolean }): Promise<void> {
    const learner = this.learner;
    if (learner?.check && !checked) for (const event of events) learner.check(event);
    let appended: unknown;
    try {
      appended = await this.sink.append(events);
    } catch (error) {
      if (error instanceof IrtRouterError) throw error;
      throw new FeedbackError(`The feedback sink failed to store ${events.length} event(s): ${(error as Error).message}`, {
        cause: error,
      });
    }
    onStored?.();
    if (learner) for (const event of events) learner.observe(event);
    const due = appended as { snapshotDue?: unknown; seq?: unknown } | undefined;
    if (due?.snapshotDue !== true || typeof due.seq !== "number") return;
    const { snapshot } = this.sink;
    if (typeof snapshot !== "function" || typeof learner?.exportState !== "function") {
      this.warnOnce(
        "snapshot-unsupported",
        `irt-router: the feedback sink reports a snapshot is due, but ${typeof snapshot !== "function" ? "it has no snapshot(seq, state) method" : "the router has no learner with exportState() to snapshot"}; ` +
          `its journal keeps every event and a restore replays them all. Give the router a learner (OnlineLearner), or snapshot the store yourself.`,
      );
      return;
    }
    try {
      await snapshot.call(this.sink, due.seq, learner.exportState());
    } catch (error) {
      // A store whose handle can no longer append says so (FileStore: details.reopen, after a failed journal compaction).
      const reopen = snapshotNeedsReopen(error);
      this.logger.warn(
        `irt-router: the snapshot of the learner at event ${due.seq} failed (${(error as Error)?.message ?? String(error)}); the feedback is stored ` +
          `in the journal all the same, ` +
          (reopen
            ? `but the store refuses further feedback until it is reopened (close it, open it again and give a router the new handle).`
            : `and the next feedback retries the snapshot.`),
      );
    }
  }
}

/** A scorer factory's result, checked before use: a typed error naming the option instead of a TypeError later. */
function assertScorerShape(scorer: unknown): asserts scorer is Scorer {
  const missing = missingScorerParts(scorer);
  if (missing.length > 0) {
    throw new ValidationError(
      `options.scorer did not give a Scorer (missing ${missing.join(", ")}); pass a scorer such as loadPretrained(), or a function that resolves to one.`,
      { path: "options.scorer" },
    );
  }
}
