/**
 * The run-level replay (../shared/BENCHMARK.md, "Agent runs with real outcomes"): the run-level router of
 * `src/runs` (through its public API only: `new RunRouter`, `route`, `feedback`, `escalate`) against the references,
 * cross-fitted on known models and new tasks, and online on a stream with outcomes drawn from the rates.
 * Replay models answer from the labels: a run's outcome is the item's success rate for that model (cross-fit,
 * in expectation) or a draw from it (online).
 */
import { z } from "zod";
import { parseWith } from "../../util/validate.js";
import { RunRouter } from "../run-router.js";
import { DEFAULT_SPEND_PACER, SpendPacer } from "../spend-pacer.js";
import type { RouteRunOptions, RunRouterOptions } from "../options.js";
import { bootstrapMeanCi, bootstrapPlan } from "../../stats/bootstrap.js";
import { bestFixed, referenceCost } from "./references.js";
import {
  anonymousNames,
  assertEveryTaskLabelled,
  assertHints,
  coverageOf,
  foldOf,
  modelsConfig,
  observedRate,
  taskAt,
  observedOnly,
  type Coverage,
  type RunTable,
} from "./protocol.js";
import { DEFAULT_ONLINE_EXPLORATION, onlineStream, type OnlinePoint } from "./online.js";
import { ReferencePairing, type PairedSums } from "./reference-pairing.js";

/** A success rate and a mean cost as a ratio to the reference model's. */
export interface ReplayPoint {
  readonly success: number;
  readonly costRatio: number;
}

/** A cross-fitted point with 95% paired-bootstrap intervals over items. */
export interface CrossFitPoint extends ReplayPoint {
  /** Interval of the success. */
  readonly successCi: [number, number];
  /** Interval of the success minus the best fixed model's (on the same items and folds). */
  readonly vsBestFixedCi: [number, number];
}

export interface ReplayResult {
  readonly dataset: string;
  readonly runs: number;
  readonly models: number;
  readonly costAssumption: string;
  /**
   * The labels' coverage: a (task, model) pair without one is an unobserved run, never scored; every policy routes
   * among the models observed on a task (../shared/data/PITFALLS.md), and a reference is scored on the tasks it has.
   */
  readonly coverage: Coverage;
  readonly crossFit: {
    readonly seeds: number;
    readonly folds: number;
    readonly bestFixed: CrossFitPoint;
    /** The cost-weight curve, then the capped choices (`cap`: the most able model whose run cost is under it). */
    readonly single: readonly (CrossFitPoint & { readonly costWeight: number; readonly cap?: number })[];
    readonly escalation: readonly (CrossFitPoint & {
      readonly costWeight: number;
      readonly cap: number | null;
      readonly spendTarget?: number;
      readonly attempts: number;
    })[];
  };
  readonly online: {
    readonly seeds: number;
    readonly anonymous: {
      readonly router: OnlinePoint;
      readonly thompson: OnlinePoint;
      readonly bestFixedHindsight: OnlinePoint;
      readonly oracle: OnlinePoint;
    };
    readonly named: { readonly router: OnlinePoint };
  };
}

/** One escalation setting: the cost weight and the cap on a task's spend as a share of the reference model's run cost. */
export interface EscalationSetting {
  /** The cost weight (with `spendTarget`: the pacer's starting weight). */
  readonly costWeight: number;
  /** Cap on the spend per task, as a ratio to the reference model's run cost (null: none). */
  readonly cap: number | null;
  /**
   * A mean spend per task to aim at, as a ratio to the reference model's run cost: the cost weight is then a
   * {@link SpendPacer}'s, one per seed, fed each task's expected spend over the test folds in turn.
   */
  readonly spendTarget?: number;
  /** The pacer's rate (default: the pacer's). */
  readonly paceRate?: number;
}

export interface ReplayOptions {
  /** Cross-fit seeds (default 5). */
  readonly crossFitSeeds?: number;
  /** Online seeds (default 20). */
  readonly onlineSeeds?: number;
  /**
   * Caps on the single choice's run cost, as ratios to the reference model's run cost: for each, the most able model
   * whose run costs at most that (cost weight 0, `route`'s `budget`). Default {@link DEFAULT_SINGLE_CAPS}.
   */
  readonly singleCaps?: readonly number[];
  /** Cost weights of the single-choice curve. */
  readonly costWeights?: readonly number[];
  /** Escalation settings. */
  readonly escalation?: readonly EscalationSetting[];
  /** Most attempts of an escalation (default 3). */
  readonly maxAttempts?: number;
  /** Priors of every router the replay builds (default: the RunRouter's defaults). */
  readonly priors?: RunRouterOptions["priors"];
  /** The online router's exploration (default: {@link DEFAULT_ONLINE_EXPLORATION}). */
  readonly onlineExploration?: number;
  /**
   * Whether each item's category (where the folder has one) is given to the router as its task hint (default false:
   * on Terminal-Bench's training items the hints gave no gain; docs/agents.md). A ValidationError when no item has a
   * category.
   */
  readonly hints?: boolean;
  /**
   * How the cross-fit's router learns the training folds: `"feedback"` (default), every training outcome fed back
   * to the router that routes the test fold; `"prior"`, a router fed them is saved as a run prior (`toPrior`, what
   * `irt-router train --runs` writes) and a fresh router started from that prior routes the test fold.
   */
  readonly crossFitVia?: "feedback" | "prior";
  /** Progress messages (e.g. to stderr). */
  readonly onProgress?: (message: string) => void;
}

/**
 * Cost weights of the single-choice curve, fixed a priori. Finer near 0 (0.01, 0.02), where a cost weight only
 * breaks near-ties between the top models: on Terminal-Bench the curve is a step there (docs/agents.md).
 */
export const DEFAULT_COST_WEIGHTS: readonly number[] = [0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5];
/**
 * Caps of the single choice (the most able model whose run costs at most this share of the reference's): a price you
 * name, beside the cost weights' trade. 0.5 is where issue 36 asks for the best model at that price.
 */
export const DEFAULT_SINGLE_CAPS: readonly number[] = [0.25, 0.5];
/**
 * Escalation settings: cost weights with a per-task cap, and cost weights alone. Without a cap a dear model may follow
 * a cheap one that failed (its run is paid only when the cheap one fails); a cap of 35% or 60% of the reference's run
 * cost forbids it on every task. On Terminal-Bench's training items the uncapped 0.4, 0.3 and 0.2 lie above the capped
 * points at the same mean cost (docs/agents.md, "Do the defaults hold on other sets?").
 */
export const DEFAULT_ESCALATION: readonly EscalationSetting[] = [
  { costWeight: 0.3, cap: 0.25 },
  { costWeight: 0.2, cap: 0.35 },
  { costWeight: 0.1, cap: 0.4 },
  { costWeight: 0.1, cap: 0.6 },
  { costWeight: 0.05, cap: 1 },
  { costWeight: 0.15, cap: 1.6 },
  { costWeight: 0.4, cap: null },
  { costWeight: 0.3, cap: null },
  { costWeight: 0.2, cap: null },
  { costWeight: 0.15, cap: null },
  { costWeight: 0.05, cap: null },
  { costWeight: 0, cap: null },
  { costWeight: DEFAULT_SPEND_PACER.start, cap: null, spendTarget: 0.33 },
  { costWeight: DEFAULT_SPEND_PACER.start, cap: null, spendTarget: 0.57 },
];

/** Shares of the reference's run cost: each > 0. */
const singleCapsSchema = z.array(z.number().finite().positive());

const FOLDS = 5;

/**
 * Run the whole replay on a run table (see the module comment). Where a (task, model) pair has no label, that model is
 * kept off that task (`exclude`) and the references are scored on the tasks they have (`coverage` counts the gaps); a
 * task with no label at all is a DatasetFormatError naming it.
 */
export async function replayRuns(table: RunTable, options: ReplayOptions = {}): Promise<ReplayResult> {
  parseWith(singleCapsSchema, options.singleCaps ?? [], "singleCaps");
  assertEveryTaskLabelled(table);
  if (options.hints) assertHints(table);
  const progress = options.onProgress ?? (() => {});
  const crossFit = await crossFitted(table, options, progress);
  const online = onlineStream(
    table,
    {
      seeds: options.onlineSeeds ?? 20,
      exploration: options.onlineExploration ?? DEFAULT_ONLINE_EXPLORATION,
      hints: options.hints ?? false,
      ...(options.priors && { priors: options.priors }),
    },
    progress,
  );
  return {
    dataset: table.name,
    runs: table.ids.length,
    models: table.models.length,
    costAssumption: table.costAssumption,
    coverage: coverageOf(table),
    crossFit,
    online,
  };
}

async function crossFitted(table: RunTable, options: ReplayOptions, progress: (m: string) => void) {
  const seeds = options.crossFitSeeds ?? 5;
  const weights = options.costWeights ?? DEFAULT_COST_WEIGHTS;
  const settings = options.escalation ?? DEFAULT_ESCALATION;
  const maxAttempts = options.maxAttempts ?? 3;
  const names = anonymousNames(table.models);
  const index = new Map(table.models.map((m, k) => [names.get(m)!, k]));
  const observed = observedOnly(table, names);
  const N = table.ids.length;
  const acc = (): Sums => ({ s: 0, c: 0, a: 0, item: new Float64Array(N), paired: new Float64Array(N) });
  const caps = options.singleCaps ?? DEFAULT_SINGLE_CAPS;
  const sums = { ref: acc(), single: [...weights, ...caps].map(acc), esc: settings.map(acc) };
  let n = 0;
  // the reference is scored on the runs it has a label on (every run, in a folder without gaps)
  const pairing = new ReferencePairing(N, (x) => x * (N / n)); // n: the test runs, counted by the time it is used
  for (let seed = 1; seed <= seeds; seed++) {
    const fold = table.ids.map((id) => foldOf(table.name, id, seed, FOLDS));
    const pacers = settings.map(pacerOf);
    for (let f = 0; f < FOLDS; f++) {
      const train = fold.flatMap((g, i) => (g !== f ? [i] : []));
      const test = fold.flatMap((g, i) => (g === f ? [i] : []));
      if (test.length === 0) continue;
      const ref = bestFixed(table.rate, train);
      const refCost = referenceCost(table, ref);
      const router = trainedOn(table, train, names, options);
      const singles = singleChoices(weights, caps, refCost);
      for (const i of test) {
        const task = taskAt(table, i, options.hints ?? false);
        const off = observed[i]!; // the models unobserved on this task kept off it (none, in a folder without gaps)
        n++;
        sums.ref.c += refCost;
        const scored = Number.isFinite(table.rate[i]![ref]!);
        pairing.note(i, scored);
        if (scored) {
          add(sums.ref, i, table.rate[i]![ref]!, true);
          sums.ref.a += 1; // the runs the reference is scored on
        }
        singles.forEach((o, k) => {
          const m = index.get(router.route(task, { ...o, ...off }).chosen)!;
          add(sums.single[k]!, i, observedRate(table, i, m), scored);
          sums.single[k]!.c += table.runCost[m]!;
        });
        for (let k = 0; k < settings.length; k++) {
          const setting = settings[k]!;
          const pacer = pacers[k];
          const { success, cost, attempts } = await escalationOutcome(router, table, i, task, index, {
            ...setting,
            ...(pacer && { costWeight: pacer.costWeight }),
            maxAttempts,
            refCost,
            ...off,
          });
          pacer?.record(cost / refCost);
          add(sums.esc[k]!, i, success, scored);
          sums.esc[k]!.c += cost;
          sums.esc[k]!.a += attempts;
        }
      }
    }
    progress(`cross-fit seed ${seed}/${seeds} done`);
  }
  return { seeds, folds: FOLDS, ...crossFitPoints(sums, pairing, n, { weights, caps, settings }) };
}

/**
 * Sums of one policy over the cross-fit: success, cost, attempts (the reference: the runs it is scored on), and per
 * item its success over all runs and over the runs the reference is scored on.
 */
interface Sums extends PairedSums {
  s: number;
  c: number;
  a: number;
}

/** Adds a run's success `y` of item `i` to `x` (to its paired sums too when the reference was `scored` on it). */
function add(x: Sums, i: number, y: number, scored: boolean): void {
  x.s += y;
  x.item[i]! += y;
  if (scored) x.paired[i]! += y;
}

/**
 * The cross-fit's points from its sums over `n` test runs. Cost ratio: the policy's total cost over the reference
 * models' total cost on the same test items. Paired bootstrap over items (each item's success summed over the seeds):
 * 95% intervals of the success and of its difference from the best fixed model's, the latter (and the reference's own)
 * over the items it is observed on.
 */
function crossFitPoints(
  sums: { readonly ref: Sums; readonly single: readonly Sums[]; readonly esc: readonly Sums[] },
  pairing: ReferencePairing,
  n: number,
  rows: { weights: readonly number[]; caps: readonly number[]; settings: readonly EscalationSetting[] },
) {
  const N = pairing.scored.length;
  const plan = bootstrapPlan(N, 1000, 1);
  const ref = sums.ref;
  const point = (x: Sums) => ({
    success: x.s / n,
    costRatio: x.c / ref.c,
    successCi: pairing.perRunCi(bootstrapMeanCi(x.item, plan)),
    vsBestFixedCi: pairing.diffCi(x, ref, plan),
  });
  const { weights, caps, settings } = rows;
  return {
    bestFixed: {
      ...point(ref),
      success: pairing.referenceSuccess(ref, ref.s / ref.a),
      successCi: pairing.referenceCi(ref, plan),
    },
    single: [
      ...weights.map((w, k) => ({ costWeight: w, ...point(sums.single[k]!) })),
      ...caps.map((cap, k) => ({ costWeight: 0, cap, ...point(sums.single[weights.length + k]!) })),
    ],
    escalation: settings.map((s, k) => ({
      costWeight: s.costWeight,
      cap: s.cap,
      ...(s.spendTarget !== undefined && { spendTarget: s.spendTarget }),
      ...point(sums.esc[k]!),
      attempts: sums.esc[k]!.a / n,
    })),
  };
}

/** The `route` options of the single-choice rows: each cost weight, then each cap in USD (cost weight 0). */
function singleChoices(weights: readonly number[], caps: readonly number[], refCost: number): RouteRunOptions[] {
  return [...weights.map((w) => ({ costWeight: w })), ...caps.map((c) => ({ costWeight: 0, budget: c * refCost }))];
}

/** A setting's pacer, one per cross-fit seed (undefined without a spend target). */
function pacerOf(s: EscalationSetting): SpendPacer | undefined {
  if (s.spendTarget === undefined) return undefined;
  return new SpendPacer({
    target: s.spendTarget,
    start: s.costWeight,
    ...(s.paceRate !== undefined && { rate: s.paceRate }),
  });
}

/** The router of one fold: every outcome of the training items fed back (or, with `crossFitVia: "prior"`, its prior). */
function trainedOn(
  table: RunTable,
  train: readonly number[],
  names: ReadonlyMap<string, string>,
  options: ReplayOptions,
): RunRouter {
  const fed = new RunRouter({ models: modelsConfig(table, names), priors: options.priors });
  for (const i of train) {
    const task = taskAt(table, i, options.hints ?? false);
    table.models.forEach((m, k) => {
      const r = table.rate[i]![k]!;
      if (Number.isFinite(r)) fed.feedback(task, names.get(m)!, r);
    });
  }
  return options.crossFitVia === "prior"
    ? new RunRouter({ models: modelsConfig(table, names), priors: options.priors, prior: fed.toPrior() })
    : fed;
}

/**
 * One escalation of item `i` on the all-fail path: every run is checked as failed, so the attempts are those the
 * router makes when each one fails; success (1 - product of (1 - rate)) and cost (each attempt's cost times the chance
 * that it runs) are then the expectations over the runs' own pass/fail outcomes, the rates.
 */
async function escalationOutcome(
  router: RunRouter,
  table: RunTable,
  i: number,
  task: { id: string; text: string; hint?: string },
  index: ReadonlyMap<string, number>,
  s: EscalationSetting & { maxAttempts: number; refCost: number; exclude?: string[] },
): Promise<{ success: number; cost: number; attempts: number }> {
  const result = await router.escalate(
    task,
    async (modelId) => modelId,
    () => false,
    {
      maxAttempts: s.maxAttempts,
      costWeight: s.costWeight,
      ...(s.cap === null ? {} : { costCap: s.cap * s.refCost }),
      ...(s.exclude && { exclude: s.exclude }),
      learn: false,
    },
  );
  let fail = 1;
  let cost = 0;
  for (const a of result.attempts) {
    const m = index.get(a.modelId)!;
    cost += fail * table.runCost[m]!;
    fail *= 1 - observedRate(table, i, m);
  }
  return { success: 1 - fail, cost, attempts: result.attempts.length };
}
