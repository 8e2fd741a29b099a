/**
 * `npx tsx bench/dev/cache-frontier.ts [--dataset routerbench-subset-11models] [--lambdas 0.5,1,2,3,4]
 *  [--val-runs 400] [--seeds 5] [--test-runs 200] [--blind 1]`
 *
 * The success-vs-cost curves of the cache-blind and the cache-aware per-step router of `npm run bench:agent` over the
 * cost weight (issue 36 item 1): both routers at each lambda on the val runs (seed 9001, as the benchmark's choices)
 * and on the test runs of every seed, and each cache-aware lambda minus the cache-blind row at `--blind` (the lambda
 * the benchmark's val choice gives it), paired on the same test runs with item-bootstrap intervals. Which lambda a
 * claim uses is read off the val columns; the test columns only report.
 */
import { z } from "zod";
import type { RunResult, RunSpec } from "../agent/run-model.js";
import { benchRuns, loadReplay, makeRouter, playRuns, routerCaller, directCaller } from "../agent/rows.js";
import { routerFeatures } from "../agent/features.js";
import { byTrainAccuracy } from "../agent/experiment.js";
import { pairedDiff, runWeights, testPlan } from "../agent/stats.js";
import { decimalFlag, listFlag, runsFlag, scriptFlags, seedsFlag } from "../flags.js";

const values = scriptFlags(
  "bench/dev/cache-frontier.ts",
  {
    dataset: { type: "string" },
    lambdas: { type: "string" },
    "val-runs": { type: "string" },
    seeds: { type: "string" },
    "test-runs": { type: "string" },
    blind: { type: "string" },
  },
  z
    .object({
      dataset: z.string().min(1).default("routerbench-subset-11models"),
      lambdas: listFlag(decimalFlag()).default([0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3, 4]),
      "val-runs": runsFlag(400),
      seeds: seedsFlag(5),
      "test-runs": runsFlag(200),
      blind: decimalFlag().default(1),
    })
    .strict(),
);
const replay = await loadReplay(values.dataset);
const features = routerFeatures(replay);
const { world, split } = replay.setup;
const lambdas = values.lambdas;
const valRuns = benchRuns.val(replay, values["val-runs"]);
const seeds = Array.from({ length: values.seeds }, (_, k) => k + 1);
const testRuns: RunSpec[] = seeds.flatMap((seed) => benchRuns.test(replay, values["test-runs"], seed));
const success = (rs: readonly RunResult[]) => rs.filter((r) => r.success).length / rs.length;
const cost = (rs: readonly RunResult[]) => rs.reduce((t, r) => t + r.costUsd, 0) / rs.length;
const switches = (rs: readonly RunResult[]) => rs.reduce((t, r) => t + r.switches, 0) / rs.length;
const play = (aware: boolean, lambda: number, runs: readonly RunSpec[]) =>
  playRuns(
    replay,
    runs,
    routerCaller(
      makeRouter(replay, {
        policy: { kind: "cost-aware", lambda },
        options: aware ? features.cacheAware! : features.cacheBlind,
      }),
    ),
  );
const strongest = byTrainAccuracy(replay)[0]!;
const baseline = await playRuns(replay, testRuns, directCaller(replay.children[strongest]!));
const weights = runWeights(baseline, split.test, testPlan(split.test));
const test = new Map<string, RunResult[]>();
console.log(`## ${world.name}: val ${valRuns.length} runs, test ${testRuns.length} runs (${seeds.length} seeds)`);
console.log("| router | lambda | val success | val cost/run | test success | test cost/run | test switches/run |");
console.log("|---|---|---|---|---|---|---|");
for (const aware of [false, true]) {
  for (const lambda of lambdas) {
    const v = await play(aware, lambda, valRuns);
    const t = await play(aware, lambda, testRuns);
    test.set(`${aware}/${lambda}`, t);
    console.log(
      `| ${aware ? "cache-aware" : "cache-blind"} | ${lambda} | ${success(v).toFixed(3)} | ${cost(v).toFixed(4)} | ${success(t).toFixed(3)} | ${cost(t).toFixed(4)} | ${switches(t).toFixed(2)} |`,
    );
  }
}
const blind = test.get(`false/${values.blind}`);
if (blind) {
  console.log(`\nPaired on the test runs, cache-aware at each lambda minus cache-blind at lambda ${values.blind}:`);
  const fmt = (e: { value: number; ci95: [number, number] }, d: number) =>
    `${e.value.toFixed(d)} [${e.ci95[0].toFixed(d)}, ${e.ci95[1].toFixed(d)}]`;
  for (const lambda of lambdas) {
    const a = test.get(`true/${lambda}`)!;
    console.log(
      `- lambda ${lambda}: success ${fmt(pairedDiff(a, blind, weights, "success"), 3)}, cost per run ${fmt(pairedDiff(a, blind, weights, "cost"), 4)} USD (${((100 * cost(a)) / cost(blind)).toFixed(1)}% of its cost)`,
    );
  }
}
