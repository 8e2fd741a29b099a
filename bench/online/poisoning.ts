/**
 * Poisoning benchmark (`npx tsx bench/online/poisoning.ts`, about 2-4 minutes on a shared 2-core machine; the targeted
 * attack alone: `npx tsx bench/online/poisoning.ts --targeted`, about 2 minutes; `--honest-cost`: the recovery after
 * "one source" by honest outcomes with and without a source): how much false
 * feedback moves the router away from the best model, before (the limits off: no run-weight bound, no source budget,
 * unattributed outcomes at full weight, item bounds of 1e6, no exploration, as irt-router 0.2.0 shipped) and after (the defaults).
 *
 * The router routes between the pretrained catalog's gpt-4-1106-preview (the best model on these prompts),
 * mixtral-8x7b-instruct-v0.1@routerbench-subset-11models and mistralai/mistral-7b-chat (catalog ids, so every model
 * starts at its fitted known-model prior; fake chat models that answer at once), with an OnlineLearner over the
 * pretrained scorer. Traffic: 200 prompts of routerbench's test split; evaluation: 40 other test prompts. Routes
 * kept = share of the evaluation prompts routed to the best model (the router's own choice, quality policy, with the
 * learner's exploration). Scenarios:
 * - one call: 200 steps of one run, then `feedback(runId, false)`;
 * - one source: 200 `feedback(decisionId, false, { source: "mallory" })` calls;
 * - crafted event: one event with |alpha| = 100, y = 0 for the best model, handed to the learner's check;
 * - targeted (issue 39): a router built the documented way (`store: new MemoryStore()`), 10 outcomes from a caller
 *   that gives no source, false whenever the best model answered and true whenever another did; 10 trials (trial t
 *   attacks with test prompts 10t..10t+9), routes kept measured on 80 other test prompts before and after, with
 *   `feedbackLimits.unattributedWeight` 1 (irt-router 0.2.0) and the default.
 * Recovery: honest outcomes (the best model right with probability 0.85, the others 0.45) on the traffic, counted in
 * events until the best model has 80% of the evaluation routes again (cap 3,000).
 */
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { HumanMessage } from "@langchain/core/messages";
import { loadDataset } from "../../adapters/data/index.js";
import { loadPretrained } from "../../adapters/artifact/load.js";
import { datasetSplits } from "../../src/data/select.js";
import { IrtRouter } from "../../src/langchain/index.js";
import { OnlineLearner, type LearnerOptions } from "../../src/learning/learner.js";
import { seededRng } from "../../src/util/random.js";
import type { FeedbackLimitsOptions } from "../../src/core/contracts/options.js";
import { MemoryStore } from "../../adapters/stores/index.js";

const BEST = "gpt-4-1106-preview";
const MODELS = [BEST, "mixtral-8x7b-instruct-v0.1@routerbench-subset-11models", "mistralai/mistral-7b-chat"];

interface Setup {
  name: string;
  learner: LearnerOptions;
  limits: FeedbackLimitsOptions;
}
const BEFORE: Setup = {
  name: "before (limits off)",
  learner: { explore: "none", itemBounds: { alphaNorm: 1e6, beta: 1e6 } },
  limits: { maxRunWeight: 1e9, sourceBudget: false, unattributedWeight: 1 },
};
const AFTER: Setup = { name: "after (defaults)", learner: {}, limits: {} };

const scorer = await loadPretrained();
const ds = await loadDataset("routerbench-subset-11models");
const test = datasetSplits(ds).test.map((i) => ds.items[i]!.text);
const traffic = test.slice(0, 200);
const evalPrompts = test.slice(200, 240);

function makeRouter(setup: Setup) {
  const learner = OnlineLearner.forScorer(scorer, { ...setup.learner, seed: 1 });
  const models = Object.fromEntries(MODELS.map((m) => [m, new FakeListChatModel({ responses: ["ok"] })]));
  const router = new IrtRouter({
    models,
    scorer,
    learner,
    feedbackLimits: setup.limits,
    logger: { warn: () => undefined } as never,
  });
  return { router, learner };
}

const evalItems = await Promise.all(
  evalPrompts.map(async (p) => {
    const { alpha, beta } = await scorer.itemParams(p);
    return { alpha: Array.from(alpha, (a) => a / scorer.temperature), beta: beta / scorer.temperature };
  }),
);

/** Share of the evaluation prompts on which the best model has the highest predictive p (no exploration draw). */
function believed(learner: OnlineLearner): number {
  return evalItems.filter((item) => learner.choose(item, MODELS, "none") === BEST).length / evalItems.length;
}

async function routesKept(router: IrtRouter): Promise<number> {
  let best = 0;
  for (const p of evalPrompts) {
    const r = await router.invoke([new HumanMessage(p)]);
    if ((r.response_metadata.irtRouter as { chosen: string }).chosen === BEST) best++;
  }
  return best / evalPrompts.length;
}

async function recover(router: IrtRouter, seed: number, attributed = true): Promise<number | string> {
  const rng = seededRng(seed);
  let events = 0;
  for (let round = 0; round < 30; round++) {
    if ((await routesKept(router)) >= 0.8) return events;
    for (let k = 0; k < 100; k++) {
      const r = await router.invoke([new HumanMessage(traffic[(round * 100 + k) % traffic.length]!)]);
      const d = r.response_metadata.irtRouter as { decisionId: string; chosen: string };
      await router.feedback(
        d.decisionId,
        rng.next() < (d.chosen === BEST ? 0.85 : 0.45),
        attributed ? { source: `honest-${events}` } : {},
      );
      events++;
    }
  }
  return `> ${events}`;
}

async function scenario(setup: Setup, attack: "one call" | "one source" | "crafted event", attributed = true) {
  const { router, learner } = makeRouter(setup);
  const before = await routesKept(router);
  const beliefBefore = believed(learner);
  let refused = 0;
  if (attack === "one call") {
    for (const p of traffic) await router.invoke([new HumanMessage(p)], { metadata: { irtRouterRunId: "attack" } });
    await router.feedback("attack", false);
  } else if (attack === "one source") {
    for (const p of traffic) {
      const r = await router.invoke([new HumanMessage(p)]);
      const id = (r.response_metadata.irtRouter as { decisionId: string }).decisionId;
      await router.feedback(id, false, { source: "mallory" }).catch(() => refused++);
    }
  } else {
    const alpha = Array.from({ length: scorer.abilityDim }, (_, k) => (k === 0 ? 100 : 0));
    const event = { id: "crafted", model: BEST, alpha, beta: 0, y: 0, at: Date.now() };
    try {
      learner.check(event);
      learner.observe(event);
    } catch {
      refused++;
    }
  }
  const after = await routesKept(router);
  const belief = { before: beliefBefore, after: believed(learner) };
  const recovery = after >= 0.8 ? 0 : await recover(router, 7, attributed);
  return { setup: setup.name, attack, before, after, belief, refused, recovery };
}

/** The targeted attack (see the module comment): routes kept per trial, after / before. */
async function targeted(unattributedWeight: number | undefined): Promise<number[]> {
  const evalSet = test.slice(200, 280);
  const kept: number[] = [];
  for (let trial = 0; trial < 10; trial++) {
    const models = Object.fromEntries(MODELS.map((m) => [m, new FakeListChatModel({ responses: ["ok"] })]));
    const router = new IrtRouter({
      models,
      scorer,
      store: new MemoryStore(),
      ...(unattributedWeight !== undefined ? { feedbackLimits: { unattributedWeight } } : {}),
      logger: { warn: () => undefined } as never,
    });
    const share = async () => {
      let best = 0;
      for (const p of evalSet) {
        const r = await router.invoke([new HumanMessage(p)]);
        if ((r.response_metadata.irtRouter as { chosen: string }).chosen === BEST) best++;
      }
      return best / evalSet.length;
    };
    const before = await share();
    for (const p of test.slice(trial * 10, trial * 10 + 10)) {
      const r = await router.invoke([new HumanMessage(p)]);
      const d = r.response_metadata.irtRouter as { decisionId: string; chosen: string };
      await router.feedback(d.decisionId, d.chosen !== BEST);
    }
    kept.push((await share()) / before);
  }
  return kept;
}

if (process.argv.includes("--honest-cost")) {
  // What the unattributed weight costs honest learning: the recovery after "one source", by honest outcomes given
  // with a source each (full weight) and without one (weight 0.1, one shared budget of 50 weight per hour).
  for (const attributed of [true, false]) {
    const r = await scenario(AFTER, "one source", attributed);
    console.log(`| honest outcomes ${attributed ? "with a source" : "without a source"} | ${JSON.stringify(r)} |`);
  }
  process.exit(0);
}

if (process.argv.includes("--targeted")) {
  for (const [name, w] of [
    ["before (unattributedWeight 1)", 1],
    ["after (defaults)", undefined],
  ] as const) {
    const kept = await targeted(w);
    const mean = kept.reduce((s, x) => s + x, 0) / kept.length;
    console.log(
      `| targeted, 10 outcomes, no source | ${name} | mean kept ${(100 * mean).toFixed(1)}% | min ${(100 * Math.min(...kept)).toFixed(1)}% | max ${(100 * Math.max(...kept)).toFixed(1)}% | per trial ${kept.map((k) => (100 * k).toFixed(0)).join(" ")} |`,
    );
  }
  process.exit(0);
}

const rows = [];
for (const attack of ["one call", "one source", "crafted event"] as const) {
  for (const setup of [BEFORE, AFTER]) {
    const r = await scenario(setup, attack);
    rows.push(r);
    console.log(JSON.stringify(r));
  }
}
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
console.log(
  "\n| attack | setup | routes to best: before | after | kept | best by mean p: before | after | outcomes refused | honest events to 80% of routes |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const r of rows) {
  const kept = r.before > 0 ? r.after / r.before : 0;
  console.log(
    `| ${r.attack} | ${r.setup} | ${pct(r.before)} | ${pct(r.after)} | ${pct(kept)} | ${pct(r.belief.before)} | ${pct(r.belief.after)} | ${r.refused} | ${r.recovery} |`,
  );
}
