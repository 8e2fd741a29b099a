/**
 * `npx tsx bench/dev/learning-drift.ts [--dataset routerbench-subset-11models] [--runs 2000] [--eval-runs 100]
 *  [--lambda 1] [--seed 1]`
 *
 * Instruments the `online:known` scenario of `npm run bench:agent` (issue 36 item 5): the same learner, router and
 * learning runs (train items, Thompson sampling while learning, run feedback with posterior attribution), and at
 * each checkpoint the first VAL runs played greedily, recording for every step and every model the p the learner
 * predicts (predictive, and at its mean logit), the static scorer's p (the learner's prior mean logit), and the
 * recorded label. Per model it prints the mean of each, the mean logit shift from the prior, the mean logit sd and
 * the share of steps the router chose: where the learned router's p departs from the labels, and in which
 * direction. Val runs only (settings are chosen there); never the test split.
 */
import { z } from "zod";
import { OnlineLearner, type LearnerItem } from "../../src/learning/index.js";
import { sigmoid } from "../../src/learning/posterior.js";
import type { AbilityLearner } from "../../src/core/contracts/options.js";
import { benchRuns, loadReplay, makeRouter, playRuns, routerCaller } from "../agent/rows.js";
import { labelOf } from "../agent/world.js";
import { decimalFlag, listFlag, nonNegativeIntFlag, runsFlag, scriptFlags } from "../flags.js";

const values = scriptFlags(
  "bench/dev/learning-drift.ts",
  {
    dataset: { type: "string" },
    runs: { type: "string" },
    "eval-runs": { type: "string" },
    lambda: { type: "string" },
    seed: { type: "string" },
    checkpoints: { type: "string" },
    "learner-options": { type: "string" },
  },
  z
    .object({
      dataset: z.string().min(1).default("routerbench-subset-11models"),
      runs: runsFlag(2000, 0),
      "eval-runs": runsFlag(100),
      lambda: decimalFlag().default(1),
      seed: nonNegativeIntFlag().default(1),
      checkpoints: listFlag(nonNegativeIntFlag()).default([0, 250, 1000, 2000]),
      "learner-options": z.string().default("{}"),
    })
    .strict(),
);
const replay = await loadReplay(values.dataset);
const { world, scorer, keys } = replay.setup;
const seed = values.seed;
const policy = { kind: "cost-aware" as const, lambda: values.lambda };
const extra = JSON.parse(values["learner-options"]) as Record<string, unknown>;
const learner = OnlineLearner.forScorer(scorer, { explore: "thompson", seed, ...extra });
const prior = OnlineLearner.forScorer(scorer, { ...extra });
const learnRuns = benchRuns.learning(replay, values.runs, seed);
const evalRuns = benchRuns.val(replay, values["eval-runs"]);
const learning = makeRouter(replay, { policy, options: { cacheAware: false, holdSpend: false }, learner });
// The learner knows the models by the scorer's ids (a router key may be one of its aliases).
const keyOf = new Map<string, number>();
keys.forEach((k, m) => {
  keyOf.set(k, m);
  const entry = scorer.models.find((s) => s.id === k || (s as { aliases?: readonly string[] }).aliases?.includes(k));
  if (entry) keyOf.set(entry.id, m);
});

interface Acc {
  n: number;
  pred: number;
  plug: number;
  stat: number;
  label: number;
  shift: number;
  sd: number;
  chosen: number;
}
let current: { item: number } | undefined;
let stats = new Map<string, Acc>();
/** A greedy view that records, for each scored step, every model's predicted and static p and the label. */
const recording: AbilityLearner = {
  has: (id) => learner.has(id),
  addModel: (id) => learner.addModel(id),
  observe: (e) => learner.observe(e),
  score: (item: LearnerItem, ids: readonly string[]) => {
    const got = learner.score(item, ids, "none");
    const base = prior.score(item, ids, "none");
    got.forEach((s, k) => {
      const m = keyOf.get(s.model)!;
      const y = labelOf(world, current!.item, m);
      if (!Number.isFinite(y)) return;
      const a = stats.get(s.model) ?? { n: 0, pred: 0, plug: 0, stat: 0, label: 0, shift: 0, sd: 0, chosen: 0 };
      a.n++;
      a.pred += s.p;
      a.plug += sigmoid(s.logitMean);
      a.stat += sigmoid(base[k]!.logitMean);
      a.label += y;
      a.shift += s.logitMean - base[k]!.logitMean;
      a.sd += s.logitSd;
      stats.set(s.model, a);
    });
    return got;
  },
};
const evalRouter = makeRouter(replay, { policy, options: { cacheAware: false, holdSpend: false }, learner: recording });
const caller = routerCaller(evalRouter);
{
  const fixed = await playRuns(
    replay,
    evalRuns,
    routerCaller(makeRouter(replay, { policy, options: { cacheAware: false } })),
  );
  const success = fixed.filter((r) => r.success).length / fixed.length;
  const cost = fixed.reduce((t, r) => t + r.costUsd, 0) / fixed.length;
  console.log(
    `## the router without a learner (static scorer p): val success ${success.toFixed(3)}, cost/run $${cost.toFixed(4)}`,
  );
}
let done = 0;
for (const target of values.checkpoints) {
  await playRuns(replay, learnRuns.slice(done, target), routerCaller(learning), async (r) => {
    await learning.feedback(r.id, r.success ? 1 : 0);
  });
  done = target;
  stats = new Map();
  let steps = 0;
  const chosen = new Map<number, number>();
  // Per model, on the steps it answered: the p the router predicted for it and its label (winner's curse check).
  const onChosen = new Map<number, { n: number; p: number; y: number }>();
  const results = await playRuns(replay, evalRuns, async (messages, call) => {
    current = { item: call.run.items[call.step]! };
    const reply = await caller(messages, call);
    const decision = evalRouter.decisions(1)[0]!;
    const m = keyOf.get(decision.chosen)!;
    const chosen = decision.candidates.find((c) => c.id === decision.chosen)!;
    const a = onChosen.get(m) ?? { n: 0, p: 0, y: 0 };
    a.n++;
    a.p += chosen.p;
    a.y += labelOf(world, current.item, m);
    onChosen.set(m, a);
    return reply;
  });
  for (const r of results)
    for (const m of r.models) {
      chosen.set(m, (chosen.get(m) ?? 0) + 1);
      steps++;
    }
  const success = results.filter((r) => r.success).length / results.length;
  const cost = results.reduce((t, r) => t + r.costUsd, 0) / results.length;
  console.log(`\n## after ${target} learning runs: val success ${success.toFixed(3)}, cost/run $${cost.toFixed(4)}`);
  console.log(
    "| model | chosen | label | static p | learner p (predictive) | learner p (mean logit) | logit shift | logit sd |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  console.log(
    `on the steps each model answered (model: steps, mean p the router predicted, mean label): ${[...onChosen]
      .map(([m, a]) => `${world.models[m]}: ${a.n}, ${(a.p / a.n).toFixed(3)}, ${(a.y / a.n).toFixed(3)}`)
      .join("; ")}`,
  );
  for (const [model, a] of [...stats].sort((x, y) => y[1].label - x[1].label)) {
    const m = keyOf.get(model)!;
    const f = (v: number) => (v / a.n).toFixed(3);
    console.log(
      `| ${world.models[m]} | ${(((chosen.get(m) ?? 0) / steps) * 100).toFixed(1)}% | ${f(a.label)} | ${f(a.stat)} | ${f(a.pred)} | ${f(a.plug)} | ${f(a.shift)} | ${f(a.sd)} |`,
    );
  }
}
