/**
 * `npx tsx bench/dev/feedback-bias.ts [--dataset routerbench-subset-11models] [--runs 2000] [--eval-runs 400]
 *  [--lambda 1] [--steps-ahead 0] [--seed 1] [--checkpoints 1000,2000] [--learner-options '{}']`
 *
 * Splits what the `online:known` scenario of `npm run bench:agent` learns into its parts (issue 36 item 5). The
 * learning router (Thompson sampling while learning, run feedback with the router's default attribution) plays the
 * learning runs; beside it, a second learner from the same prior is fed, for every call the learning router made,
 * the answering model's recorded label (full information: what a per-step grader would say). At each checkpoint both
 * learners route the first VAL runs greedily, beside the router without a learner. Per model it prints the events
 * the run feedback gave: their total weight, their weighted mean label, and the weighted mean of the recorded labels
 * of the same (model, item) pairs (a gap between the two is a bias of the attribution), and the weight of events
 * that repeat a (run, model, item) already fed back in the same run (a retry on the same model), and the weight and
 * mean recorded label of the failure events (y = 0: blamed steps and tool errors). At each checkpoint it also compares
 * each learned router's choice at every step's first attempt with the static router's on the same val runs: how many
 * differ, the labels gained or lost, and by category. Val runs only.
 */
import { z } from "zod";
import { OnlineLearner } from "../../src/learning/index.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import type { AbilityLearner } from "../../src/core/contracts/options.js";
import type { RunResult } from "../agent/run-model.js";
import { benchRuns, greedyView, loadReplay, makeRouter, playRuns, routerCaller } from "../agent/rows.js";
import { readReplayAnswer } from "../agent/replay-models.js";
import { costAwarePolicy } from "../agent/experiment.js";
import { labelOf } from "../agent/world.js";
import { decimalFlag, listFlag, nonNegativeIntFlag, runsFlag, scriptFlags } from "../flags.js";

const values = scriptFlags(
  "bench/dev/feedback-bias.ts",
  {
    dataset: { type: "string" },
    runs: { type: "string" },
    "eval-runs": { type: "string" },
    lambda: { type: "string" },
    "steps-ahead": { type: "string" },
    seed: { type: "string" },
    checkpoints: { type: "string" },
    "learner-options": { type: "string" },
    "cache-aware": { type: "boolean" },
  },
  z
    .object({
      dataset: z.string().min(1).default("routerbench-subset-11models"),
      runs: runsFlag(2000, 0),
      "eval-runs": runsFlag(400),
      lambda: decimalFlag().default(1),
      "steps-ahead": nonNegativeIntFlag().default(0),
      seed: nonNegativeIntFlag().default(1),
      checkpoints: listFlag(nonNegativeIntFlag()).default([1000, 2000]),
      "learner-options": z.string().default("{}"),
      "cache-aware": z.boolean().default(false),
    })
    .strict(),
);
const replay = await loadReplay(values.dataset);
const { setup } = replay;
const { world, scorer } = setup;
const seed = values.seed;
const stepsAhead = values["steps-ahead"];
const policy = costAwarePolicy(values.lambda, stepsAhead);
// holdSpend off: the study is of what the learner learns at the user's lambda (as measured before it was the default)
const options = { cacheAware: values["cache-aware"], holdSpend: false };
const extra = JSON.parse(values["learner-options"]) as Record<string, unknown>;
const learner = OnlineLearner.forScorer(scorer, { explore: "thompson", seed, ...extra });
const oracle = OnlineLearner.forScorer(scorer, { ...extra });
const learnRuns = benchRuns.learning(replay, values.runs, seed);
const evalRuns = benchRuns.val(replay, values["eval-runs"]);

/** Every call of the learning router: its decision id, item and answering model. */
const calls = new Map<string, { item: number; model: number; run: string; alpha: number[]; beta: number }>();
/** The item parameters of the learning router's latest scored call. */
let lastItem: { alpha: number[]; beta: number } = { alpha: [], beta: 0 };
interface Acc {
  w: number;
  wy: number;
  wLabel: number;
  repeatW: number;
  failW: number;
  failWLabel: number;
}
const acc = new Map<string, Acc>();
const fedInRun = new Set<string>();
const recording: AbilityLearner = {
  has: (id) => learner.has(id),
  addModel: (id) => learner.addModel(id),
  score: (item, ids) => {
    lastItem = { alpha: Array.from(item.alpha), beta: item.beta };
    return learner.score(item, ids);
  },
  observe: (e: FeedbackEvent) => {
    const call = calls.get(e.decisionId!)!;
    const label = labelOf(world, call.item, call.model) >= 0.5 ? 1 : 0;
    const w = e.weight ?? 1;
    const a = acc.get(e.model) ?? { w: 0, wy: 0, wLabel: 0, repeatW: 0, failW: 0, failWLabel: 0 };
    a.w += w;
    a.wy += w * e.y;
    a.wLabel += w * label;
    const key = `${call.run}/${call.model}/${call.item}`;
    if (fedInRun.has(key)) a.repeatW += w;
    fedInRun.add(key);
    if (e.y === 0) {
      a.failW += w;
      a.failWLabel += w * label;
    }
    acc.set(e.model, a);
    return learner.observe(e);
  },
};
const learning = makeRouter(replay, { policy, options, learner: recording });
const catalogId = (m: number): string => {
  const key = setup.keys[m]!;
  const entry = scorer.models.find(
    (s) => s.id === key || (s as { aliases?: readonly string[] }).aliases?.includes(key),
  );
  return entry?.id ?? key;
};
const base = routerCaller(learning);
const summary = (rs: readonly RunResult[]) =>
  `success ${(rs.filter((r) => r.success).length / rs.length).toFixed(3)}, cost/run $${(rs.reduce((t, r) => t + r.costUsd, 0) / rs.length).toFixed(4)}`;
/** The model each router chose at each step's first attempt of the val runs (`run/step` -> model). */
const firstChoices = async (caller: ReturnType<typeof routerCaller>) => {
  const chosen = new Map<string, number>();
  const results = await playRuns(replay, evalRuns, async (messages, call) => {
    const reply = await caller(messages, call);
    if (call.attempt === 0) chosen.set(`${call.run.id}/${call.step}`, readReplayAnswer(reply).model);
    return reply;
  });
  return { results, chosen };
};
const staticPlay = await firstChoices(routerCaller(makeRouter(replay, { policy, options })));
console.log(`no learner (static scorer p): val ${summary(staticPlay.results)}`);
/** Where a learned router's first-attempt choice differs from the static router's: how often, and the labels. */
const differences = (chosen: Map<string, number>): string => {
  let n = 0;
  let dy = 0;
  const pairs = new Map<string, number>();
  const byCategory = new Map<string, { n: number; dy: number }>();
  for (const [key, m] of chosen) {
    const s0 = staticPlay.chosen.get(key)!;
    if (m === s0) continue;
    const [run, step] = [key.slice(0, key.lastIndexOf("/")), Number(key.slice(key.lastIndexOf("/") + 1))];
    const item = evalRuns.find((r) => r.id === run)!.items[step]!;
    n++;
    dy += (labelOf(world, item, m) >= 0.5 ? 1 : 0) - (labelOf(world, item, s0) >= 0.5 ? 1 : 0);
    const c = byCategory.get(world.categories[item]!) ?? { n: 0, dy: 0 };
    c.n++;
    c.dy += (labelOf(world, item, m) >= 0.5 ? 1 : 0) - (labelOf(world, item, s0) >= 0.5 ? 1 : 0);
    byCategory.set(world.categories[item]!, c);
    const name = `${world.models[s0]} -> ${world.models[m]}`;
    pairs.set(name, (pairs.get(name) ?? 0) + 1);
  }
  const top = [...pairs]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([k, v]) => `${k}: ${v}`)
    .join("; ");
  const cats = [...byCategory].map(([k, v]) => `${k}: ${v.n} steps, ${v.dy >= 0 ? "+" : ""}${v.dy}`).join("; ");
  return `${n} of ${chosen.size} steps differ from the static router's choice, label difference ${(dy / Math.max(1, n)).toFixed(3)} per differing step (${top}); by category (steps, labels gained): ${cats}`;
};
let done = 0;
let oracleSeq = 0;
for (const target of values.checkpoints) {
  await playRuns(
    replay,
    learnRuns.slice(done, target),
    async (messages, call) => {
      const reply = await base(messages, call);
      const decision = learning.decisions(1)[0]!;
      const { item, model } = readReplayAnswer(reply);
      calls.set(decision.decisionId, { item, model, run: call.run.id, ...lastItem });
      return reply;
    },
    async (r) => {
      await learning.feedback(r.id, r.success ? 1 : 0, { source: "benchmark-grader" });
    },
  );
  // The oracle learner: every call of these runs, with its recorded label, at the same item parameters.
  for (const d of learning.decisions(50_000).slice().reverse()) {
    const call = calls.get(d.decisionId);
    if (!call || (call as { fed?: boolean }).fed) continue;
    (call as { fed?: boolean }).fed = true;
    oracle.observe({
      id: `o${oracleSeq++}`,
      model: catalogId(call.model),
      alpha: call.alpha,
      beta: call.beta,
      y: labelOf(world, call.item, call.model) >= 0.5 ? 1 : 0,
      at: 0,
    });
  }
  done = target;
  const learned = await firstChoices(
    routerCaller(makeRouter(replay, { policy, options, learner: greedyView(learner as never) })),
  );
  const told = await firstChoices(
    routerCaller(makeRouter(replay, { policy, options, learner: greedyView(oracle as never) })),
  );
  console.log(`\n## after ${target} learning runs`);
  console.log(`run feedback: val ${summary(learned.results)}; ${differences(learned.chosen)}`);
  console.log(`per-step labels of the same calls: val ${summary(told.results)}; ${differences(told.chosen)}`);
  console.log("| model | event weight | mean y | mean label | repeat weight | failure weight | label of failures |");
  console.log("|---|---|---|---|---|---|---|");
  for (const [model, a] of [...acc].sort((x, y) => y[1].w - x[1].w)) {
    console.log(
      `| ${model} | ${a.w.toFixed(0)} | ${(a.wy / a.w).toFixed(3)} | ${(a.wLabel / a.w).toFixed(3)} | ${a.repeatW.toFixed(0)} | ${a.failW.toFixed(1)} | ${(a.failWLabel / Math.max(1e-9, a.failW)).toFixed(3)} |`,
    );
  }
}
