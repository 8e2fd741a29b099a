/**
 * `npx tsx bench/dev/learning-cost.ts [--dataset routerbench-subset-11models] [--runs 2000] [--eval-runs 400]
 *  [--lambda 1] [--steps-ahead 6] [--seed 1] [--checkpoints 0,1000,2000] [--eval-lambdas 0.75,1.25] [--hold]
 *  [--encoder use-lite|static]`
 *
 * Why the `online:known` router of `npm run bench:agent` costs more than the same router without a learner (issue 36
 * item 5). The learner, router and learning runs of that scenario (train items, Thompson sampling while learning,
 * run feedback); at each checkpoint the first VAL runs are played greedily by the router reading the learner's p in
 * two ways: its predictive p (the posterior integrated over the logit's uncertainty, which is shrunk towards 0.5 by
 * the prior's variance and less so as the variance falls) and the p at its mean logit (the static scorer's p before
 * any feedback). Beside them the router without a learner. Per router it prints success and cost per run, the mean
 * over first attempts of the run factor max(p)^stepsAhead the policy weighs a step's success by, the share of steps
 * each model answered, and GPT-4's mean p. `--eval-lambdas` plays the same routers at other lambdas (where the learned
 * router sits on the static router's success-vs-cost curve); `--hold` gives the learning and learned routers the
 * router option `holdSpend` (and plays the learned router without it too; without `--hold` both run with
 * `holdSpend: false`). Val runs only.
 */
import { z } from "zod";
import { OnlineLearner, type LearnerItem } from "../../src/learning/index.js";
import { sigmoid } from "../../src/learning/posterior.js";
import type { AbilityLearner } from "../../src/core/contracts/options.js";
import type { RunResult } from "../agent/run-model.js";
import { benchRuns, greedyView, loadReplay, makeRouter, playRuns, routerCaller } from "../agent/rows.js";
import { readReplayAnswer } from "../agent/replay-models.js";
import { costAwarePolicy } from "../agent/experiment.js";
import { decimalFlag, listFlag, nonNegativeIntFlag, runsFlag, scriptFlags } from "../flags.js";

const values = scriptFlags(
  "bench/dev/learning-cost.ts",
  {
    dataset: { type: "string" },
    runs: { type: "string" },
    "eval-runs": { type: "string" },
    lambda: { type: "string" },
    "steps-ahead": { type: "string" },
    seed: { type: "string" },
    checkpoints: { type: "string" },
    "eval-lambdas": { type: "string" },
    hold: { type: "boolean" },
    encoder: { type: "string" },
  },
  z
    .object({
      dataset: z.string().min(1).default("routerbench-subset-11models"),
      runs: runsFlag(2000, 0),
      "eval-runs": runsFlag(400),
      lambda: decimalFlag().default(1),
      "steps-ahead": nonNegativeIntFlag().default(6),
      seed: nonNegativeIntFlag().default(1),
      checkpoints: listFlag(nonNegativeIntFlag()).default([0, 1000, 2000]),
      "eval-lambdas": listFlag(decimalFlag()).default([]),
      hold: z.boolean().default(false),
      encoder: z.enum(["use-lite", "static"]).default("use-lite"),
    })
    .strict(),
);
const replay = await loadReplay(values.dataset, undefined, {
  encoder: values.encoder,
});
const { setup } = replay;
const { world, scorer } = setup;
const seed = values.seed;
const stepsAhead = values["steps-ahead"];
const policy = costAwarePolicy(values.lambda, stepsAhead);
const options = { cacheAware: false, holdSpend: values.hold };
const learner = OnlineLearner.forScorer(scorer, { explore: "thompson", seed });
const learning = makeRouter(replay, { policy, options, learner });
const learnRuns = benchRuns.learning(replay, values.runs, seed);
const evalRuns = benchRuns.val(replay, values["eval-runs"]);
const strongest = world.models.reduce(
  (a, _, m) => (world.prices[m]!.inputPer1M > world.prices[a]!.inputPer1M ? m : a),
  0,
);

/** The learner read at its mean logit: p = sigmoid(mean), no integration over the logit's uncertainty. */
const atMean: AbilityLearner = {
  ...greedyView(learner as never),
  score: (item, ids) =>
    learner
      .score(item as LearnerItem, ids, "none")
      .map((s) => ({ ...s, p: sigmoid(s.logitMean), score: sigmoid(s.logitMean) })),
};

/** Plays the val runs through a router; returns its summary line. */
async function evaluate(
  name: string,
  learnerView?: AbilityLearner,
  lambda = policy.lambda,
  routerOptions: typeof options = options,
): Promise<string> {
  const router = makeRouter(replay, {
    policy: { ...policy, lambda },
    options: routerOptions,
    ...(learnerView ? { learner: learnerView } : {}),
  });
  const caller = routerCaller(router);
  let factor = 0;
  let firsts = 0;
  let strongP = 0;
  const shares = new Map<number, number>();
  let steps = 0;
  const results: RunResult[] = await playRuns(replay, evalRuns, async (messages, call) => {
    const reply = await caller(messages, call);
    const d = router.decisions(1)[0]!;
    if (call.attempt === 0) {
      const maxP = Math.max(...d.candidates.map((c) => c.p));
      factor += maxP ** stepsAhead;
      strongP += d.candidates.find((c) => c.id === setup.keys[strongest])?.p ?? Number.NaN;
      firsts++;
    }
    const m = readReplayAnswer(reply).model;
    shares.set(m, (shares.get(m) ?? 0) + 1);
    steps++;
    return reply;
  });
  const success = results.filter((r) => r.success).length / results.length;
  const cost = results.reduce((t, r) => t + r.costUsd, 0) / results.length;
  const top = [...shares]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([m, n]) => `${world.models[m]} ${((100 * n) / steps).toFixed(0)}%`)
    .join(", ");
  return `| ${name} | ${success.toFixed(3)} | ${cost.toFixed(4)} | ${(factor / firsts).toFixed(3)} | ${(strongP / firsts).toFixed(3)} | ${top} |`;
}

console.log(
  `seed ${seed}, ${JSON.stringify(policy)}, ${evalRuns.length} val runs; strongest-priced ${world.models[strongest]}`,
);
console.log("| router | success | cost/run | mean max(p)^k | mean p strongest | steps by model |");
console.log("|---|---|---|---|---|---|");
const evalLambdas = values["eval-lambdas"];
console.log(await evaluate("no learner"));
for (const l of evalLambdas) console.log(await evaluate(`no learner, lambda ${l}`, undefined, l));
let done = 0;
for (const target of values.checkpoints) {
  await playRuns(replay, learnRuns.slice(done, target), routerCaller(learning), async (r) => {
    await learning.feedback(r.id, r.success ? 1 : 0, { source: "benchmark-grader" });
  });
  done = target;
  console.log(await evaluate(`predictive p after ${target}`, greedyView(learner as never)));
  console.log(await evaluate(`mean-logit p after ${target}`, atMean));
  if (values.hold)
    console.log(
      await evaluate(`predictive p after ${target}, without holdSpend`, greedyView(learner as never), policy.lambda, {
        cacheAware: false,
        holdSpend: false,
      }),
    );
  for (const l of evalLambdas)
    console.log(await evaluate(`predictive p after ${target}, lambda ${l}`, greedyView(learner as never), l));
}
