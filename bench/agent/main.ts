/**
 * `npm run bench:agent -- --dataset <name-or-folder> [--json] [--seeds 5] [--quick] [--fresh] [--encoder static]`
 *
 * Agent runs replayed from a correctness dataset with prices (issue 20; docs/agents.md): runs of several steps with
 * a growing, cached context, retries after visible failures and run-level feedback, played through the real
 * `IrtRouter` with replay models answering from the recorded labels. Settings are chosen on val runs; the figures
 * are on test runs over several seeds, with intervals that resample the test items. Each (row, seed) result is cached
 * under .cache/agent-bench, so a rerun only aggregates (`--fresh` recomputes).
 * `--attribution` runs the comparison of run-attribution modes on val runs instead (issue 20 item 4).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { describePolicy } from "../../src/policy/schema.js";
import type { RunResult, RunSpec } from "./run-model.js";
import { benchRuns, loadReplay, type Replay } from "./rows.js";
import {
  byTrainAccuracy,
  costCurves,
  costOf,
  type CurvePoint,
  learningCurve,
  successOf,
  tuneOnVal,
  type ExperimentParams,
  type RouterFeatures,
} from "./experiment.js";
import { frontier, pairedDiff, rowFigures, runWeights, testPlan, type RowFigures } from "./stats.js";
import {
  frontierTable,
  learningTable,
  reportJson,
  rowsTable,
  type AgentReport,
  type LearningFigures,
} from "./report.js";
import { routerFeatures } from "./features.js";
import { attributionStudy } from "./attribution.js";
import { positiveIntFlag, runsFlag, scriptFlags, seedsFlag } from "../flags.js";

/** The bench/ folder (this study's entry sits one level below it). */
const here = join(dirname(fileURLToPath(import.meta.url)), "..");
/** Bump when the library's learning from run feedback changes (the learning rows' cached results are then stale). */
const LEARNER_VERSION = "hold-spend-capped-default-2";
/** Bump when the harness changes what a cached result would hold. */
const CACHE_VERSION = 2;

/** The most seeds `--seeds` and `--learning-seeds` take: each seed plays every row's test runs. */
const MAX_AGENT_SEEDS = 20;

const argsSchema = z
  .object({
    dataset: z.string().min(1).default("routerbench-subset-11models"),
    "data-root": z.string().min(1).optional(),
    json: z.boolean().default(false),
    seeds: seedsFlag(5, MAX_AGENT_SEEDS),
    "test-runs": runsFlag(200),
    "val-runs": runsFlag(400),
    "learning-runs": runsFlag(2000, 0),
    "checkpoint-runs": runsFlag(200),
    // Default: every seed, so the learning rows are paired with the static rows on all of their test runs.
    "learning-seeds": positiveIntFlag(undefined, { max: MAX_AGENT_SEEDS }).optional(),
    quick: z.boolean().default(false),
    fresh: z.boolean().default(false),
    attribution: z.boolean().default(false),
    "cached-prices": z.enum(["current", "historical"]).default("current"),
    encoder: z.enum(["use-lite", "static"]).default("use-lite"),
  })
  .strict();

function parse() {
  return scriptFlags(
    "bench:agent",
    {
      dataset: { type: "string" },
      "data-root": { type: "string" },
      json: { type: "boolean" },
      seeds: { type: "string" },
      "test-runs": { type: "string" },
      "val-runs": { type: "string" },
      "learning-runs": { type: "string" },
      "checkpoint-runs": { type: "string" },
      "learning-seeds": { type: "string" },
      quick: { type: "boolean" },
      fresh: { type: "boolean" },
      attribution: { type: "boolean" },
      "cached-prices": { type: "string" },
      encoder: { type: "string" },
    },
    argsSchema,
  );
}

function experimentParams(args: z.output<typeof argsSchema>): ExperimentParams {
  const learningRuns = args.quick ? Math.min(args["learning-runs"], 250) : args["learning-runs"];
  return {
    seeds: Array.from({ length: args.quick ? 1 : args.seeds }, (_, k) => k + 1),
    learningSeeds: Array.from(
      { length: args.quick ? 1 : Math.min(args.seeds, args["learning-seeds"] ?? args.seeds) },
      (_, k) => k + 1,
    ),
    testRuns: args.quick ? Math.min(args["test-runs"], 60) : args["test-runs"],
    valRuns: args.quick ? Math.min(args["val-runs"], 100) : args["val-runs"],
    learningRuns,
    checkpoints: [250, 500, 1000, 2000].filter((c) => c <= learningRuns),
    checkpointRuns: args.quick ? Math.min(args["checkpoint-runs"], 60) : args["checkpoint-runs"],
    lambdas: [0.5, 1, 2, 3, 4, 6, 8, 12, 16, 32],
    featureLambdas: [1, 2, 3, 4, 6, 8],
    stepsAhead: [0, 3, 6],
    curveLambdas: args.quick ? [1, 2] : [0.75, 1, 1.25, 1.5, 2, 3],
    tolerance: 0.02,
    attribution: undefined,
  };
}

/** The on-disk cache of (row, seed) results, keyed by everything that decides them. */
function resultCache(replay: Replay, params: ExperimentParams, features: RouterFeatures, fresh: boolean) {
  const dir = join(here, "..", ".cache", "agent-bench");
  const base = {
    v: CACHE_VERSION,
    data: replay.setup.ds.source.sha256,
    shape: replay.ctx.shape,
    prices: replay.setup.world.prices,
    scorer: replay.setup.scorerNote,
  };
  const file = (key: string, extra: unknown) =>
    join(
      dir,
      `${replay.setup.ds.name}-${createHash("sha256")
        .update(JSON.stringify({ ...base, key, extra }))
        .digest("hex")
        .slice(0, 20)}.json`,
    );
  const cached = async <T>(key: string, extra: unknown, compute: () => Promise<T>): Promise<T> => {
    const f = file(key, extra);
    if (!fresh && existsSync(f)) return JSON.parse(readFileSync(f, "utf8")) as T;
    const out = await compute();
    mkdirSync(dir, { recursive: true });
    writeFileSync(f, JSON.stringify(out));
    return out;
  };
  return { cached, params };
}

async function main(): Promise<void> {
  const args = parse();
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const t0 = performance.now();
  const params = experimentParams(args);
  log(
    `bench:agent: ${args.dataset}; ${params.seeds.length} seed(s) x ${params.testRuns} test runs, ${params.valRuns} val runs per setting, ` +
      `${params.learningRuns} learning runs per scenario. RouterBench takes about 3-5 minutes on 2 cores once its embeddings are cached (2.5 min at load 1.8, 2026-12-07; embedding its texts first: about 6 minutes more), RouteLLM up to about 30; ` +
      `results are cached under .cache/agent-bench, so a rerun takes seconds.`,
  );
  const replay = await loadReplay(args.dataset, log, {
    dataRoot: args["data-root"],
    cachedPricing: args["cached-prices"],
    encoder: args.encoder,
  });
  const { setup } = replay;
  const features = routerFeatures(replay);
  const { world, split } = setup;
  log(
    `  ${world.name}: ${world.nItems} items (train ${split.train.length}, val ${split.val.length}, test ${split.test.length}), ${world.models.length} models`,
  );
  log(`  scorer: ${setup.scorerNote}; embeddings: ${setup.embeddingsNote}; answer tokens ${world.answerSource}`);
  log(`  router features: ${features.signature}`);
  const { cached } = resultCache(replay, params, features, args.fresh);
  if (args.attribution) {
    await attributionStudy(
      replay,
      features,
      params,
      (key, compute) =>
        cached(
          key,
          { valRuns: params.valRuns, ...(usesFeatures(key) ? { features: features.signature } : {}) },
          compute,
        ),
      log,
    );
    return;
  }
  const choice = await tuneOnVal(
    replay,
    features,
    params,
    (key, compute) =>
      cached(key, { valRuns: params.valRuns, ...(usesFeatures(key) ? { features: features.signature } : {}) }, compute),
    log,
  );
  const strongest = choice.strongest;
  const testBySeed = new Map(params.seeds.map((seed) => [seed, benchRuns.test(replay, params.testRuns, seed)]));
  const results = new Map<string, RunResult[]>();
  for (const row of choice.rows) {
    const t = performance.now();
    const all: RunResult[] = [];
    for (const seed of params.seeds) {
      all.push(
        ...(await cached(
          `test:${row.name}`,
          {
            setting: row.setting,
            seed,
            runs: params.testRuns,
            ...(usesFeatures(row.name) ? { features: features.signature } : {}),
          },
          () => row.play(testBySeed.get(seed)!),
        )),
      );
    }
    results.set(row.name, all);
    log(
      `  test ${row.name} (${row.setting || "fixed"}): success ${successOf(all).toFixed(3)} cost/run $${costOf(all).toFixed(4)} (${((performance.now() - t) / 1000).toFixed(1)} s)`,
    );
  }
  const curves = await costCurves(
    replay,
    features,
    params.curveLambdas,
    (choice.costAware as { stepsAhead?: number }).stepsAhead ?? 0,
    (seed) => testBySeed.get(seed)!,
    params.seeds,
    (key, seed, compute) =>
      cached(`test:${key}`, { seed, runs: params.testRuns, features: features.signature }, compute),
    log,
  );
  const learning = await learningRows(replay, features, params, choice.costAware, testBySeed, cached, log);
  const pool = split.test;
  const plan = testPlan(pool);
  const baseline = results.get(`always:${world.models[strongest]}`)!;
  const weights = runWeights(baseline, pool, plan);
  const rows: RowFigures[] = choice.rows.map((row) =>
    rowFigures(row.name, row.setting, results.get(row.name)!, weights, baseline),
  );
  const inCheckpoints = (_: RunResult, k: number) =>
    k % params.testRuns < params.checkpointRuns && Math.floor(k / params.testRuns) < params.learningSeeds.length;
  const baseCheck = baseline.filter(inCheckpoints);
  const checkWeights = runWeights(baseCheck, pool, plan);
  const learningFigures: LearningFigures[] = learning.map((l) => ({
    scenario: l.scenario,
    checkpoints: l.checkpoints.map((c) => {
      const f = rowFigures(`${l.scenario}@${c.runs}`, "", c.results, checkWeights, baseCheck);
      return { runs: c.runs, success: f.success.value, costPerRun: f.costPerRun.value, successCi95: f.success.ci95 };
    }),
  }));
  // The static rows the learning rows are measured against, on the same runs (the learning seeds' checkpoint runs):
  // the learning rows are played on fewer test runs than the rows above, so only these pairs are like for like.
  if (learning.length > 0) {
    for (const name of ["always:" + world.models[strongest], "per-step:cost-aware"]) {
      rows.push(
        rowFigures(
          `${name}@learning-runs`,
          `${choice.rows.find((r) => r.name === name)?.setting || "fixed"}, on the learning checkpoints' test runs`,
          results.get(name)!.filter(inCheckpoints),
          checkWeights,
          baseCheck,
        ),
      );
    }
  }
  for (const l of learning) {
    const last = l.checkpoints[l.checkpoints.length - 1];
    if (!last) continue;
    rows.push(
      rowFigures(
        `online:${l.scenario}`,
        `${describePolicy(choice.costAware)}, holdSpend, learner from ${last.runs} runs`,
        last.results,
        checkWeights,
        baseCheck,
      ),
    );
  }
  const front = frontier(rows);
  const report: AgentReport = {
    dataset: world.name,
    runs: baseline.length,
    seeds: params.seeds,
    strongest: world.models[strongest]!,
    rows,
    learning: learningFigures,
    curves: curves.map((c) => {
      const f = rowFigures(`${c.router}@${c.lambda}`, "", c.results, weights, baseline);
      return { router: c.router, lambda: c.lambda, success: f.success, costPerRun: f.costPerRun };
    }),
  };
  const seconds = (performance.now() - t0) / 1000;
  if (args.json) {
    process.stdout.write(`${JSON.stringify(reportJson(report), null, 2)}\n`);
  } else {
    const out = [
      `## ${world.name}: ${baseline.length} test runs (${params.seeds.length} seeds x ${params.testRuns}), strongest ${world.models[strongest]}`,
      "",
      rowsTable(rows, front),
      "",
      "Frontier (* above):",
      "",
      frontierTable(rows, front),
      "",
      `Learning from run feedback (${describePolicy(choice.costAware)}; test runs per checkpoint: ${params.learningSeeds.length} seeds x ${params.checkpointRuns}):`,
      "",
      learningTable(learningFigures),
      "",
      "Success-vs-cost curves of the per-step router over the cost weight lambda (per USD), cache-blind and cache-aware, on",
      `every seed's test runs, at the per-step:cost-aware row's stepsAhead (${(choice.costAware as { stepsAhead?: number }).stepsAhead ?? 0}); paired differences with 95% item-bootstrap intervals (reported, not chosen from):`,
      "",
      curveTable(curves, results, weights),
      "",
      "Paired comparisons on the same test runs (difference of means, 95% item-bootstrap interval):",
      "",
      ...comparisons(results, learning, weights, checkWeights, inCheckpoints).map((c) => `- ${c}`),
      ...learnedAgainstCurve(curves, learning, checkWeights, inCheckpoints).map((c) => `- ${c}`),
      "",
      `Val choices: ${choice.rows
        .filter((r) => r.setting)
        .map((r) => `${r.name} ${r.setting}`)
        .join("; ")}`,
    ];
    process.stdout.write(`${out.join("\n")}\n`);
  }
  const ran = performance.now();
  log(`bench:agent: done in ${seconds.toFixed(0)} s (${((ran - t0) / 1000).toFixed(0)} s wall)`);
}

const fmtEstimate = (e: { value: number; ci95: [number, number] }, d: number) =>
  `${e.value.toFixed(d)} [${e.ci95[0].toFixed(d)}, ${e.ci95[1].toFixed(d)}]`;

/**
 * The curves as a table: per lambda, each router's success and cost per run, and cache-aware minus cache-blind at the
 * same lambda and minus the `per-step:cost-aware` row (its val-chosen lambda), paired.
 */
function curveTable(
  curves: readonly CurvePoint[],
  results: Map<string, RunResult[]>,
  weights: ReturnType<typeof runWeights>,
): string {
  const row = results.get("per-step:cost-aware");
  const lines = [
    "| lambda | cache-blind success, cost/run | cache-aware success, cost/run | aware minus blind, same lambda: success; cost | aware minus the per-step:cost-aware row: success; cost (share of its cost) |",
    "|---|---|---|---|---|",
  ];
  for (const blind of curves.filter((c) => c.router === "cost-aware")) {
    const aware = curves.find((c) => c.router === "cache-aware" && c.lambda === blind.lambda);
    const fig = (c: CurvePoint) => `${successOf(c.results).toFixed(3)}, $${costOf(c.results).toFixed(4)}`;
    const pair = (a: readonly RunResult[], b: readonly RunResult[]) =>
      `${fmtEstimate(pairedDiff(a, b, weights, "success"), 3)}; ${fmtEstimate(pairedDiff(a, b, weights, "cost"), 4)}`;
    lines.push(
      `| ${blind.lambda} | ${fig(blind)} | ${aware ? fig(aware) : "-"} | ${aware ? pair(aware.results, blind.results) : "-"} | ${
        aware && row
          ? `${pair(aware.results, row)} (${((100 * costOf(aware.results)) / costOf(row)).toFixed(1)}%)`
          : "-"
      } |`,
    );
  }
  return lines.join("\n");
}

/**
 * `online:known` against the cache-blind curve on the learning checkpoints' test runs: the learned router minus the
 * router without a learner at each lambda (is the learned router below the static curve at equal cost?).
 */
function learnedAgainstCurve(
  curves: readonly CurvePoint[],
  learning: { scenario: string; checkpoints: { runs: number; results: RunResult[] }[] }[],
  checkWeights: ReturnType<typeof runWeights>,
  inCheckpoints: (r: RunResult, k: number) => boolean,
): string[] {
  const known = learning.find((l) => l.scenario === "known")?.checkpoints.at(-1);
  if (!known) return [];
  return curves
    .filter((c) => c.router === "cost-aware")
    .map((c) => {
      const same = c.results.filter(inCheckpoints);
      return `known after ${known.runs} learning runs minus the cache-blind router at lambda ${c.lambda} (${successOf(same).toFixed(3)}, $${costOf(same).toFixed(4)}): success ${fmtEstimate(pairedDiff(known.results, same, checkWeights, "success"), 3)}, cost per run ${fmtEstimate(pairedDiff(known.results, same, checkWeights, "cost"), 4)} USD (${((100 * costOf(known.results)) / costOf(same)).toFixed(1)}% of its cost)`;
    });
}

/** Paired differences the done-when targets ask about. */
function comparisons(
  results: Map<string, RunResult[]>,
  learning: { scenario: string; checkpoints: { runs: number; results: RunResult[] }[] }[],
  weights: ReturnType<typeof runWeights>,
  checkWeights: ReturnType<typeof runWeights>,
  inCheckpoints: (r: RunResult, k: number) => boolean,
): string[] {
  const fmt = (e: { value: number; ci95: [number, number] }, d = 4) =>
    `${e.value.toFixed(d)} [${e.ci95[0].toFixed(d)}, ${e.ci95[1].toFixed(d)}]`;
  const out: string[] = [];
  const pair = (a: string, b: string) => {
    const ra = results.get(a);
    const rb = results.get(b);
    if (!ra || !rb) return;
    out.push(
      `${a} minus ${b}: success ${fmt(pairedDiff(ra, rb, weights, "success"), 3)}, cost per run ${fmt(pairedDiff(ra, rb, weights, "cost"))} USD`,
    );
  };
  pair("per-step:cache-aware", "per-step:cost-aware");
  pair("per-step:cache-aware@equal", "per-step:cost-aware");
  pair("escalation", "per-step:cache-aware@val");
  const known = learning.find((l) => l.scenario === "known")?.checkpoints.at(-1);
  const cold = learning.find((l) => l.scenario === "cold-start")?.checkpoints.at(-1);
  if (known && cold) {
    const d = pairedDiff(cold.results, known.results, checkWeights, "success");
    const ratio = successOf(cold.results) / Math.max(1e-9, successOf(known.results));
    out.push(
      `cold-start minus known after ${known.runs} learning runs: success ${fmt(d, 3)} (cold-start / known = ${(100 * ratio).toFixed(0)}%)`,
    );
  }
  const costAware = results.get("per-step:cost-aware")?.filter(inCheckpoints);
  const knownCurve = learning.find((l) => l.scenario === "known")?.checkpoints ?? [];
  if (known && costAware) {
    const d = pairedDiff(known.results, costAware, checkWeights, "success");
    const c = pairedDiff(known.results, costAware, checkWeights, "cost");
    const ratio = costOf(known.results) / Math.max(1e-12, costOf(costAware));
    out.push(
      `known after ${known.runs} learning runs minus per-step:cost-aware on the same runs: success ${fmt(d, 3)}, cost per run ${fmt(c)} USD (${(100 * ratio).toFixed(1)}% of its cost)`,
    );
  }
  const mid = knownCurve.find((c) => c.runs === 1000);
  if (known && mid && mid !== known) {
    const d = pairedDiff(known.results, mid.results, checkWeights, "success");
    out.push(`known after ${known.runs} minus after ${mid.runs} learning runs: success ${fmt(d, 3)}`);
  }
  const hinted = learning.find((l) => l.scenario === "known+hints")?.checkpoints.at(-1);
  if (known && hinted) {
    const d = pairedDiff(hinted.results, known.results, checkWeights, "success");
    const c = pairedDiff(hinted.results, known.results, checkWeights, "cost");
    out.push(
      `known+hints minus known after ${known.runs} learning runs: success ${fmt(d, 3)}, cost per run ${fmt(c)} USD`,
    );
  }
  return out;
}

/** Rows whose router uses the issue's router features (their cached results depend on the router's version of them). */
const usesFeatures = (name: string): boolean => /cache-aware|escalation|hint/.test(name);

/**
 * The learning scenarios: `known` (every model in the scorer), `cold-start` (the strongest unknown) and `known+hints`
 * (as `known`, each step with its item's category as the task hint).
 */
async function learningRows(
  replay: Replay,
  features: RouterFeatures,
  params: ExperimentParams,
  policy: Parameters<typeof learningCurve>[3],
  testBySeed: Map<number, RunSpec[]>,
  cached: <T>(key: string, extra: unknown, compute: () => Promise<T>) => Promise<T>,
  log: (s: string) => void,
) {
  if (params.checkpoints.length === 0) return [];
  const order = byTrainAccuracy(replay);
  const unknownCount = replay.setup.world.models.length <= 2 ? 1 : 3;
  const scenarios = [
    { scenario: "known", unknown: [] as number[], hinted: false },
    { scenario: "cold-start", unknown: order.slice(0, unknownCount), hinted: false },
    // every step carries its item's category as the task hint; the learner learns per-task offsets from the runs
    ...(features.hintMetadata ? [{ scenario: "known+hints", unknown: [] as number[], hinted: true }] : []),
  ];
  // Cache-blind, as the per-step:cost-aware row: the learning curves measure learning, not the cache discount. With
  // holdSpend (the default with a learner): the learner re-allocates the spend of the router without learning instead
  // of raising it, and never spends more in expectation (issue 36).
  const options = { ...features.cacheBlind };
  const out: { scenario: string; checkpoints: { runs: number; results: RunResult[] }[] }[] = [];
  for (const s of scenarios) {
    const bySeed: Awaited<ReturnType<typeof learningCurve>>[] = [];
    for (const seed of params.learningSeeds) {
      bySeed.push(
        await cached(
          `learning:${s.scenario}`,
          {
            seed,
            policy,
            params: [params.learningRuns, params.checkpoints, params.checkpointRuns, params.testRuns],
            learner: LEARNER_VERSION,
          },
          () =>
            learningCurve(
              replay,
              s.scenario,
              s.unknown,
              policy,
              options,
              params,
              seed,
              testBySeed.get(seed)!,
              log,
              s.hinted ? features.hintMetadata : undefined,
            ),
        ),
      );
    }
    out.push({
      scenario: s.scenario,
      checkpoints: params.checkpoints.map((runs, k) => ({
        runs,
        results: bySeed.flatMap((b) => b.checkpoints[k]!.results),
      })),
    });
  }
  return out;
}

await main();
