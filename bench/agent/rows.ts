/**
 * The replay of a dataset, the runs drawn from its splits, and the callers the agent-run benchmark plays runs
 * through: the real `IrtRouter` (per step, per run, with a learner), or one model called directly
 * (`always:<model>`). Nothing here routes: every choice is the router's.
 */
import type { AIMessage } from "@langchain/core/messages";
import { IrtRouter, type IrtRouterOptions } from "../../src/langchain/index.js";
import type { AbilityLearner } from "../../src/core/contracts/options.js";
import type { PolicyConfig } from "../../src/policy/types.js";
import { callCostUsd } from "./cached-pricing.js";
import { ReplayChatModel, readReplayAnswer, TokenLedger } from "./replay-models.js";
import {
  DEFAULT_RUN_SHAPE,
  drawRuns,
  playRun,
  prefixMessage,
  SimClock,
  type RunContext,
  type RunResult,
  type RunShape,
  type RunSpec,
  type StepCaller,
} from "./run-model.js";
import type { CallPricing } from "./price-types.js";
import { loadAgentSetup, type AgentSetup } from "./setup.js";

/** One dataset's replay: the setup, the run context and one replay model per dataset model. */
export interface Replay {
  readonly setup: AgentSetup;
  readonly ctx: RunContext;
  readonly children: readonly ReplayChatModel[];
}

export function makeReplay(setup: AgentSetup, shape: RunShape, pricing: CallPricing): Replay {
  const ledger = new TokenLedger();
  const ctx: RunContext = {
    world: setup.world,
    shape,
    pricing,
    ledger,
    prefix: prefixMessage(shape, ledger),
    clock: new SimClock(),
  };
  return { setup, ctx, children: setup.world.models.map((_, m) => new ReplayChatModel(setup.world, m, ledger)) };
}

/**
 * A dataset's replay as `npm run bench:agent` plays it: its set-up (loaded with `options`, progress to `log`) under
 * the default run shape, each call billed by `callCostUsd`. The entry and the dev studies start here.
 */
export async function loadReplay(
  dataset: string,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  options: Parameters<typeof loadAgentSetup>[2] = {},
): Promise<Replay> {
  return makeReplay(await loadAgentSetup(dataset, log, options), DEFAULT_RUN_SHAPE, callCostUsd);
}

/**
 * The runs the benchmark draws from each split, with their fixed seeds: `val` (seed 9001, where settings are chosen),
 * `test` of a seed (1000 seed + 1) and the `learning` runs of a seed (1000 seed + 2, train items; `idPrefix` names
 * their runs).
 */
export const benchRuns = {
  val: (replay: Replay, n: number): RunSpec[] =>
    drawRuns(replay.setup.world, replay.setup.split.val, n, 9001, replay.ctx.shape, "val"),
  test: (replay: Replay, n: number, seed: number): RunSpec[] =>
    drawRuns(replay.setup.world, replay.setup.split.test, n, 1000 * seed + 1, replay.ctx.shape, `test${seed}`),
  learning: (replay: Replay, n: number, seed: number, idPrefix = `learn${seed}`): RunSpec[] =>
    drawRuns(replay.setup.world, replay.setup.split.train, n, 1000 * seed + 2, replay.ctx.shape, idPrefix),
};

/** How a row's router is made: its policy, router options beyond the defaults, and the keys of its models. */
export interface RouterSpec {
  readonly policy: PolicyConfig;
  /** Extra router options (cache-awareness, escalation, hints: as the router names them). */
  readonly options?: Partial<IrtRouterOptions>;
  /** Router key of each model (default: its catalog row); cold-start gives the unknown models keys the scorer lacks. */
  readonly keys?: readonly string[];
  readonly learner?: AbilityLearner;
}

/** A router over the replay models, as a user would configure one (prices given, routing text = the step's text). */
export function makeRouter(replay: Replay, spec: RouterSpec): IrtRouter {
  const { setup } = replay;
  const keys = spec.keys ?? setup.keys;
  const models = Object.fromEntries(
    keys.map((key, m) => {
      const { inputPer1M, outputPer1M, cachedInputPer1M } = setup.world.prices[m]!;
      return [key, { model: replay.children[m]!, price: { inputPer1M, outputPer1M, cachedInputPer1M } }];
    }),
  );
  return new IrtRouter({
    models,
    scorer: setup.scorer,
    encoder: setup.encoder,
    policy: spec.policy,
    routingText: { contextChars: 0, maxQueryChars: 1_000_000 },
    cacheSize: setup.world.nItems,
    decisionLogSize: 50_000,
    logger: { warn: () => undefined },
    // the benchmark's grader is the dataset's labels: a trusted, authenticated source with no budget
    feedbackLimits: { sourceBudget: false },
    ...(spec.learner ? { learner: spec.learner } : {}),
    ...spec.options,
  });
}

/** Every call of the run goes through the router, named by the run id. */
export function routerCaller(router: IrtRouter, hint?: (category: string) => Record<string, unknown>): StepCaller {
  return (messages, { run }) =>
    router.invoke(messages, {
      metadata: { irtRouterRunId: run.id, ...(hint ? hint(run.category) : {}) },
    }) as Promise<AIMessage>;
}

/** Every call goes to one model. */
export function directCaller(child: ReplayChatModel): StepCaller {
  return (messages) => child.invoke(messages) as Promise<AIMessage>;
}

/**
 * One model per run, chosen by the router at the run's first call (as LangChain's model-router middleware picks a
 * model once per run); every later call of the run, retries included, goes to that model.
 */
export function perRunCaller(router: IrtRouter, children: readonly ReplayChatModel[]): StepCaller {
  const chosen = new Map<string, number>();
  return async (messages, { run }) => {
    const model = chosen.get(run.id);
    if (model !== undefined) return children[model]!.invoke(messages) as Promise<AIMessage>;
    const reply = (await router.invoke(messages, { metadata: { irtRouterRunId: run.id } })) as AIMessage;
    chosen.set(run.id, readReplayAnswer(reply).model);
    return reply;
  };
}

/** Plays runs in order; `after` sees each result before the next run starts (feedback of a learning router). */
export async function playRuns(
  replay: Replay,
  runs: readonly RunSpec[],
  caller: StepCaller,
  after?: (result: RunResult) => Promise<void>,
): Promise<RunResult[]> {
  const out: RunResult[] = [];
  for (const run of runs) {
    const result = await playRun(replay.ctx, run, caller);
    if (after) await after(result);
    out.push(result);
  }
  return out;
}

/** A learner's view that scores without exploring: checkpoints measure what the router has learned, greedily. */
export function greedyView(
  learner: AbilityLearner & { score: (item: never, ids: readonly string[], explore?: "none") => unknown },
): AbilityLearner {
  return {
    has: (id) => learner.has(id),
    addModel: (id) => learner.addModel(id),
    score: (item, ids) => learner.score(item as never, ids, "none") as ReturnType<AbilityLearner["score"]>,
    observe: (event) => learner.observe(event),
    ...(learner.isRemoved ? { isRemoved: (id: string) => learner.isRemoved!(id) } : {}),
  };
}
