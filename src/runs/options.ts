/** Options of {@link RunRouter} and of its `route` and `escalate` calls, validated with zod. */
import { z } from "zod";
import { FeedbackError, ValidationError } from "../errors.js";
import type { ModelPrice } from "../data/types.js";
import { modelPriceSchema } from "../policy/price-schema.js";
import { hintName } from "./prior-fields.js";
import { runPriorSchema, type RunPrior } from "./run-prior.js";
import { tracingOptionSchema, type RouteTracingOptions } from "../tracing/route-span.js";
import { SpendPacer } from "./spend-pacer.js";

/** Tokens one agent run is assumed to spend when a model's run cost is not given (no cached input). */
export const DEFAULT_RUN_TOKENS = { input: 400_000, output: 40_000 } as const;

/**
 * Defaults of the run-level model, chosen on Terminal-Bench 2.0's training folds only (docs/agents.md, "Run-level
 * routing"); none of them names a model or a dataset.
 */
/** Default of {@link RunRouterOptions.maxOutcomes}. */
export const DEFAULT_MAX_OUTCOMES = 10_000;
/** Least {@link RunRouterOptions.maxOutcomes}: a fold keeps half, and fewer outcomes than this are no sample to fit. */
const MIN_OUTCOMES = 100;
/** Most {@link RunRouterOptions.maxOutcomes}: past it, bound nothing (a batch fit of every outcome). */
export const MAX_OUTCOMES = 1e7;

export const DEFAULT_RUN_PRIORS = {
  abilitySd: 1,
  difficultySd: 1.5,
  priceSlope: 0.5,
  tierStrength: 3,
  neighbours: 10,
  textWeight: 0.5,
  hintSd: 1,
} as const;

/** One model of a {@link RunRouter}: its list price (the run cost follows the token assumption) or its run cost. */
export interface RunModelConfig {
  readonly price?: ModelPrice;
  /** USD one run of this model costs (overrides `price` and the token assumption). */
  readonly runCost?: number;
}

/** Priors of the run-level model (logits). Defaults: {@link DEFAULT_RUN_PRIORS}. */
export interface RunPriors {
  /** Prior sd of a model's ability around its price-tier mean (1e-4 to 1e4, as every sd here). */
  readonly abilitySd?: number;
  /** Prior sd of a task's difficulty around its prior from the text. */
  readonly difficultySd?: number;
  /** Ability per e-fold of run cost before any outcome is seen (the price-tier prior of a new model; |slope| <= 1000). */
  readonly priceSlope?: number;
  /** How many models' worth of evidence the default price-tier level and slope count for (at most 1e6). */
  readonly tierStrength?: number;
  /** Similar past tasks the text prior of a new task's difficulty averages over. */
  readonly neighbours?: number;
  /** Weight in [0, 1] of the similar tasks against the mean of all past tasks (0: ignore the text). */
  readonly textWeight?: number;
  /**
   * Prior sd of a model's ability offset on the tasks of one hint (a task's category, {@link RunTask.hint}), around 0:
   * how far a model's standing on one kind of task may depart from its standing overall.
   */
  readonly hintSd?: number;
}

/** Options of {@link RunRouter}. */
export interface RunRouterOptions {
  /** The models, by id: a price or a run cost each. */
  readonly models: Readonly<Record<string, RunModelConfig>>;
  /** Tokens of one run for costs from prices (default {@link DEFAULT_RUN_TOKENS}). */
  readonly runTokens?: { readonly input: number; readonly output: number };
  /**
   * Success probability given up per reference-model run cost saved (default 0: the most likely model). The reference
   * is the model the router rates most able; 0.3 means a model that costs as much as the reference must be 0.3 more
   * likely to pass than a free one.
   */
  readonly costWeight?: number;
  /**
   * Exploration when learning online: each decision uses one draw of every ability from its posterior, with this
   * multiple of its posterior sd (0, the default: decide on the posterior means; 1: Thompson sampling).
   */
  readonly exploration?: number;
  /** Seed of the exploration draws (default 1). */
  readonly seed?: number;
  readonly priors?: RunPriors;
  /**
   * A trained run prior (`irt-router train --runs`, loaded with `loadRunPrior`, or another router's `toPrior()`): the
   * abilities of its models replace their price-tier prior, and its past tasks inform new tasks' difficulty. Models
   * it does not know keep the price-tier prior.
   */
  readonly prior?: RunPrior;
  /**
   * Most run outcomes the router keeps as they are (default {@link DEFAULT_MAX_OUTCOMES}, 100 to 1e7). Past it, the
   * outcomes of the tasks least recently fed back (half of them) are folded into its prior, as a restart from
   * `toPrior()` would fold them: their models' abilities and the tasks' difficulties and word vectors stay; the outcomes
   * go, so a folded task routed again starts from its own text's difficulty, not from its outcomes. Each decision after
   * a feedback refits what is kept, so this bounds its time and memory: of the past tasks that inform new tasks'
   * difficulty it keeps the most recent `maxOutcomes` (those of a prior it started from included).
   */
  readonly maxOutcomes?: number;
  /**
   * OpenTelemetry spans of its decisions and escalations (`irt_router.run`, `irt_router.escalation`,
   * `irt_router.run_attempt`), through `@opentelemetry/api` when installed and an SDK is registered: true (default),
   * false, or what may go in beyond the decision (`includeRunId`: the task id; `includeText`: the task text).
   * An `IrtRouter`'s run-level router takes the router's `tracing` unless `runs.tracing` is given.
   */
  readonly tracing?: boolean | RouteTracingOptions;
  /**
   * Where its one-time warnings go (a tracer that throws: the run goes on untraced); default `console.warn`. An
   * `IrtRouter`'s run-level router takes the router's `logger` unless `runs.logger` is given.
   */
  readonly logger?: { warn(message: string): void };
}

const nonNegative = z.number().finite().nonnegative();
/**
 * A prior sd (logits): bounded so that its square and inverse stay finite in the fit (an abilitySd of 1e308 or 1e-320
 * made every p NaN); sds past these bounds mean nothing on a logit scale.
 */
const priorSd = z.number().min(1e-4).max(1e4);

export const runRouterOptionsSchema = z.strictObject({
  // zod drops a record's "__proto__" key without a word (one model fewer): refused instead
  models: z
    .custom((m) => !(typeof m === "object" && m !== null && Object.hasOwn(m, "__proto__")), {
      message: '"__proto__" cannot name a model',
    })
    .pipe(
      z
        .record(
          z.string().min(1),
          z
            .strictObject({ price: modelPriceSchema.optional(), runCost: nonNegative.optional() })
            .refine((m) => m.price !== undefined || m.runCost !== undefined, {
              message: "needs a price or a runCost (USD per run)",
            }),
        )
        .refine((m) => Object.keys(m).length > 0, { message: "needs at least one model" }),
    ),
  runTokens: z.strictObject({ input: nonNegative, output: nonNegative }).optional(),
  costWeight: nonNegative.optional(),
  exploration: nonNegative.optional(),
  seed: z.number().int().optional(),
  prior: runPriorSchema.optional(),
  maxOutcomes: z.number().int().min(MIN_OUTCOMES).max(MAX_OUTCOMES).optional(),
  tracing: tracingOptionSchema.optional(),
  logger: z
    .custom<{ warn(message: string): void }>((v) => typeof (v as { warn?: unknown } | undefined)?.warn === "function", {
      message: "must have a warn(message) method",
    })
    .optional(),
  priors: z
    .strictObject({
      abilitySd: priorSd.optional(),
      difficultySd: priorSd.optional(),
      priceSlope: z.number().min(-1000).max(1000).optional(),
      tierStrength: nonNegative.max(1e6).optional(),
      neighbours: z.number().int().positive().optional(),
      textWeight: z.number().min(0).max(1).optional(),
      hintSd: priorSd.optional(),
    })
    .optional(),
});

/**
 * A task as the run-level router sees it: its text, optionally a stable id (default: the text) and a hint, the kind of
 * task (e.g. its category: "security", "data-science"). With hints, the router learns how each model does on each
 * kind of task (an ability offset per model and hint), beside its standing overall.
 */
export interface RunTask {
  readonly id?: string;
  readonly text: string;
  /** The task's category (at most 200 characters); tasks with the same hint share each model's offset. */
  readonly hint?: string;
}

// Built on their first parse (z.lazy), not at import: an IrtRouter imports them with its engine and parses with them
// only when run-level routing is used (issue 37: a fresh process's first routed call).
export const runTaskSchema = z.lazy(() =>
  z.union([
    z.string().min(1),
    z.strictObject({
      id: z.string().min(1).optional(),
      text: z.string().min(1),
      hint: z.string().trim().min(1).max(200).pipe(hintName).optional(),
    }),
  ]),
);

/** Options of one routing decision. */
export interface RouteRunOptions {
  /** Overrides the router's `costWeight` for this decision. */
  readonly costWeight?: number;
  /** Outcomes on this task not given as feedback (e.g. `learn: false` escalation): they move its difficulty. */
  readonly outcomes?: readonly { readonly modelId: string; readonly outcome: number }[];
  /** Models not to choose, whatever `allowRetry` says (e.g. already failed on this task, or unavailable for it). */
  readonly exclude?: readonly string[];
  /** Attempts the decision may plan for, this one included (default 1: a single choice). */
  readonly attemptsLeft?: number;
  /** USD still allowed for this task (default: no cap). */
  readonly budget?: number;
  /** Whether a model failed in `outcomes` may be chosen again (default false); `exclude` still holds. */
  readonly allowRetry?: boolean;
}

export const routeRunOptionsSchema = z.lazy(() =>
  z.strictObject({
    costWeight: nonNegative.optional(),
    outcomes: z.array(z.strictObject({ modelId: z.string().min(1), outcome: z.number().min(0).max(1) })).optional(),
    exclude: z.array(z.string()).optional(),
    attemptsLeft: z.number().int().positive().optional(),
    budget: nonNegative.optional(),
    allowRetry: z.boolean().optional(),
  }),
);

/** Options of {@link RunRouter.escalate}. */
export interface EscalateOptions {
  /** Most runs of the task (default 3). */
  readonly maxAttempts?: number;
  /** Most USD spent on the task, by the routers' cost estimate (default: no cap). An attempt that would pass it is not started. */
  readonly costCap?: number;
  /** Overrides the router's `costWeight`. */
  readonly costWeight?: number;
  /**
   * A spend target instead of a cost weight: the escalation uses the pacer's cost weight and records what it spent
   * (USD by the router's estimate) with it, so that the mean spend per task over many escalations tracks the pacer's
   * target (see {@link SpendPacer}). Not with `costWeight`.
   */
  readonly pacer?: SpendPacer;
  /** Whether a model that failed may run the task again (default false). */
  readonly allowRetry?: boolean;
  /**
   * Models never to run on this task (e.g. unavailable for it, or not allowed to see its data), with or without
   * `allowRetry`; an id that is not one of the router's models is an `UnknownModelError`.
   */
  readonly exclude?: readonly string[];
  /** Whether each attempt's outcome is fed back to the router (default true). */
  readonly learn?: boolean;
  /**
   * Cancels the escalation when it aborts (e.g. `AbortSignal.timeout(ms)` bounds it): the promise rejects with the
   * signal's `reason`, unwrapped (as `fetch` does), at once, even while a run or check is in flight; no further attempt
   * starts, the aborted attempt's outcome is not fed back (earlier ones are), and a `pacer` records the runs started
   * (nothing when none had). `run` and `check` get it as `{ signal }`, their third argument, to stop their own work.
   */
  readonly signal?: AbortSignal;
}

export const escalateOptionsSchema = z.lazy(() =>
  z
    .strictObject({
      maxAttempts: z.number().int().positive().optional(),
      costCap: nonNegative.optional(),
      costWeight: nonNegative.optional(),
      pacer: z.instanceof(SpendPacer, { message: "must be a SpendPacer (new SpendPacer({ target }))" }).optional(),
      allowRetry: z.boolean().optional(),
      exclude: z.array(z.string()).optional(),
      learn: z.boolean().optional(),
      signal: z
        .instanceof(AbortSignal, {
          message: "must be an AbortSignal (new AbortController().signal, AbortSignal.timeout(ms))",
        })
        .optional(),
    })
    .refine((o) => o.costWeight === undefined || o.pacer === undefined, {
      message: "give costWeight or pacer, not both: the pacer sets the cost weight",
      path: ["pacer"],
    }),
);

/** Run-level settings of an `IrtRouter` (its `runs` option): those of {@link RunRouterOptions} but the models. */
export type RunRoutingOptions = Omit<RunRouterOptions, "models">;

export const runRoutingSchema = runRouterOptionsSchema.omit({ models: true });

/**
 * A run's outcome (true/false or a rate in [0, 1]) as a number; anything else is a `FeedbackError` at `path`, whose
 * message starts with `subject` (what gave it: "outcome must be", "check must return").
 */
export function outcomeValue(value: boolean | number, path: string, subject: string): number {
  const y = typeof value === "boolean" ? Number(value) : value;
  if (!Number.isFinite(y) || y < 0 || y > 1) {
    throw new FeedbackError(`${subject} true, false or a number in [0, 1], got ${String(value)}`, { path });
  }
  return y;
}

/** A run outcome fed back (true/false or a rate in [0, 1]) as a number, and its weight checked: a `FeedbackError`. */
export function checkedOutcome(outcome: boolean | number, weight: number): number {
  const y = outcomeValue(outcome, "outcome", "outcome must be");
  if (!Number.isFinite(weight) || weight <= 0) {
    throw new FeedbackError(`weight must be a positive number, got ${weight}`, { path: "weight" });
  }
  return y;
}

/**
 * Each model of validated router options with the USD of one run: its `runCost`, or its price times `runTokens`
 * (default {@link DEFAULT_RUN_TOKENS}); a run cost that overflows is a `ValidationError` naming the model's price.
 */
export function runCostsOf(parsed: z.output<typeof runRouterOptionsSchema>): { id: string; runCost: number }[] {
  const tokens = parsed.runTokens ?? DEFAULT_RUN_TOKENS;
  return Object.entries(parsed.models).map(([id, m]) => {
    const runCost = m.runCost ?? (tokens.input * m.price!.inputPer1M + tokens.output * m.price!.outputPer1M) / 1e6;
    if (!Number.isFinite(runCost)) {
      throw new ValidationError(
        `Invalid options: the run cost of model "${id}" (its price times runTokens) is not a finite number of USD.`,
        { path: `options.models.${id}.price` },
      );
    }
    return { id, runCost };
  });
}
