/**
 * The run-level router: chooses one model for a whole agent run from the task text, learns from run outcomes, and
 * escalates after a failed run (see {@link RunRouter}). Framework-neutral: no LangChain here.
 */
import { UnknownModelError, ValidationError } from "../errors.js";
import { seededRng, type Rng } from "../util/random.js";
import { parseWith } from "../util/validate.js";
import { fitRuns, pricePositions, referenceCost, withHint, type FitResult, type RunObservation } from "./fit.js";
import type { RunPrior } from "./run-prior.js";
import { priorFrom } from "./to-prior.js";
import { foldLeastRecent, learnedFrom, pastTasksOf, type Learned } from "./fold.js";
import { drawnAbilities, moments, predictive, successCurve, updated } from "./grid.js";
import { best, type PlanCandidate } from "./plan.js";
import { textVector, type TextVector } from "./text-prior.js";
import { DifficultyPriorCache } from "./difficulty-cache.js";
import {
  checkedOutcome,
  DEFAULT_MAX_OUTCOMES,
  DEFAULT_RUN_PRIORS,
  runCostsOf,
  routeRunOptionsSchema,
  runRouterOptionsSchema,
  type EscalateOptions,
  type RouteRunOptions,
  type RunRouterOptions,
  type RunTask,
} from "./options.js";
import { escalateTask, type EscalationResult, type RunCheck, type RunFunction } from "./escalate.js";
import { RunTracer } from "../tracing/run-span.js";
import type { RunOutcomeLog, SharedRunOutcome } from "./run-outcome-log.js";
import { PENDING_PER_KEPT, RunOutcomeSharing, type RunSyncResult, type SyncedRouter } from "./run-sync.js";
import { taskKey, taskOf } from "./task.js";
import type { RunDecision } from "./run-decision.js";

export type { RunCandidate, RunDecision } from "./run-decision.js";
import { decisionReason } from "./run-decision.js";

interface ModelEntry {
  readonly id: string;
  readonly runCost: number;
}

/**
 * Routes whole agent runs: one model per run, chosen from the task text, each model's price and what the router
 * learned from run outcomes. Its model is p(model m passes task t) = sigmoid(a_m - b_t): one ability per model (prior
 * from its price tier, so a new model starts where models of its price stand) and one difficulty per task, shared by
 * all models, whose prior comes from similar past tasks. A failed run raises the task's difficulty for every model,
 * which is what {@link RunRouter.escalate} uses to pick the next model.
 *
 * @example
 * ```ts
 * import { RunRouter } from "irt-router/runs";
 *
 * const router = new RunRouter({
 *   models: {
 *     "big-model": { price: { inputPer1M: 5, outputPer1M: 25 } },
 *     "small-model": { price: { inputPer1M: 0.5, outputPer1M: 3 } },
 *   },
 *   costWeight: 0.3,
 * });
 * const decision = router.route({ id: "fix-git", text: "Recover the lost commit in this repository." });
 * console.log(decision.chosen, decision.reason);
 * router.feedback({ id: "fix-git", text: "..." }, decision.chosen, true);
 * ```
 */
export class RunRouter {
  private readonly models: ModelEntry[];
  private readonly logCost: Map<string, number>;
  private readonly costWeight: number;
  private readonly exploration: number;
  private readonly rng: Rng;
  private readonly priors: Required<NonNullable<RunRouterOptions["priors"]>>;
  private observations: RunObservation[] = [];
  private fedBack = 0;
  private readonly maxOutcomes: number;
  private readonly vectors = new Map<string, TextVector>();
  /** The hint of each task fed back with one. */
  private readonly hints = new Map<string, string>();
  private fitted?: FitResult;
  private dirty = true;
  /** The prior it started from, and its older outcomes folded into it (see `foldLeastRecent` in fold.ts). */
  private learned?: Learned;
  /** Difficulty priors of the tasks routed since the last fit (see difficulty-cache.ts). */
  private readonly difficultyPriors = new DifficultyPriorCache();
  private readonly tracer?: RunTracer;
  private sharing?: RunOutcomeSharing;
  /** Tasks of the escalations running, and how many: a fold leaves their outcomes (the next attempt needs them). */
  private readonly inPlay = new Map<string, number>();

  constructor(options: RunRouterOptions) {
    const parsed = parseWith(runRouterOptionsSchema, options, "options");
    this.models = runCostsOf(parsed);
    const positions = pricePositions(this.models.map((m) => m.runCost));
    this.logCost = new Map(this.models.map((m, k) => [m.id, positions[k]!]));
    this.costWeight = parsed.costWeight ?? 0;
    this.exploration = parsed.exploration ?? 0;
    this.rng = seededRng(parsed.seed ?? 1);
    this.priors = { ...DEFAULT_RUN_PRIORS, ...parsed.priors };
    const tracing = parsed.tracing ?? true;
    if (tracing !== false) this.tracer = new RunTracer(tracing === true ? {} : tracing, parsed.logger);
    this.maxOutcomes = parsed.maxOutcomes ?? DEFAULT_MAX_OUTCOMES;
    if (parsed.prior) this.learned = learnedFrom(parsed.prior as RunPrior, this.modelIds, this.maxOutcomes);
    if (parsed.prior?.shared || parsed.prior?.sync) this.sharing = new RunOutcomeSharing(parsed.prior); // resumes
  }

  /** The model ids, in the order given. */
  get modelIds(): string[] {
    return this.models.map((m) => m.id);
  }

  /** USD of one run of a model. */
  runCost(modelId: string): number {
    return this.entry(modelId).runCost;
  }

  /** Run outcomes fed back so far. */
  get feedbackCount(): number {
    return this.fedBack;
  }

  /**
   * Choose the model for a run of `task` (or, with `attemptsLeft` > 1, the first model of the best escalation plan).
   * Outcomes already fed back for this task (same id) and `options.outcomes` move its difficulty; the models in
   * `options.exclude` are never chosen, those failed in `options.outcomes` only with `allowRetry`; an id in either that
   * is not one of the router's models is an `UnknownModelError`.
   *
   * @example
   * ```ts
   * import { RunRouter } from "irt-router/runs";
   *
   * const router = new RunRouter({ models: { big: { runCost: 2 }, small: { runCost: 0.2 } } });
   * const d = router.route("Make the failing test in tests/test_io.py pass.", { costWeight: 0.2 });
   * console.log(d.chosen, d.candidates[0]);
   * ```
   */
  route(task: RunTask | string, options: RouteRunOptions = {}): RunDecision {
    const t = taskOf(task);
    const decision = this.decide(t, options);
    this.tracer?.decision(t, decision);
    return decision;
  }

  /** {@link RunRouter.route} without its span (an escalation's decisions are traced as its attempts). */
  private decide(t: { id: string; text: string; hint?: string }, options: RouteRunOptions): RunDecision {
    const o = parseWith(routeRunOptionsSchema, options, "options");
    for (const out of o.outcomes ?? []) this.entry(out.modelId);
    // a misspelt id excluded nothing, and the model meant was chosen
    (o.exclude ?? []).forEach((id, k) => this.entry(id, `options.exclude.${k}`));
    const fit = this.fit();
    const explore = this.exploration; // the posterior, or one draw of it when exploring
    const abilities = explore === 0 ? fit.abilities : drawnAbilities(fit.abilities, explore, this.rng);
    const ref = referenceCost(this.models, fit);
    const key = taskKey(t);
    const hint = t.hint ?? this.hints.get(key);
    const sources = { fit, pastTasks: this.learned?.tasks ?? [], vectors: this.vectors, priors: this.priors };
    let weights = this.difficultyPriors.weights(key, t.text, sources);
    const curves = new Map(
      this.models.map((m) => [m.id, successCurve(withHint(abilities.get(m.id)!, fit, m.id, hint))]),
    );
    const history = [
      ...this.observations.filter((x) => x.task === key).map((x) => ({ modelId: x.model, outcome: x.outcome })),
      ...(o.outcomes ?? []),
    ];
    for (const h of history) weights = updated(weights, curves.get(h.modelId)!, h.outcome);
    const allowRetry = o.allowRetry ?? false;
    // Excluded: the models failed in `outcomes` (this escalation's) and `exclude`; outcomes fed back earlier on the task
    // move its difficulty only.
    // `exclude` bars a model whatever `allowRetry` says; one failed in `outcomes` runs again only with `allowRetry`
    const barred = new Set(o.exclude ?? []);
    const failed = (o.outcomes ?? []).filter((h) => h.outcome < 0.5).map((h) => h.modelId);
    const tried = new Set([...failed, ...barred]);
    const costWeight = o.costWeight ?? this.costWeight;
    const attemptsLeft = o.attemptsLeft ?? 1;
    const budget = o.budget === undefined ? Infinity : o.budget / ref;
    const open = this.models.filter((m) => !barred.has(m.id));
    const candidates: PlanCandidate[] = open.map((m) => ({
      id: m.id,
      cost: m.runCost / ref,
      curve: curves.get(m.id)!,
    }));
    const pick = best(candidates, { weights, attemptsLeft, budget, tried, allowRetry, costWeight });
    const rows = open
      .filter((m) => allowRetry || !tried.has(m.id))
      .map((m) => ({
        modelId: m.id,
        p: predictive(weights, curves.get(m.id)!),
        expectedCost: m.runCost,
        costRatio: m.runCost / ref,
      }))
      .sort((a, b) => b.p - a.p);
    const chosen = pick?.id ?? rows.slice().sort((a, b) => a.expectedCost - b.expectedCost)[0]?.modelId;
    if (chosen === undefined) {
      throw new ValidationError(
        "Every model is excluded from this run (by options.exclude, or failed in options.outcomes without allowRetry).",
        { path: "options.exclude" },
      );
    }
    const row = rows.find((r) => r.modelId === chosen)!;
    return {
      chosen,
      policy: `run(costWeight=${costWeight}, attemptsLeft=${attemptsLeft}${o.budget !== undefined ? `, budget=${o.budget}` : ""})`,
      reason: decisionReason(row, pick !== undefined, { attemptsLeft, costWeight, outcomes: history.length }),
      candidates: rows,
      difficulty: moments(weights),
      excluded: [...(allowRetry ? barred : tried)],
      value: pick?.value ?? -Infinity,
    };
  }

  /**
   * Record the outcome of a run: `outcome` true/false or a success rate in [0, 1]. The model's ability and the task's
   * difficulty (so, for a new similar task, its prior) are refitted on the next decision.
   *
   * @example
   * ```ts
   * import { RunRouter } from "irt-router/runs";
   *
   * const router = new RunRouter({ models: { "big-model": { runCost: 2 }, "small-model": { runCost: 0.2 } } });
   * const text = "Recover the lost commit in this repository.";
   * router.feedback({ id: "fix-git", text }, "small-model", false);
   * ```
   */
  feedback(task: RunTask | string, modelId: string, outcome: boolean | number, weight = 1): void {
    const t = taskOf(task);
    this.entry(modelId);
    const y = checkedOutcome(outcome, weight);
    this.record({ task: taskKey(t), model: modelId, outcome: y, weight, hint: t.hint }, () => textVector(t.text));
    this.foldIfOver();
  }

  /**
   * Share run outcomes with the other replicas of a service through `log`: append this router's outcomes not yet in
   * it, then learn the others' appended since its last read, each counted once; bad records are skipped and counted
   * (`skipped`, `skips`). Shared: the task's id (a fingerprint of a text without one), hint, hashed word vector. A
   * failed append or read rejects with a `StoreError`; what was not appended stays pending. A router started from a
   * prior's checkpoint (`toPrior`) resumes from there; from a prior marked `shared` without one, it refuses (that
   * prior holds outcomes of the log, which would count twice). docs/agents.md, "Replicas that learn together".
   *
   * @example
   * ```ts
   * import { RunRouter } from "irt-router/runs";
   * import { MemoryRunOutcomeLog } from "irt-router/adapters";
   *
   * const log = new MemoryRunOutcomeLog(); // FileRunOutcomeLog or RedisRunOutcomeLog across processes
   * const models = { big: { runCost: 2 }, small: { runCost: 0.2 } };
   * const a = new RunRouter({ models });
   * const b = new RunRouter({ models });
   * a.feedback({ id: "fix-git", text: "Recover the lost commit." }, "small", false);
   * await a.sync(log);
   * const { pulled } = await b.sync(log); // 1: b has learnt a's outcome
   * ```
   */
  sync(log: RunOutcomeLog): Promise<RunSyncResult> {
    return (this.sharing ??= new RunOutcomeSharing()).sync(log, this.synced());
  }

  /** What sharing reads of this router (its observations as they are when read: a fold replaces the array). */
  private synced(): SyncedRouter {
    const { modelIds, vectors } = this;
    const add = (o: SharedRunOutcome) => this.record(o, () => new Map(o.vector));
    return {
      models: new Set(modelIds),
      observations: () => this.observations,
      vectorOf: (t) => vectors.get(t)!,
      add,
      settle: () => this.foldIfOver(),
      maxPending: PENDING_PER_KEPT * this.maxOutcomes,
    };
  }

  /** Adds an observation (a task's first gives its vector; a hint given is the task's from now on) and returns it. */
  private record(o: RunObservation & { readonly weight: number }, vector: () => TextVector): RunObservation {
    if (!this.vectors.has(o.task)) this.vectors.set(o.task, vector());
    const hint = o.hint ?? this.hints.get(o.task);
    if (o.hint !== undefined) this.hints.set(o.task, o.hint);
    const { task, model, outcome, weight } = o;
    const observation = { task, model, outcome, weight, ...(hint !== undefined && { hint }) };
    this.observations.push(observation);
    this.fedBack += 1;
    this.dirty = true;
    return observation;
  }

  /**
   * Run `task` with the model the router picks; when `check` says the run failed, run it again from scratch with the
   * model the router picks next knowing what failed, until a run passes, `maxAttempts` runs, or the next run would pass
   * `costCap` (USD) or is not worth its cost. Every attempt's outcome is fed back (unless `learn: false`).
   * An error thrown by `run` or `check` ends the escalation with that error (after the outcomes so far are fed back; a
   * `pacer` records the cost of the runs started, the one that threw included). Bad arguments reject the promise
   * (a `ValidationError` naming the field); nothing throws synchronously. To bound or cancel it, give `signal` (e.g.
   * `AbortSignal.timeout(ms)`): on abort it rejects at once with `signal.reason` itself (as `fetch` does), even while
   * a run that never settles is in flight; pass `run`'s third argument `{ signal }` on to your agent to stop it too.
   *
   * @example
   * ```ts
   * import { RunRouter } from "irt-router/runs";
   *
   * // Your agent run with a model, and the check whether it passed (e.g. the task's tests).
   * declare function runAgent(modelId: string, task: string, signal?: AbortSignal): Promise<string>;
   * declare function runTests(output: string): Promise<{ passed: boolean }>;
   *
   * const router = new RunRouter({ models: { big: { runCost: 2 }, small: { runCost: 0.2 } } });
   * const text = "Recover the lost commit in this repository.";
   * const result = await router.escalate(
   *   { id: "fix-git", text },
   *   (modelId, _attempt, { signal }) => runAgent(modelId, text, signal),
   *   async (out) => (await runTests(out)).passed,
   *   { maxAttempts: 3, costCap: 5, signal: AbortSignal.timeout(30 * 60_000) }, // at most 30 minutes in all
   * );
   * console.log(result.passed, result.attempts.map((a) => a.modelId), result.cost);
   * ```
   */
  async escalate<R>(
    task: RunTask | string,
    run: RunFunction<R>,
    check: RunCheck<R>,
    options: EscalateOptions = {},
  ): Promise<EscalationResult<R>> {
    const untraced = {
      modelIds: this.modelIds,
      route: (t: RunTask | string, o?: RouteRunOptions) => this.decide(taskOf(t), o ?? {}),
      runCost: (id: string) => this.runCost(id),
      feedback: (t: RunTask | string, id: string, y: number) => this.feedback(t, id, y),
    };
    const t = taskOf(task);
    const key = taskKey(t);
    this.inPlay.set(key, (this.inPlay.get(key) ?? 0) + 1); // no fold takes its outcomes while it runs
    try {
      return await escalateTask(untraced, t, run, check, options, this.tracer);
    } finally {
      const n = this.inPlay.get(key)! - 1;
      if (n > 0) this.inPlay.set(key, n);
      else this.inPlay.delete(key);
    }
  }

  /**
   * What this router has learned, as a run prior to start another router from (`new RunRouter({ models, prior })`):
   * abilities, hint offsets, and each task's difficulty and hashed word vector (no text, id or outcome: those of the
   * checkpoint's pending outcomes aside, as a log holds them). The tasks of
   * the prior it started from are carried over, and its models this router lacks, as they were. Only models with an
   * outcome (here or in that prior) have an ability in it: the others start from the price-tier prior again. It
   * carries the router's sync checkpoint (`sync`, see `RunSyncCheckpoint`): a router started from the prior
   * resumes sharing run outcomes from there, each counted once, instead of reading the whole log again.
   *
   * @example
   * ```ts
   * import { RunRouter } from "irt-router/runs";
   * import { MemoryRunOutcomeLog } from "irt-router/adapters";
   *
   * const models = { big: { runCost: 2 }, small: { runCost: 0.2 } };
   * const log = new MemoryRunOutcomeLog(); // a FileRunOutcomeLog or RedisRunOutcomeLog outlives the process
   * const before = new RunRouter({ models });
   * before.feedback({ id: "fix-git", text: "Recover the lost commit." }, "small", false);
   * await before.sync(log);
   * const prior = before.toPrior({ dataset: "my-agent-runs" }); // saveRunPrior(dir, prior) at shutdown
   * const after = new RunRouter({ models, prior }); // after the restart (loadRunPrior(dir))
   * await after.sync(log); // reads on from where `before` stopped: each outcome counted once
   * ```
   */
  toPrior(source?: Record<string, string | number>): RunPrior {
    const measured = new Set(this.observations.map((o) => o.model));
    const { models, vectors, hints } = this;
    const fit = this.fit(); // folds first: the checkpoint numbers the outcomes the prior holds after that
    const { shared, sync } = (this.sharing ??= new RunOutcomeSharing()).saved(this.synced());
    const state = { fit, models, measured, vectors, hints, shared, ...(sync && { sync }) };
    const trained = this.learned?.trained.abilities;
    return priorFrom(
      { ...state, ...(trained && { trained }), earlierTasks: pastTasksOf(this.learned), others: this.learned?.others },
      source,
    );
  }

  /**
   * Past `maxOutcomes`, folds older outcomes into the prior, keeping half (see `foldLeastRecent` in fold.ts): after a
   * feedback, a page a sync pulled, or before a fit; never while a sync adds the others' outcomes one by one (a fold
   * then took the ones not yet marked as pulled for its own).
   */
  private foldIfOver(): void {
    if (this.observations.length <= this.maxOutcomes) return;
    this.sharing?.queueOwn(this.synced()); // its own outcomes not queued for a log yet go before they are folded
    const { observations, logCost, models, priors, learned, vectors, hints, maxOutcomes } = this;
    const input = { observations, logCost, models, priors, vectors, hints, ...(learned && { learned }) };
    const pinned = new Set(this.inPlay.keys());
    const { prior, folded } = foldLeastRecent({ ...input, keep: Math.floor(maxOutcomes / 2), pinned });
    this.learned = learnedFrom(prior, this.modelIds, maxOutcomes);
    this.observations = observations.filter((o) => !folded.has(o.task));
    for (const task of folded) vectors.delete(task);
    // a folded task's hint stays its own (routed again without one), the oldest first dropped past 2 x maxOutcomes
    for (const k of hints.keys()) if (hints.size > 2 * maxOutcomes) hints.delete(k);
    this.fitted = undefined;
    this.dirty = true;
  }

  // ------------------------------------------------------------------ internals

  private entry(modelId: string, path = "modelId"): ModelEntry {
    const m = this.models.find((x) => x.id === modelId);
    if (!m) throw new UnknownModelError(modelId, this.modelIds.slice(0, 5), { path });
    return m;
  }

  private fit(): FitResult {
    this.foldIfOver();
    if (this.dirty || !this.fitted) {
      const p = this.priors;
      this.fitted = fitRuns({
        observations: this.observations,
        logCost: this.logCost,
        priors: p,
        start: this.fitted,
        iterations: this.fitted ? 15 : 40,
        ...(this.learned && { trained: this.learned.trained }),
      });
      this.dirty = false;
    }
    return this.fitted;
  }
}
