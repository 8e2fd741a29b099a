/**
 * The protocol of `npm run bench:agent`: settings chosen on val runs, rows played on test runs of every seed, and
 * the online-learning curves from run feedback (docs/agents.md). Results of each (row, seed) are cached on disk by
 * the caller (`cached`), so a rerun only aggregates.
 */
import type { IrtRouterOptions } from "../../src/langchain/index.js";
import type { FeedbackOptions } from "../../src/core/feedback/outcome-events.js";
import { OnlineLearner } from "../../src/learning/index.js";
import type { PolicyConfig } from "../../src/policy/types.js";
import { describePolicy } from "../../src/policy/schema.js";
import type { RunResult, RunSpec } from "./run-model.js";
import {
  benchRuns,
  directCaller,
  greedyView,
  makeRouter,
  perRunCaller,
  playRuns,
  routerCaller,
  type Replay,
  type RouterSpec,
} from "./rows.js";

/** Router options that switch the features on; absent when the router lacks the feature. */
/** The source of the benchmark's run feedback: the labels, an authenticated grader (full weight, see docs/online.md). */
const BENCH_GRADER = "benchmark-grader";

export interface RouterFeatures {
  /** Which features are on, in words (printed, and part of the result cache key). */
  readonly signature: string;
  /** Options of a cache-blind router (prices without the cache discount). */
  readonly cacheBlind: Partial<IrtRouterOptions>;
  /** Options of a cache-aware router (its expected cost counts the run's cached prefix). */
  readonly cacheAware?: Partial<IrtRouterOptions>;
  /** Options that add escalation after a visible failure, by setting. */
  readonly escalation?: readonly { readonly name: string; readonly options: Partial<IrtRouterOptions> }[];
  /** Options under which the router reads a step's task hint (the item's category); undefined: no hints. */
  readonly hints?: Partial<IrtRouterOptions>;
  /** The call metadata carrying a step's hint, given its category. */
  readonly hintMetadata?: (category: string) => Record<string, unknown>;
}

export interface ExperimentParams {
  readonly seeds: readonly number[];
  /** Seeds of the learning scenarios (the first of `seeds`; learning is the slow part). */
  readonly learningSeeds: readonly number[];
  readonly testRuns: number;
  readonly valRuns: number;
  readonly learningRuns: number;
  readonly checkpoints: readonly number[];
  /** Test runs of each seed played at each learning checkpoint (the first ones of the seed's test runs). */
  readonly checkpointRuns: number;
  /** Cost weights (per USD) of the cost-aware grid searched on val. */
  readonly lambdas: readonly number[];
  /** The (smaller) grid of the cache-aware and escalation rows, around the settings the cost-aware grid favours. */
  readonly featureLambdas: readonly number[];
  /** `stepsAhead` values of the per-step cost-aware grid on val (0: each step valued on its own). */
  readonly stepsAhead: readonly number[];
  /** Cost weights of the cache-blind and cache-aware curves played on test (reported, never chosen from). */
  readonly curveLambdas: readonly number[];
  /** A setting is acceptable on val when its run success is within this of always-strongest's. */
  readonly tolerance: number;
  readonly attribution: FeedbackOptions["attribution"];
}

/** Caches one (row, seed) result: returns the cached runs when present, else computes and stores them. */
export type Cached = (key: string, compute: () => Promise<RunResult[]>) => Promise<RunResult[]>;

export interface Progress {
  (line: string): void;
}

/** Model indices ordered by train-split accuracy, strongest first. */
export function byTrainAccuracy(replay: Replay): number[] {
  const { world, split } = replay.setup;
  const nM = world.models.length;
  const acc = world.models.map((_, m) => {
    let s = 0;
    let c = 0;
    for (const i of split.train) {
      const y = world.y[i * nM + m]!;
      if (Number.isFinite(y)) {
        s += y;
        c++;
      }
    }
    return c > 0 ? s / c : 0;
  });
  return acc
    .map((a, m) => ({ a, m }))
    .sort((x, y) => y.a - x.a || x.m - y.m)
    .map((x) => x.m);
}

export const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
export const successOf = (rs: readonly RunResult[]): number => mean(rs.map((r) => (r.success ? 1 : 0)));
export const costOf = (rs: readonly RunResult[]): number => mean(rs.map((r) => r.costUsd));

/** A setting tried on val and how it did. */
export interface ValTrial {
  readonly name: string;
  readonly success: number;
  readonly costPerRun: number;
}

/**
 * The rule every tuned row uses on val: the cheapest setting whose val run success is at least always-strongest's
 * minus `tolerance`; when none is, the most successful one.
 */
export function chooseOnVal<T extends ValTrial>(trials: readonly T[], strongestSuccess: number, tolerance: number): T {
  const ok = trials.filter((t) => t.success >= strongestSuccess - tolerance);
  if (ok.length > 0) return ok.reduce((a, b) => (b.costPerRun < a.costPerRun ? b : a));
  return trials.reduce((a, b) => (b.success > a.success ? b : a));
}

/** A row to play on test runs: a name, its setting in words, and how to play a set of runs. */
export interface RowPlan {
  readonly name: string;
  readonly setting: string;
  readonly play: (runs: readonly RunSpec[]) => Promise<RunResult[]>;
}

/** The caller of a step through a router spec (per step), with the step's hint when the spec uses hints. */
function stepRows(replay: Replay, spec: RouterSpec, features: RouterFeatures, hinted: boolean) {
  return async (runs: readonly RunSpec[]) => {
    const router = makeRouter(replay, spec);
    if (!hinted || !features.hintMetadata) return playRuns(replay, runs, routerCaller(router));
    return playRuns(
      replay,
      runs,
      (messages, call) =>
        router.invoke(messages, {
          metadata: { irtRouterRunId: call.run.id, ...features.hintMetadata!(call.run.category) },
        }) as never,
    );
  };
}

/** Everything chosen on val, and the rows it gives. */
export interface ValChoice {
  readonly strongest: number;
  readonly strongestVal: ValTrial;
  readonly trials: Record<string, readonly ValTrial[]>;
  readonly rows: RowPlan[];
  readonly costAware: PolicyConfig;
}

/** Plays the val runs of every setting and returns the rows to play on test, each with its chosen setting. */
export async function tuneOnVal(
  replay: Replay,
  features: RouterFeatures,
  params: ExperimentParams,
  cached: Cached,
  log: Progress,
): Promise<ValChoice> {
  const { world } = replay.setup;
  const valRuns = benchRuns.val(replay, params.valRuns);
  const order = byTrainAccuracy(replay);
  const strongest = order[0]!;
  const trial = async (name: string, play: (runs: readonly RunSpec[]) => Promise<RunResult[]>): Promise<ValTrial> => {
    const t0 = performance.now();
    const rs = await cached(`val:${name}`, () => play(valRuns));
    const out = { name, success: successOf(rs), costPerRun: costOf(rs) };
    log(
      `  val ${name}: success ${out.success.toFixed(3)} cost/run $${out.costPerRun.toFixed(4)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    );
    return out;
  };
  const always: ValTrial[] = [];
  for (const [m, id] of world.models.entries())
    always.push(await trial(`always:${id}`, (runs) => playRuns(replay, runs, directCaller(replay.children[m]!))));
  const strongestVal = always[strongest]!;
  const bestFixed = always.reduce((a, b) =>
    b.success > a.success || (b.success === a.success && b.costPerRun < a.costPerRun) ? b : a,
  );
  const grid = async (
    label: string,
    spec: (p: PolicyConfig) => RouterSpec,
    perRun = false,
    lambdas = params.lambdas,
    stepsAhead: readonly number[] = [0],
  ) => {
    const trials: (ValTrial & { policy: PolicyConfig })[] = [];
    const policies = stepsAhead.flatMap((k) =>
      lambdas.map((lambda): PolicyConfig => ({ kind: "cost-aware", lambda, ...(k > 0 ? { stepsAhead: k } : {}) })),
    );
    for (const policy of policies) {
      const name = `${label}:${describePolicy(policy)}`;
      const play = perRun
        ? (runs: readonly RunSpec[]) =>
            playRuns(replay, runs, perRunCaller(makeRouter(replay, spec(policy)), replay.children))
        : stepRows(replay, spec(policy), features, false);
      trials.push({ ...(await trial(name, play)), policy });
    }
    return { trials, chosen: chooseOnVal(trials, strongestVal.success, params.tolerance) };
  };
  const trials: Record<string, ValTrial[]> = { always };
  const blind = await grid(
    "per-step:cost-aware",
    (policy) => ({ policy, options: features.cacheBlind }),
    false,
    params.lambdas,
    params.stepsAhead,
  );
  trials["per-step:cost-aware"] = blind.trials;
  const perRun = await grid("per-run", (policy) => ({ policy, options: features.cacheBlind }), true);
  trials["per-run"] = perRun.trials;
  const chosenModel = world.models.indexOf(bestFixed.name.slice("always:".length));
  const rows: RowPlan[] = world.models.map((id, m) => ({
    name: `always:${id}`,
    setting: "",
    play: (runs) => playRuns(replay, runs, directCaller(replay.children[m]!)),
  }));
  rows.push({
    name: "best-fixed",
    setting: world.models[chosenModel]!,
    play: (runs) => playRuns(replay, runs, directCaller(replay.children[chosenModel]!)),
  });
  rows.push({
    name: "per-step:quality",
    setting: "quality",
    play: stepRows(replay, { policy: { kind: "quality" }, options: features.cacheBlind }, features, false),
  });
  rows.push({
    name: "per-step:cost-aware",
    setting: describePolicy(blind.chosen.policy),
    play: stepRows(replay, { policy: blind.chosen.policy, options: features.cacheBlind }, features, false),
  });
  rows.push({
    name: "per-run",
    setting: describePolicy(perRun.chosen.policy),
    play: (runs) =>
      playRuns(
        replay,
        runs,
        perRunCaller(
          makeRouter(replay, { policy: perRun.chosen.policy, options: features.cacheBlind }),
          replay.children,
        ),
      ),
  });
  if (features.cacheAware) {
    const aware = { ...features.cacheAware };
    rows.push({
      name: "per-step:cache-aware",
      setting: `${describePolicy(blind.chosen.policy)} (the cost-aware row's setting)`,
      play: stepRows(replay, { policy: blind.chosen.policy, options: aware }, features, false),
    });
    const tuned = await grid(
      "per-step:cache-aware",
      (policy) => ({ policy, options: aware }),
      false,
      params.featureLambdas,
    );
    trials["per-step:cache-aware"] = tuned.trials;
    rows.push({
      name: "per-step:cache-aware@val",
      setting: describePolicy(tuned.chosen.policy),
      play: stepRows(replay, { policy: tuned.chosen.policy, options: aware }, features, false),
    });
    // At equal success: the cheapest cache-aware setting whose val success is at least the cost-aware row's (its
    // chosen setting's val success), so that the two rows compare cost at the same success, as the issue asks.
    const blindVal = blind.chosen.success;
    const equal = tuned.trials.filter((t) => t.success >= blindVal);
    const atEqual =
      equal.length > 0
        ? equal.reduce((a, b) => (b.costPerRun < a.costPerRun ? b : a))
        : tuned.trials.reduce((a, b) => (b.success > a.success ? b : a));
    rows.push({
      name: "per-step:cache-aware@equal",
      setting: `${describePolicy(atEqual.policy)} (cheapest with val success >= per-step:cost-aware's ${blindVal.toFixed(3)})`,
      play: stepRows(replay, { policy: atEqual.policy, options: aware }, features, false),
    });
  }
  if (features.escalation) {
    const esc: (ValTrial & { policy: PolicyConfig; options: Partial<IrtRouterOptions> })[] = [];
    for (const variant of features.escalation) {
      const g = await grid(
        `escalation(${variant.name})`,
        (policy) => ({ policy, options: { ...(features.cacheAware ?? features.cacheBlind), ...variant.options } }),
        false,
        params.featureLambdas,
      );
      esc.push(
        ...g.trials.map((t) => ({
          ...t,
          options: { ...(features.cacheAware ?? features.cacheBlind), ...variant.options },
        })),
      );
    }
    trials.escalation = esc;
    const chosen = chooseOnVal(esc, strongestVal.success, params.tolerance);
    rows.push({
      name: "escalation",
      setting: chosen.name.replace(/^escalation/, ""),
      play: stepRows(replay, { policy: chosen.policy, options: chosen.options }, features, false),
    });
  }
  return { strongest, strongestVal, trials, rows, costAware: blind.chosen.policy };
}

/** One learning scenario's checkpoints on one seed: test runs played greedily after each number of learning runs. */
export interface LearningSeed {
  readonly scenario: string;
  readonly seed: number;
  readonly checkpoints: { runs: number; results: RunResult[] }[];
}

/**
 * The online router from run feedback: a learner over the scorer's catalog (Thompson sampling while learning) inside
 * the router; learning runs from train items with `router.feedback(runId, outcome, { attribution })` after each;
 * at each checkpoint the seed's first `checkpointRuns` test runs are played by a router sharing the learner but not
 * exploring, and give no feedback. `unknown` models get keys the scorer does not know (they start at the learner's
 * new-model prior).
 */
export async function learningCurve(
  replay: Replay,
  scenario: string,
  unknown: readonly number[],
  policy: PolicyConfig,
  options: Partial<IrtRouterOptions>,
  params: ExperimentParams,
  seed: number,
  testRuns: readonly RunSpec[],
  log: Progress,
  hint?: (category: string) => Record<string, unknown>,
): Promise<LearningSeed> {
  const { world, scorer } = replay.setup;
  const keys = replay.setup.keys.map((k, m) => (unknown.includes(m) ? `${world.models[m]} (unseen)` : k));
  const learner = OnlineLearner.forScorer(scorer, { explore: "thompson", seed });
  const learning = makeRouter(replay, { policy, options, keys, learner });
  const greedy = greedyView(learner as never);
  const learnRuns = benchRuns.learning(replay, params.learningRuns, seed, `learn${seed}-${scenario}`);
  const evalRuns = testRuns.slice(0, params.checkpointRuns);
  const checkpoints: LearningSeed["checkpoints"] = [];
  let done = 0;
  const t0 = performance.now();
  for (const target of params.checkpoints) {
    await playRuns(replay, learnRuns.slice(done, target), routerCaller(learning, hint), async (r) => {
      const source = { source: BENCH_GRADER };
      await learning.feedback(
        r.id,
        r.success ? 1 : 0,
        params.attribution ? { ...source, attribution: params.attribution } : source,
      );
    });
    done = target;
    const evalRouter = makeRouter(replay, { policy, options, keys, learner: greedy });
    const results = await playRuns(replay, evalRuns, routerCaller(evalRouter, hint));
    checkpoints.push({ runs: target, results });
    log(
      `  ${scenario} seed ${seed} after ${target} learning runs: success ${successOf(results).toFixed(3)} cost/run $${costOf(results).toFixed(4)} (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
    );
  }
  return { scenario, seed, checkpoints };
}

/** The cost-aware policy at `lambda`, valuing each step by the `stepsAhead` steps of its run (0: each step alone). */
export function costAwarePolicy(
  lambda: number,
  stepsAhead: number,
): PolicyConfig & { kind: "cost-aware"; lambda: number; stepsAhead?: number } {
  return { kind: "cost-aware", lambda, ...(stepsAhead > 0 ? { stepsAhead } : {}) };
}

/** One point of a success-vs-cost curve: a router setting played on every seed's test runs. */
export interface CurvePoint {
  readonly router: "cost-aware" | "cache-aware";
  readonly lambda: number;
  readonly results: RunResult[];
}

/**
 * The per-step router's success-vs-cost curves over the cost weight, cache-blind and cache-aware, on the test runs
 * of every seed (issue 36 item 1: the trade between the two settings, explicit), at the `stepsAhead` of the val-chosen
 * cost-aware row. Reported, never chosen from: the rows' settings are chosen on val.
 */
export async function costCurves(
  replay: Replay,
  features: RouterFeatures,
  lambdas: readonly number[],
  stepsAhead: number,
  testRuns: (seed: number) => readonly RunSpec[],
  seeds: readonly number[],
  cached: (key: string, seed: number, compute: () => Promise<RunResult[]>) => Promise<RunResult[]>,
  log: Progress,
): Promise<CurvePoint[]> {
  const out: CurvePoint[] = [];
  for (const router of ["cost-aware", "cache-aware"] as const) {
    const options = router === "cache-aware" ? features.cacheAware : features.cacheBlind;
    if (!options) continue;
    for (const lambda of lambdas) {
      const policy = costAwarePolicy(lambda, stepsAhead);
      const results: RunResult[] = [];
      for (const seed of seeds)
        results.push(
          ...(await cached(`curve:${router}:${describePolicy(policy)}`, seed, () =>
            stepRows(replay, { policy, options }, features, false)(testRuns(seed)),
          )),
        );
      log(
        `  curve ${router} ${describePolicy(policy)}: success ${successOf(results).toFixed(3)} cost/run $${costOf(results).toFixed(4)}`,
      );
      out.push({ router, lambda, results });
    }
  }
  return out;
}
