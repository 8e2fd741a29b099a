/**
 * Issue 20 item 4: which run-attribution mode of `router.feedback(runId, ...)` learns best, measured on val runs of
 * the agent-run benchmark (`npm run bench:agent -- --attribution`).
 */
import type { FeedbackOptions } from "../../src/core/feedback/outcome-events.js";
import { describePolicy } from "../../src/policy/schema.js";
import { drawRuns, type RunResult } from "./run-model.js";
import type { Replay } from "./rows.js";
import {
  byTrainAccuracy,
  costOf,
  learningCurve,
  successOf,
  tuneOnVal,
  type Cached,
  type ExperimentParams,
  type RouterFeatures,
} from "./experiment.js";

/** The modes compared (the router's options for a run's outcome). */
export const ATTRIBUTION_MODES: readonly { name: string; attribution: NonNullable<FeedbackOptions["attribution"]> }[] =
  [
    { name: "every", attribution: { mode: "every", toolErrorsAsFailures: false } },
    { name: "last", attribution: { mode: "last", toolErrorsAsFailures: false } },
    { name: "discounted(0.7)", attribution: { mode: "discounted", discount: 0.7, toolErrorsAsFailures: false } },
    { name: "every + tool errors", attribution: { mode: "every", toolErrorsAsFailures: true } },
    {
      name: "discounted(0.7) + tool errors",
      attribution: { mode: "discounted", discount: 0.7, toolErrorsAsFailures: true },
    },
    { name: "posterior + tool errors", attribution: { mode: "posterior", toolErrorsAsFailures: true } },
  ];

/**
 * For each mode and scenario (`known`, `cold-start`), learns from train runs (one seed) and plays the val runs at
 * 250 and 1,000 learning runs; prints a table of val run success and cost per run.
 */
export async function attributionStudy(
  replay: Replay,
  features: RouterFeatures,
  params: ExperimentParams,
  cached: Cached,
  log: (s: string) => void,
): Promise<void> {
  const choice = await tuneOnVal(replay, features, params, cached, log);
  const policy = choice.costAware;
  const { world, split } = replay.setup;
  const valRuns = drawRuns(world, split.val, Math.min(params.valRuns, 200), 9101, replay.ctx.shape, "attr-val");
  const order = byTrainAccuracy(replay);
  const unknown = order.slice(0, world.models.length <= 2 ? 1 : 3);
  const study: ExperimentParams = {
    ...params,
    learningRuns: 1000,
    checkpoints: [0, 250, 1000],
    checkpointRuns: valRuns.length,
  };
  // holdSpend off: the modes are compared on what the learner learns at the chosen lambda (as first measured)
  const options = { ...features.cacheBlind, holdSpend: false };
  const lines = [
    "| scenario | attribution | val success before learning | after 250 runs | after 1,000 runs | cost per run after 1,000 |",
    "|---|---|---|---|---|---|",
  ];
  for (const scenario of [
    { name: "known", unknown: [] as number[] },
    { name: "cold-start", unknown },
  ]) {
    for (const mode of ATTRIBUTION_MODES) {
      const curve = await cachedCurve(cached, `attribution:${scenario.name}:${mode.name}`, () =>
        learningCurve(
          replay,
          scenario.name,
          scenario.unknown,
          policy,
          options,
          { ...study, attribution: mode.attribution },
          1,
          valRuns,
          log,
        ),
      );
      const [z, a, b] = curve;
      lines.push(
        `| ${scenario.name} | ${mode.name} | ${successOf(z!).toFixed(3)} | ${successOf(a!).toFixed(3)} | ${successOf(b!).toFixed(3)} | ${costOf(b!).toFixed(4)} |`,
      );
    }
  }
  process.stdout.write(
    `## ${world.name}: run attribution on val runs (${valRuns.length} runs, seed 1, ${describePolicy(policy)})\n\n${lines.join("\n")}\n`,
  );
}

/** A learning curve's checkpoint results, cached as one list of runs per checkpoint. */
async function cachedCurve(
  cached: Cached,
  key: string,
  compute: () => ReturnType<typeof learningCurve>,
): Promise<RunResult[][]> {
  const flat = await cached(key, async () => {
    const curve = await compute();
    return curve.checkpoints.flatMap((c, k) => c.results.map((r) => ({ ...r, checkpoint: k })));
  });
  const byCheckpoint: RunResult[][] = [];
  for (const r of flat as (RunResult & { checkpoint: number })[]) (byCheckpoint[r.checkpoint] ??= []).push(r);
  return byCheckpoint;
}
