/**
 * Run-level credit assignment: turn one agent run's outcome into per-step feedback events.
 *
 * An agent run makes several routed decisions (one per model call); the user usually only knows
 * whether the whole run succeeded. Modes:
 * - "every": every step gets the run outcome with weight 1;
 * - "last": only the final step gets it (the one that produced the answer);
 * - "discounted": step k of n gets weight discount^(n-1-k) (last step 1, earlier ones less);
 * - "posterior" (default): each step's share of the run's likelihood, from the steps' predicted p (see
 *   {@link posteriorCredit}).
 * A step whose tool call errored can count as a failure of that step on its own (y = 0, weight 1),
 * whatever the run outcome (`toolErrorsAsFailures`, default true).
 *
 * Event ids are `${runId}:${decisionId}` ({@link stepEventId}), so attributing the same run twice yields the same ids
 * and the learner (or store) applies them once. `router.feedback()` gives a run's steps the same ids.
 */
import { z } from "zod";
import { ValidationError } from "../errors.js";
import { parseWith } from "../util/validate.js";
import type { FeedbackEvent } from "./events.js";

// The schemas are built on their first parse (z.lazy), not at import: a router imports this module but parses with
// them only on feedback, and a fresh process's first routed call should not build them (issue 37).
const finite = () => z.number().refine(Number.isFinite, "must be a finite number");

const stepSchema = z.lazy(() =>
  z
    .object({
      decisionId: z.string().min(1),
      model: z.string().min(1),
      /** alpha_q of the step's query: a plain array or a typed array (as `scorer.itemParams` returns); events get a plain copy. */
      alpha: z
        .union([
          z.custom<readonly number[]>((a) => Array.isArray(a), "expected an array"),
          // typed as any Float32Array / Float64Array (ItemParams.alpha's type), not only one over a plain ArrayBuffer
          z.custom<Float32Array | Float64Array>(
            (a) => a instanceof Float32Array || a instanceof Float64Array,
            "expected a Float32Array or Float64Array",
          ),
        ])
        .transform((a): number[] => Array.from(a))
        .pipe(z.array(finite()).min(1)),
      beta: finite(),
      /** The step's tool call failed. */
      toolError: z.boolean().optional(),
      /** The answering model's predicted p(correct) for the step, in (0, 1): needed by mode "posterior". */
      p: finite().pipe(z.number().gt(0).lt(1)).optional(),
      at: finite().optional(),
    })
    .strict(),
);

const runSchema = z.lazy(() =>
  z
    .object({
      runId: z.string().min(1),
      /** Run outcome in [0, 1] (1 = success). */
      outcome: finite().pipe(z.number().min(0).max(1)),
      steps: z.array(stepSchema),
      at: finite().optional(),
    })
    .strict(),
);

/** The per-step discount of mode "discounted" when none is given (here and in `router.feedback`). */
export const DEFAULT_ATTRIBUTION_DISCOUNT = 0.7;

/**
 * How a run's outcome is spread over its steps: the one schema of run attribution, used by {@link attributeRun} and by
 * `router.feedback(runId, ...)` alike. Each option left out takes its default, {@link DEFAULT_ATTRIBUTION}.
 */
export const attributionSchema = z.lazy(() =>
  z.strictObject({
    /**
     * "every" step with weight 1, the "last" step only, "discounted": step k of n gets discount^(n-1-k), or
     * "posterior" (default): a success credits every step, a failure blames each step by its chance of being the one
     * that failed, from the p predicted for it (see {@link posteriorCredit}; each step needs its `p`). "posterior" is the
     * default because it learned best on the agent benchmark's val runs and is the only mode under which a router that
     * already knows its models does not drift (docs/agents.md, "Run attribution": after 1,000 runs 0.460 against
     * 0.255-0.375 for the others on RouterBench's known-models scenario).
     */
    mode: z.enum(["every", "last", "discounted", "posterior"]).default("posterior"),
    /** Per-step discount of mode "discounted", in (0, 1] (default {@link DEFAULT_ATTRIBUTION_DISCOUNT}, 0.7). */
    discount: finite()
      .refine((d) => d > 0 && d <= 1, "discount must be a number in (0, 1]")
      .default(DEFAULT_ATTRIBUTION_DISCOUNT),
    /** A step whose tool call returned an error counts as a failure of that step (y = 0, weight 1). Default true. */
    toolErrorsAsFailures: z.boolean().default(true),
  }),
);

/** A run's attribution with every option set. */
export type Attribution = z.output<typeof attributionSchema>;

/** The attribution used when none is given: "posterior", tool errors as step failures. */
export const DEFAULT_ATTRIBUTION: Attribution = {
  mode: "posterior",
  discount: DEFAULT_ATTRIBUTION_DISCOUNT,
  toolErrorsAsFailures: true,
};

export type RunOutcome = z.input<typeof runSchema>;
export type RunStep = z.input<typeof stepSchema>;
export type AttributionOptions = z.input<typeof attributionSchema>;

/**
 * The id of the feedback event of one step of a run: `${runId}:${decisionId}`.
 *
 * @example
 * ```ts
 * stepEventId("run-7", "6f0e"); // "run-7:6f0e"
 * ```
 */
export function stepEventId(runId: string, decisionId: string): string {
  return `${runId}:${decisionId}`;
}

/**
 * Feedback events for every step of a run, in step order.
 *
 * @example
 * ```ts
 * const events = attributeRun(
 *   { runId: "r1", outcome: 1, steps: [{ decisionId: "d1", model: "a", alpha, beta }, { decisionId: "d2", model: "b", alpha, beta }] },
 *   { mode: "discounted", discount: 0.5 },
 * ); // d1 weight 0.5, d2 weight 1, both y = 1
 * for (const e of events) learner.observe(e);
 * ```
 */
export function attributeRun(run: RunOutcome, options: AttributionOptions = {}): FeedbackEvent[] {
  const r = parseWith(runSchema, run, "run");
  const o = parseWith(attributionSchema, options, "attribution");
  const n = r.steps.length;
  const at = r.at ?? Date.now();
  const failed = r.steps.map((step) => step.toolError === true && o.toolErrorsAsFailures);
  const credit = o.mode === "posterior" ? posteriorCredit(r, failed) : undefined;
  const out: FeedbackEvent[] = [];
  r.steps.forEach((step, k) => {
    const base = {
      id: stepEventId(r.runId, step.decisionId),
      model: step.model,
      alpha: step.alpha,
      beta: step.beta,
      decisionId: step.decisionId,
      runId: r.runId,
      at: step.at ?? at,
    };
    if (failed[k]) {
      out.push({ ...base, y: 0, weight: 1 });
      return;
    }
    if (credit) {
      const { y, weight } = credit[k]!;
      if (weight > 0) out.push({ ...base, y, weight });
      return;
    }
    const weight = o.mode === "every" ? 1 : o.mode === "last" ? (k === n - 1 ? 1 : 0) : Math.pow(o.discount, n - 1 - k);
    if (weight > 0) out.push({ ...base, y: r.outcome, weight });
  });
  return out;
}

/**
 * Mode "posterior": the credit of each step that did not fail visibly, from the run's outcome and the steps'
 * predicted p. A run succeeds when every such step was right, so a success is a success of each step (y = 1,
 * weight 1: the run's likelihood is the product of the steps'). A failure is spread by how likely each step is to be
 * the one that failed: step i gets y = 0 with weight r_i = (1 - p_i) prod_{j != i} p_j / (1 - prod_j p_j), the
 * probability that it alone was wrong given that the run failed. That weight makes the step's update match the
 * run likelihood's own gradient and Fisher information in the step's logit, so a failed run of steps the router
 * expected to be right moves each of them little, and a step that was a long shot takes most of the blame. An outcome
 * y strictly between 0 and 1 mixes the two: weight y + (1 - y) r_i with label y / weight. Steps that failed
 * visibly (tool errors) are failures of their own and are left out of the product (the agent recovered from them).
 */
export function posteriorCredit(
  run: z.output<typeof runSchema>,
  failed: readonly boolean[],
): { y: number; weight: number }[] {
  const logP = run.steps.map((step, k) => {
    if (failed[k]) return 0;
    if (step.p === undefined) {
      throw new ValidationError(
        `run.steps.${k}.p is required by attribution mode "posterior": give each step the answering model's predicted p(correct), in (0, 1).`,
        { path: `run.steps.${k}.p` },
      );
    }
    return Math.log(step.p);
  });
  const total = logP.reduce((a, b) => a + b, 0);
  // 1 - prod p, accurately when the product is close to 1.
  const runFails = -Math.expm1(total);
  const y = run.outcome;
  return run.steps.map((step, k) => {
    if (failed[k]) return { y: 0, weight: 0 };
    const soleFailure = (1 - step.p!) * Math.exp(total - logP[k]!);
    const blame = runFails > 0 ? Math.min(1, soleFailure / runFails) : 1;
    const weight = y + (1 - y) * blame;
    return { y: weight > 0 ? y / weight : 0, weight };
  });
}
