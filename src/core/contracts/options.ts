import { z } from "zod";
import type { ModelPrice } from "../../data/types.js";
import type { QueryEncoder } from "../../encoders/types.js";
import type { Scorer } from "../../scorer/types.js";
import type { PolicyConfig } from "../../policy/types.js";
import type { FeedbackEvent } from "../../learning/events.js";
import type { ModelStart } from "../../learning/learner-types.js";
import { policySchema } from "../../policy/schema.js";
import { modelPriceSchema } from "../../policy/price-schema.js";
import { functionSchema } from "../../util/validate.js";
import { runRoutingSchema, type RunRoutingOptions } from "../../runs/options.js";
import type { RouterStore } from "./router-store.js";
import { tracingOptionSchema, type RouteTracingOptions } from "../../tracing/route-span.js";
import type { DecisionRecord } from "./route-decision.js";

/** How much of a conversation the router reads to score a call. */
export interface RoutingTextOptions {
  /** Characters of surrounding turns added after the latest human message (default 1000; 0 = none). */
  readonly contextChars?: number;
  /** The latest human message is cut to this many characters, keeping its start (default 4000). */
  readonly maxQueryChars?: number;
}

/**
 * Default total weight of one run's outcome (the events of one `feedback(runId, ...)` call): 1, one observation's worth,
 * since a run's outcome is one observation however many steps it is spread over (bench/online/poisoning.ts: with 3 the best
 * model kept 64% of its routes after one false outcome over 200 steps).
 */
export const DEFAULT_MAX_RUN_WEIGHT = 1;
/** Default per-source budget: this much event weight per window. */
export const DEFAULT_SOURCE_BUDGET = { weight: 50, windowMs: 3_600_000 } as const;
/**
 * Default weight factor of an outcome given without an explicit `source` (an unauthenticated caller): 0.1, so ten such
 * outcomes move the learner as much as one attributed outcome (`npx tsx bench/online/poisoning.ts --targeted`: with 1 the
 * best catalog model kept 32-45% of its routes after 10 adversarial outcomes; docs/online.md, "Threat model").
 */
export const DEFAULT_UNATTRIBUTED_WEIGHT = 0.1;
/** The one source every outcome given without an explicit `source` is charged to (and recorded under). */
export const UNATTRIBUTED_SOURCE = "irt-router:unattributed";

const positive = z.number().positive().refine(Number.isFinite, "must be a finite number");

/** The router's `feedbackLimits` option. */
export const feedbackLimitsSchema = z.strictObject({
  /** Largest total weight of one `feedback(runId, ...)` call's events (default 1); the steps keep their shape under it. */
  maxRunWeight: positive.default(DEFAULT_MAX_RUN_WEIGHT),
  /** Event weight one source may give per window (default 50 per hour), or `false` for no budget. */
  sourceBudget: z
    .union([z.literal(false), z.strictObject({ weight: positive, windowMs: positive })])
    .default(DEFAULT_SOURCE_BUDGET),
  /**
   * Factor on the weight of an outcome given without an explicit `source` (default 0.1, in (0, 1]): such outcomes are
   * unauthenticated, all charged to one shared source ({@link UNATTRIBUTED_SOURCE}), and a handful of them cannot take
   * routes from a catalogued model. 1 gives them full weight (as irt-router 0.2.0 did).
   */
  unattributedWeight: positive.refine((w) => w <= 1, "must be a number in (0, 1]").default(DEFAULT_UNATTRIBUTED_WEIGHT),
});

export type FeedbackLimits = z.output<typeof feedbackLimitsSchema>;
export type FeedbackLimitsOptions = z.input<typeof feedbackLimitsSchema>;

/**
 * Where `router.feedback()` writes events. An `AbilityStore` fits; so does any `{ append }`. When `append` reports
 * `{ snapshotDue: true, seq }` (as a store does every `snapshotEvery` events) and the sink has `snapshot`, the router
 * snapshots its learner's `exportState()` there after applying the events.
 */
export interface FeedbackSink {
  append(events: readonly FeedbackEvent[]): unknown;
  snapshot?(seq: number, state: unknown): unknown;
}

export interface RouterLogger {
  /**
   * One-time warnings. `warning`, when present, is the typed warning (e.g. `UnknownModelWarning`: the model, the prior
   * it got and the command that calibrates it).
   */
  warn(message: string, warning?: Error): void;
}

/**
 * The routing options every face of the router shares (the core's {@link RouterCoreOptions}, LangChain's
 * `IrtRouterOptions`, the AI SDK model's options): everything but the models and the framework's own settings.
 */
export interface RoutingOptions {
  /**
   * Run-level routing (`router.routeRun`, `router.runTask`, `router.runs`): cost weight, token assumption, priors and
   * exploration of the {@link RunRouter} that chooses one model per agent run (docs/agents.md, "Run-level routing").
   */
  readonly runs?: RunRoutingOptions;
  /** Scorer, or a factory called once on first use. Default: the pretrained scorer (loaded lazily). */
  readonly scorer?: Scorer | (() => Promise<Scorer>);
  /**
   * Encoder for the routing text, or a factory. When given, the router embeds (with its cache) and
   * passes vectors to the scorer. Default: the pretrained scorer's offline encoder when the scorer is
   * the default; with a custom scorer and no encoder, the scorer receives the text itself.
   */
  readonly encoder?: QueryEncoder | (() => Promise<QueryEncoder>);
  /** Routing policy (default `{ kind: "quality" }`). */
  readonly policy?: PolicyConfig;
  /** Most models tried per call: the choice plus fallbacks (default 3). */
  readonly maxAttempts?: number;
  /** Expected output tokens per call for the cost estimate, before any call is observed (default 256). */
  readonly expectedOutputTokens?: number;
  /**
   * Learn each model's expected output tokens from the `usage_metadata.output_tokens` of the calls it
   * answers (a running mean shrunk toward `expectedOutputTokens`), so the cost estimate follows what the model
   * really writes. `weight` is how many calls the configured guess is worth (default 4); `false` keeps the
   * configured numbers fixed. Default: on.
   */
  readonly learnOutputTokens?: boolean | { readonly weight: number };
  /** What part of the conversation is scored (see {@link routingText}). */
  readonly routingText?: RoutingTextOptions;
  /** Routing texts whose item parameters are kept (LRU, default 1024; 0 disables the cache). */
  readonly cacheSize?: number;
  /** Decisions kept for `feedback()` (oldest dropped first, default 10000). */
  readonly decisionLogSize?: number;
  /**
   * Where feedback events go (default: kept in memory, readable as `router.feedbackEvents`, and lost when the process
   * ends; a `FileStore` keeps them). The router snapshots its learner (the `learner` given, else its in-memory one) to a
   * sink that reports a snapshot due.
   */
  readonly feedbackSink?: FeedbackSink;
  /**
   * Where the router keeps its learning state, in one option: a `MemoryStore`, a `FileStore` or a `RedisStore`
   * (`irt-router/adapters`). The router restores an online learner from it when the scorer loads (the default scorer
   * included), journals feedback there, applies it and snapshots when due; a `RedisStore` also shares the learning
   * state, the decision log (feedback for a run on any process) and the budget policy's per-run spend with every
   * process on the same prefix. Replaces `learner` and `feedbackSink` (give those instead for full control).
   */
  readonly store?: RouterStore;
  /** Receives one-time warnings (unknown model, missing price). Default: `console`. */
  readonly logger?: RouterLogger;
  /**
   * Online ability learner (e.g. an `OnlineLearner` built from the scorer's catalog). Without it (and without `store`)
   * the router learns in memory: the first recorded outcome (`feedback()`, `calibrate()`) starts
   * `OnlineLearner.forScorer(scorer)`, lost when the process ends; until then p is the scorer's. When set, every
   * candidate's p is its predictive p under the learner's posterior (with the learner's exploration rule, if
   * any), models it does not know are added at its new-model prior, and `feedback()` updates it. A registered model
   * the learner removed (`removeModel`) is excluded from the candidates, with its reason in the decision's `excluded`.
   */
  readonly learner?: AbilityLearner;
  /**
   * Learning that does not raise the spend (default true; it acts only with a learner and the cost-aware policy). With
   * an online learner (`learner`, `store`, or the in-memory one) and the cost-aware policy, the router also ranks each
   * call on the scorer's p alone (the same router without learning) at the user's lambda. A call may cost at most that
   * choice's expected cost plus what the learned choices so far cost less than the scorer's (when the learned first
   * choice is dearer, the best-ranked model within the cap goes first), so the learned choices' total expected cost
   * never exceeds the router's without learning on the same calls; and lambda is scaled as the router goes so that the
   * two spends stay level and the cap seldom binds. What the learner learns then moves the spend between calls instead
   * of raising it. Calls with a model whose ability the scorer and the catalog place only by rule (family and price
   * tier, or the population average) are neither capped nor counted. `false`: at the user's lambda, a learner that
   * finds the cheap models worse than the scorer says buys the strong one on more calls (more success, more spend).
   * Other policies are unchanged. See docs/agents.md, "Learning at the scorer's spend".
   */
  readonly holdSpend?: boolean;
  /**
   * Bounds on the influence of feedback (docs/langchain.md, "Bounded influence"): `maxRunWeight`, the total weight of
   * one run's outcome (default 1), and `sourceBudget`, the event weight one source may give per window (default
   * `{ weight: 50, windowMs: 3600000 }`; `false` for none), and `unattributedWeight`, the factor on the weight of an
   * outcome given without an explicit `source` (default 0.1; all such outcomes share one budget).
   */
  readonly feedbackLimits?: FeedbackLimitsOptions;
  /** Whether a failed call falls back to the next candidate (default: every error except an abort). */
  readonly fallbackOn?: (error: unknown) => boolean;
  /**
   * Milliseconds each attempt may take when the call gives no `timeout` (default 600000, the request timeout of the
   * OpenAI and Anthropic SDKs). At that point the attempt is abandoned, whether or not the child honours its abort
   * signal, and the next candidate is tried.
   */
  readonly attemptTimeout?: number;
  /**
   * Prompt-cache-aware cost (default on): a candidate's expected cost bills the part of the call's input its provider
   * has cached for this run (the messages the same model last served in the run, within `lifetimeMs`, default
   * 5 minutes) at its `cachedInputPer1M`. Staying with a model is then cheaper, and switching is priced, never
   * forbidden. Needs a run id (`metadata.irtRouterRunId`, or the middleware's). `now` is the clock (ms, default
   * `Date.now`), for replays on simulated time. `false`: cache-blind, every input token at the input price.
   * See docs/cost-estimation.md, "Cache-aware routing".
   */
  readonly cacheAware?: boolean | { readonly lifetimeMs?: number; readonly now?: () => number };
  /**
   * Escalation after a visible failure of a step (a tool error answering the previous call, or the agent sending the
   * step again): the model that failed is passed over for that step and a stronger bar applies. `true` is
   * `{ bar: "stronger" }`: only models with a higher p than the failed one's are ranked by the policy (the others
   * follow by p); `{ bar: "best" }` takes the highest p of the rest. Recorded as the decision's `escalated`.
   * Default off. See docs/policies.md, "Escalation".
   */
  readonly escalation?: boolean | { readonly bar?: "stronger" | "best" };
  /**
   * Task hint for every call (a call's `metadata.irtRouterTask` wins): with a `learner`, each (model, task) pair gets
   * an ability offset learned from feedback, starting at zero, that the call's p includes. The decision and its
   * feedback events carry the task. See docs/online.md, "Task hints".
   */
  readonly task?: string;
  /**
   * OpenTelemetry: with `@opentelemetry/api` installed (an optional peer; the app registers its own SDK), each routed
   * call is one `irt_router.route` span (kind INTERNAL) under the active span, with the chosen model, policy, reason,
   * p, expected and realized cost, `fallback_from`, and one event per candidate. Run ids and the routing text (user
   * content) are left out unless `{ includeRunId: true }` / `{ includeText: true }`. `false`: no spans. Default on.
   */
  readonly tracing?: boolean | RouteTracingOptions;
  /**
   * Receives one `DecisionRecord` per settled call (answered, or failed on every model tried), with its
   * realized cost from the reported usage: the JSON Lines that `irt-router report --decisions` reads. To write a
   * file, use `decisionLogFile(path)` from `irt-router/adapters`. A sink that throws is warned about once, never
   * fails the call.
   */
  readonly decisionSink?: (record: DecisionRecord) => unknown;
  /**
   * Shadow mode: the registered model `serve` answers every call (no fallback), while the router decides as usual;
   * its choice is recorded (`decision.shadow.chosen`, a decision log's `routed`) with its p and expected cost, to
   * compare before switching.
   */
  readonly shadow?: { readonly serve: string };
}

/** What a model can do; an absent field is not known, and does not exclude the model. */
export interface ModelCapabilities {
  /** Whether it can call tools. */
  readonly tools?: boolean;
  /** Whether it can give structured output. */
  readonly structuredOutput?: boolean;
  /** Input context window in tokens. */
  readonly contextWindow?: number;
}

/** One model of a {@link RouterCore}: its id and what the router must know of it (its price, what it can do). */
export interface CoreModelConfig {
  /**
   * The model's id: a scorer catalog id or alias (e.g. `gpt-4-1106-preview`) or a model of the catalog of current
   * models (`gpt-4o`, `claude-sonnet-4-5`; docs/catalog.md), which starts from its prior. Any other id starts from the
   * family and price-tier rule, reported once through `logger` as an `UnknownModelWarning`.
   */
  readonly id: string;
  /** List price; default: the scorer catalog's, else the current-models catalog's, else unknown (cost 0, warned once). */
  readonly price?: ModelPrice;
  /** What the model can do: calls that need what it lacks are not routed to it (absent: assumed able). */
  readonly capabilities?: ModelCapabilities;
  /** Output tokens expected per call, for the cost estimate (default: the router's `expectedOutputTokens`). */
  readonly expectedOutputTokens?: number;
}

/** Options of a {@link RouterCore}: the models, and the routing options every face shares. */
export interface RouterCoreOptions extends RoutingOptions {
  /** The models to route between, in order of preference for ties; ids must be unique. */
  readonly models: readonly CoreModelConfig[];
}

const price = modelPriceSchema;
/** What a value lacks to be a {@link Scorer} (empty when it is one); shared by the option check and the factory check. */
export function missingScorerParts(value: unknown): string[] {
  const s = (typeof value === "object" && value !== null ? value : {}) as Partial<Scorer>;
  return [
    Array.isArray(s.models) ? undefined : "models (array)",
    typeof s.abilityDim === "number" ? undefined : "abilityDim (number)",
    typeof s.predict === "function" ? undefined : "predict()",
    typeof s.itemParams === "function" ? undefined : "itemParams()",
    typeof s.ability === "function" ? undefined : "ability()",
  ].filter((x): x is string => x !== undefined);
}
const scorerLike = z.custom<Scorer | (() => Promise<Scorer>)>(
  (v) => typeof v === "function" || missingScorerParts(v).length === 0,
  {
    message:
      "must be a Scorer (models, abilityDim, predict, itemParams, ability) or a function returning a Promise of one",
  },
);
const encoderLike = z.custom<QueryEncoder | (() => Promise<QueryEncoder>)>(
  (v) =>
    typeof v === "function" ||
    (typeof v === "object" &&
      v !== null &&
      typeof (v as QueryEncoder).embed === "function" &&
      typeof (v as QueryEncoder).id === "string"),
  { message: "must be a QueryEncoder (id, dim, embed) or a function returning a Promise of one" },
);

/** A registered model's id (a key of `models`, or a core model's `id`). */
export const modelIdSchema = z.string().refine((k) => k.trim().length > 0, "a model key must not be empty or blank");

/** The zod fields of {@link RoutingOptions}, which each face's schema extends with its models and own settings. */
export const routingOptionsShape = {
  scorer: scorerLike.optional(),
  encoder: encoderLike.optional(),
  policy: policySchema.optional(),
  maxAttempts: z.number().int().min(1).max(20).optional(),
  expectedOutputTokens: z.number().finite().nonnegative().optional(),
  learnOutputTokens: z.union([z.boolean(), z.strictObject({ weight: z.number().finite().nonnegative() })]).optional(),
  routingText: z
    .strictObject({
      contextChars: z.number().int().nonnegative().optional(),
      maxQueryChars: z.number().int().positive().optional(),
    })
    .optional(),
  cacheSize: z.number().int().nonnegative().optional(),
  decisionLogSize: z.number().int().positive().optional(),
  feedbackSink: z
    .custom<FeedbackSink>((v) => typeof (v as FeedbackSink | undefined)?.append === "function", {
      message: "must have an append(events) method (e.g. an AbilityStore)",
    })
    .optional(),
  store: z
    .custom<RouterStore>(
      (v) =>
        ["append", "load", "snapshot", "close"].every(
          (k) => typeof (v as Record<string, unknown> | undefined)?.[k] === "function",
        ),
      {
        message:
          "must be an ability store with append, load, snapshot and close (MemoryStore, FileStore or RedisStore from irt-router/adapters)",
      },
    )
    .optional(),
  logger: z
    .custom<RouterLogger>((v) => typeof (v as RouterLogger | undefined)?.warn === "function", {
      message: "must have a warn(message) method",
    })
    .optional(),
  fallbackOn: functionSchema<(error: unknown) => boolean>("a function (error) => boolean").optional(),
  feedbackLimits: feedbackLimitsSchema.optional(),
  learner: z
    .custom<AbilityLearner>(
      (v) =>
        ["has", "addModel", "score", "observe"].every(
          (k) => typeof (v as Record<string, unknown> | undefined)?.[k] === "function",
        ),
      { message: "must be an online learner with has, addModel, score and observe methods (e.g. an OnlineLearner)" },
    )
    .optional(),
  holdSpend: z.boolean().optional(),
  cacheAware: z
    .union([
      z.boolean(),
      z.strictObject({
        lifetimeMs: z.number().finite().nonnegative().optional(),
        now: functionSchema<() => number>("a function () => number (the clock, in ms)").optional(),
      }),
    ])
    .optional(),
  escalation: z.union([z.boolean(), z.strictObject({ bar: z.enum(["stronger", "best"]).optional() })]).optional(),
  task: z.string().trim().min(1).max(200).optional(),
  attemptTimeout: z.number().int().positive().optional(),
  runs: runRoutingSchema.optional(),
  tracing: tracingOptionSchema.optional(),
  decisionSink: functionSchema<(record: DecisionRecord) => unknown>("a function (record) => void").optional(),
  shadow: z.strictObject({ serve: z.string().min(1) }).optional(),
};

/** The zod schema of {@link RoutingOptions} (no models). */
export const routingOptionsSchema = z.strictObject(routingOptionsShape);

const coreModel = z.strictObject({
  id: modelIdSchema,
  price: price.optional(),
  capabilities: z
    .strictObject({
      tools: z.boolean().optional(),
      structuredOutput: z.boolean().optional(),
      contextWindow: z.number().int().positive().optional(),
    })
    .optional(),
  expectedOutputTokens: z.number().finite().nonnegative().optional(),
});

/** Zod schema of {@link RouterCoreOptions}; unknown keys are errors so a typo is never ignored. */
export const routerCoreOptionsSchema = z.strictObject({
  models: z
    .array(coreModel)
    .min(1, { message: 'give at least one model: { models: [{ id: "gpt-4o" }] }' })
    .superRefine((models, ctx) => {
      const seen = new Set<string>();
      models.forEach((m, i) => {
        if (seen.has(m.id)) ctx.addIssue({ code: "custom", path: [i, "id"], message: `duplicate model id "${m.id}"` });
        seen.add(m.id);
      });
    }),
  ...routingOptionsShape,
});

/**
 * What the router needs of an online learner; `OnlineLearner` (src/learning) implements it.
 */
export interface AbilityLearner {
  has(modelId: string): boolean;
  /**
   * Adds a model; `start`, when given, is where the router's catalog places it (its catalog prior or family and
   * price-tier prior, with its uncertainty: `OnlineLearner.addModel` takes it as `{ ability, placement }`).
   */
  addModel(modelId: string, start?: ModelStart): unknown;
  score(
    item: { readonly alpha: ArrayLike<number>; readonly beta: number; readonly task?: string },
    modelIds: readonly string[],
  ): readonly { readonly model: string; readonly p: number; readonly score: number }[];
  observe(event: FeedbackEvent): unknown;
  /**
   * Whether the model was removed from the learner (and so cannot be added back under that id). The router leaves a
   * registered model the learner removed out of the candidates (reason "removed from the learner (removeModel)");
   * without this method it asks the learner to add every model it does not track.
   */
  isRemoved?(modelId: string): boolean;
  /** Throws what `observe` would throw for this event, changing nothing (checked before the event is journaled). */
  check?(event: FeedbackEvent): unknown;
  /** Serialisable state, snapshotted to the feedback sink when it reports a snapshot is due. */
  exportState?(): unknown;
}

/** The routing options as the core uses them, parsed (no models: each face passes its own as slot specs). */
export type ParsedRoutingOptions = z.output<typeof routingOptionsSchema>;
export type ParsedCoreOptions = z.output<typeof routerCoreOptionsSchema>;
