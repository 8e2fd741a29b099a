/**
 * The built-in demo (`irt-router demo`, `npm start`): an agent's steps, the 45 example tasks of {@link DEMO_TASKS},
 * routed by a real {@link IrtRouter} among six catalog models at their list prices, with simulated children. It needs
 * no dataset and no network. Outcomes are simulated: a step succeeds with the probability the scorer gives the
 * chosen model (its catalog ability), drawn from a seeded generator, so the demo shows how the router decides, what
 * that spends, and how it learns a model it did not know, not how good any real model is.
 */
import type { QueryEncoder } from "../encoders/types.js";
import { createRng, type Rng } from "../util/random.js";
import { IrtRouter } from "../langchain/model/router.js";
import type { RouteDecision } from "../core/contracts/route-decision.js";
import { OnlineLearner } from "../learning/learner.js";
import type { FeedbackEvent } from "../learning/events.js";
import { expectedCostUsd } from "../policy/expected-cost.js";
import { listPrice } from "../policy/prices.js";
import { estimateTokens } from "../policy/tokens.js";
import type { ModelPrice } from "../data/types.js";
import type { Scorer } from "../scorer/types.js";
import { SIMULATED_OUTPUT_TOKENS, SimulatedChatModel } from "./simulated-model.js";
import { DEMO_TASKS, type DemoTask } from "./tasks.js";

/** The catalog models the demo routes among (each has a list price). */
export const DEMO_MODELS = [
  "gpt-4-1106-preview",
  "claude-v2",
  "gpt-3.5-turbo-1106",
  "claude-instant-v1",
  "meta/llama-2-70b-chat",
  "mistralai/mixtral-8x7b-chat",
] as const;

/** The model the learning part adds: unknown to the scorer, as able as the strongest demo model, at a mid price. */
export const DEMO_NEW_MODEL = { id: "acme-new-model", price: { inputPer1M: 1, outputPer1M: 3 } } as const;

/** The demo's policy: a correct answer is worth 5 cents. */
export const DEMO_POLICY = { kind: "cost-aware", valuePerSuccessUsd: 0.05 } as const;

export interface AgentDemoOptions {
  readonly scorer: Scorer;
  /** The scorer's encoder (omit when the scorer embeds text itself). */
  readonly encoder?: QueryEncoder;
  readonly seed?: number;
  /** Rounds of the learning part (default 12); each routes every task once, in runs of `runLength` steps (default 1). */
  readonly rounds?: number;
  readonly runLength?: number;
}

/** One routed step of the first part. */
export interface DemoStep {
  readonly task: DemoTask;
  readonly decision: RouteDecision;
  /** The simulated outcome. */
  readonly ok: boolean;
}

/** Totals of a way of routing the tasks once: spend and expected correct answers (the sum of the chosen p). */
export interface DemoTotals {
  readonly spendUsd: number;
  readonly expectedCorrect: number;
}

export interface DemoRound {
  readonly round: number;
  /** Share of the round's steps routed to the new model. */
  readonly shareToNew: number;
  /** Mean simulated p of the chosen models (what the round's answers are worth). */
  readonly meanP: number;
  readonly spendUsd: number;
}

export interface AgentDemoReport {
  readonly policy: string;
  readonly strongest: string;
  readonly steps: readonly DemoStep[];
  readonly routed: DemoTotals;
  readonly strongestOnly: DemoTotals;
  readonly learning: {
    readonly newModel: string;
    readonly twinOf: string;
    readonly rounds: readonly DemoRound[];
    /** The feedback events the learning router recorded, in order (what a store would hold; the report replays them). */
    readonly events: readonly FeedbackEvent[];
  };
}

/** Runs both parts of the demo: routing the tasks once, then learning a new model from run feedback. */
export async function runAgentDemo(options: AgentDemoOptions): Promise<AgentDemoReport> {
  const rng = createRng(options.seed ?? 1);
  const router = new IrtRouter({
    models: demoModels(),
    scorer: options.scorer,
    encoder: options.encoder,
    policy: DEMO_POLICY,
  });
  // The scorer's p of every model for every task: what the simulation draws outcomes from.
  const truth = new Map<string, Map<string, number>>();
  const steps: DemoStep[] = [];
  for (const task of DEMO_TASKS) {
    const reply = await router.invoke(task.text, { metadata: { irtRouterRunId: `demo-${task.subtask}` } });
    const decision = reply.response_metadata.irtRouter as RouteDecision;
    truth.set(task.id, new Map(decision.candidates.map((c) => [c.id, c.p])));
    steps.push({ task, decision, ok: rng.next() < truth.get(task.id)!.get(decision.chosen)! });
  }
  const strongest = strongestModel(truth);
  const routed = totals(
    steps.map((s) => [s.task, s.decision.chosen]),
    truth,
  );
  const strongestOnly = totals(
    steps.map((s) => [s.task, strongest]),
    truth,
  );
  const { rounds, events } = await learningRounds(options, truth, strongest, rng);
  return {
    policy: router.policyName,
    strongest,
    steps,
    routed,
    strongestOnly,
    learning: { newModel: DEMO_NEW_MODEL.id, twinOf: strongest, rounds, events },
  };
}

function demoModels(extra: Record<string, { model: SimulatedChatModel; price: ModelPrice }> = {}) {
  const models: Record<string, { model: SimulatedChatModel; price: ModelPrice }> = {};
  for (const id of DEMO_MODELS) models[id] = { model: new SimulatedChatModel(id), price: listPrice(id)! };
  return { ...models, ...extra };
}

/** The demo model with the highest mean p over the tasks. */
function strongestModel(truth: ReadonlyMap<string, ReadonlyMap<string, number>>): string {
  const mean = (id: string) => [...truth.values()].reduce((s, ps) => s + ps.get(id)!, 0) / truth.size;
  return [...DEMO_MODELS].sort((a, b) => mean(b) - mean(a))[0]!;
}

function stepCost(task: DemoTask, model: string): number {
  const price = model === DEMO_NEW_MODEL.id ? DEMO_NEW_MODEL.price : listPrice(model)!;
  return expectedCostUsd({
    inputTokens: estimateTokens(task.text),
    expectedOutputTokens: SIMULATED_OUTPUT_TOKENS,
    price,
  });
}

function totals(
  choices: readonly (readonly [DemoTask, string])[],
  truth: ReadonlyMap<string, ReadonlyMap<string, number>>,
): DemoTotals {
  let spendUsd = 0;
  let expectedCorrect = 0;
  for (const [task, model] of choices) {
    spendUsd += stepCost(task, model);
    expectedCorrect += truth.get(task.id)!.get(model)!;
  }
  return { spendUsd, expectedCorrect };
}

/**
 * The learning part: the same tasks routed again, round after round, by a router with an online learner (Thompson
 * sampling) that also has {@link DEMO_NEW_MODEL}, unknown to the scorer and so scored at the population average at
 * first; it is as able as the strongest model (its simulated p is that model's). Each run of `runLength` consecutive
 * steps gets one outcome, `router.feedback(runId, allStepsOk)`. With runs of one step the demo learns within a dozen
 * rounds; with runs of 3 all-or-nothing outcomes it needs far more (each step is credited with the run's outcome).
 */
async function learningRounds(
  options: AgentDemoOptions,
  truth: ReadonlyMap<string, ReadonlyMap<string, number>>,
  twin: string,
  rng: Rng,
): Promise<{ rounds: DemoRound[]; events: readonly FeedbackEvent[] }> {
  const learner = OnlineLearner.forScorer(options.scorer, { explore: "thompson", seed: options.seed ?? 1 });
  const router = new IrtRouter({
    models: demoModels({
      [DEMO_NEW_MODEL.id]: { model: new SimulatedChatModel(DEMO_NEW_MODEL.id), price: DEMO_NEW_MODEL.price },
    }),
    scorer: options.scorer,
    encoder: options.encoder,
    policy: DEMO_POLICY,
    learner,
    // the demo's own grader is the only feedback source, and trusted: no budget (it gives more than 50 outcomes an hour)
    feedbackLimits: { sourceBudget: false },
    logger: { warn: () => undefined }, // the new model's "not in the catalog" warning is the point of the demo
  });
  const pOf = (task: DemoTask, model: string) => truth.get(task.id)!.get(model === DEMO_NEW_MODEL.id ? twin : model)!;
  const runLength = options.runLength ?? 1;
  const rounds: DemoRound[] = [];
  for (let round = 1; round <= (options.rounds ?? 12); round++) {
    let toNew = 0;
    let pSum = 0;
    let spendUsd = 0;
    for (let start = 0; start < DEMO_TASKS.length; start += runLength) {
      const runId = `learn-${round}-${start}`;
      let allOk = true;
      for (const task of DEMO_TASKS.slice(start, start + runLength)) {
        const reply = await router.invoke(task.text, { metadata: { irtRouterRunId: runId } });
        const chosen = (reply.response_metadata.irtRouter as RouteDecision).chosen;
        const p = pOf(task, chosen);
        allOk = rng.next() < p && allOk;
        toNew += Number(chosen === DEMO_NEW_MODEL.id);
        pSum += p;
        spendUsd += stepCost(task, chosen);
      }
      // the demo grades its own runs: a trusted source, at full weight (an unattributed outcome weighs 0.1)
      await router.feedback(runId, allOk, { source: "demo-grader" });
    }
    rounds.push({ round, shareToNew: toNew / DEMO_TASKS.length, meanP: pSum / DEMO_TASKS.length, spendUsd });
  }
  return { rounds, events: router.feedbackEvents ?? [] };
}

/** The demo's report as text: each step's choice and why, the spend against always-strongest, the learning rounds. */
export function formatAgentDemo(report: AgentDemoReport): string {
  const usd = (x: number) => `$${x.toFixed(4)}`;
  const lines = [
    `Built-in demo: ${DEMO_TASKS.length} agent steps (coding, math, writing, retrieval, chit-chat) routed among ${DEMO_MODELS.length} models`,
    `at list prices, policy ${report.policy}, pretrained scorer. Answers and outcomes are simulated (no API calls).`,
    "",
    "step            chosen                        p      expected cost   runner-up",
  ];
  for (const { task, decision } of report.steps) {
    const chosen = decision.candidates[0]!;
    const next = decision.candidates[1];
    const why = next ? `${next.id} (p ${next.p.toFixed(2)}, ${usd(next.expectedCost)})` : "";
    lines.push(
      `${task.id.padEnd(15)} ${chosen.id.padEnd(29)} ${chosen.p.toFixed(2)}   ${usd(chosen.expectedCost).padStart(13)}   ${why}`,
    );
  }
  const share = report.routed.spendUsd / report.strongestOnly.spendUsd;
  lines.push(
    "",
    `routed:                 ${usd(report.routed.spendUsd)} for the ${DEMO_TASKS.length} steps, expected correct ${report.routed.expectedCorrect.toFixed(1)}`,
    `always ${report.strongest}: ${usd(report.strongestOnly.spendUsd)}, expected correct ${report.strongestOnly.expectedCorrect.toFixed(1)}`,
    `the router spends ${(share * 100).toFixed(0)}% of always-${report.strongest}'s cost.`,
    "",
    `Learning: ${report.learning.newModel} joins, unknown to the scorer (it starts at the average model's ability); it is as able`,
    `as ${report.learning.twinOf} at $${DEMO_NEW_MODEL.price.inputPer1M}/$${DEMO_NEW_MODEL.price.outputPer1M} per 1M input/output tokens. Each task is one run;`,
    `its outcome is fed back (router.feedback(runId, ok)), and Thompson sampling tries the new model while it is uncertain.`,
    "round   routed to the new model   mean p of the chosen   spend",
    ...report.learning.rounds.map(
      (r) =>
        `${String(r.round).padStart(5)}   ${`${(r.shareToNew * 100).toFixed(0)}%`.padStart(23)}   ${r.meanP.toFixed(3).padStart(20)}   ${usd(r.spendUsd)}`,
    ),
  );
  return `${lines.join("\n")}\n`;
}
