/**
 * A generated bank on which the item model is wrong about the model being calibrated
 * (`npx tsx bench/dev/calibration-misspecified.ts [-- --seeds 100]`, under a minute): half the bank is highly
 * discriminating items (alpha (3, 0), difficulty uniform in [-1, 1]) that the model answers at 50% whatever their
 * difficulty, half easy weakly discriminating items (alpha (0.3, 0.3), beta -1) that it answers at 95%. Per probe rule
 * and seed (the seed draws the model's answers and the random order): the probes until the predicted bank accuracy is
 * first within 3 points of the true one (cap 200; 201 = never), and the error after 10, 25 and 50 probes. Prints the
 * medians and means over seeds 1..N and each rule's mean paired difference from random order (same seed: same
 * answers, same random order) with a 95% bootstrap interval over the seeds (2,000 resamples, seed 12345).
 */
import { z } from "zod";
import { calibrateModel, probeBankFrom, type CalibrationOptions } from "../../src/learning/new-model-calibration.js";
import { OnlineLearner } from "../../src/learning/learner.js";
import { ItemTracker } from "../../src/learning/tracker.js";
import { seededRng } from "../../src/util/random.js";
import { mdTable } from "../perf/section.js";
import { MAX_SEEDS, positiveIntFlag, scriptFlags } from "../flags.js";

const { seeds } = scriptFlags(
  "bench/dev/calibration-misspecified.ts",
  { seeds: { type: "string" } },
  // at least 2: the bootstrap interval over the seeds needs two
  z.object({ seeds: positiveIntFlag(undefined, { min: 2, max: MAX_SEEDS }).default(100) }).strict(),
);

const items: { id: string; alpha: number[]; beta: number; q: number }[] = [];
const rng = seededRng(7);
for (let i = 0; i < 200; i++) items.push({ id: `x${i}`, alpha: [3, 0], beta: 2 * rng.next() - 1, q: 0.5 });
for (let i = 0; i < 200; i++) items.push({ id: `y${i}`, alpha: [0.3, 0.3], beta: -1, q: 0.95 });
const bank = probeBankFrom("generated", items);
const truth = items.reduce((a, it) => a + it.q, 0) / items.length;
const known = [
  { id: "a", ability: [0.5, 0] },
  { id: "b", ability: [-0.5, 0.2] },
  { id: "c", ability: [0, -0.3] },
  { id: "d", ability: [0.2, 0.4] },
];
const CAP = 200;
const AT = [10, 25, 50] as const;

/** Probes to within 3 points, and the error (points) after each of AT probes. */
async function run(options: Partial<CalibrationOptions>, seed: number): Promise<number[]> {
  const learner = new OnlineLearner(known);
  learner.addModel("new");
  const tracker = new ItemTracker(learner.posterior("new"), bank.alphas, bank.betas);
  const answers = seededRng(1000 + seed);
  const draws = new Map(items.map((it) => [it.id, answers.next() < it.q ? 1 : 0]));
  const error = () => 100 * Math.abs(tracker.predictedAccuracy() - truth);
  let first = error() <= 3 ? 0 : -1;
  const at: number[] = [];
  await calibrateModel({
    learner,
    modelId: "new",
    probes: bank,
    budget: CAP,
    targetSd: 0,
    seed,
    ...options,
    ask: async (probe) => draws.get(probe.id)!,
    onProgress: (p) => {
      const e = error();
      if (first < 0 && e <= 3) first = p.asked;
      if ((AT as readonly number[]).includes(p.asked)) at.push(e);
    },
  });
  tracker.dispose();
  return [first < 0 ? CAP + 1 : first, ...at];
}

const rules: Record<string, Partial<CalibrationOptions>> = {
  random: { strategy: "random" },
  "accuracy-targeted throughout (the earlier default)": { adaptiveProbes: "all" },
  "accuracy, 50% random from the start": { adaptiveProbes: "all", randomShare: 0.5 },
  "accuracy, 50% random on conflict": { adaptiveProbes: "all", randomShare: 0.5, mixRandom: "on-conflict" },
  ...Object.fromEntries(
    [1, 2, 3, 5, 10].map((k) => [
      `accuracy for ${k} in the random order's first places, then it`,
      { adaptiveProbes: k, randomFirst: 0 },
    ]),
  ),
  ...Object.fromEntries(
    [3, 5, 10].map((j) => [
      `${j} random, then accuracy for 1 in the random order's place, then it${j === 5 ? " (the default)" : ""}`,
      { adaptiveProbes: 1, randomFirst: j },
    ]),
  ),
  ...Object.fromEntries(
    [1, 2, 3].map((k) => [
      `accuracy for ${k}, then random order (inserted before it)`,
      { adaptiveProbes: k, handOver: "insert" as const, randomFirst: 0 },
    ]),
  ),
};

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
/** Mean of the paired differences with its 95% bootstrap interval over the seeds. */
function paired(a: readonly number[], b: readonly number[]): string {
  const d = a.map((x, i) => x - b[i]!);
  const boot = seededRng(12345);
  const means: number[] = [];
  for (let r = 0; r < 2000; r++) means.push(mean(d.map(() => d[Math.floor(boot.next() * d.length)]!)));
  means.sort((x, y) => x - y);
  return `${mean(d).toFixed(1)} [${means[49]!.toFixed(1)}, ${means[1949]!.toFixed(1)}]`;
}

const got: Record<string, number[][]> = {};
for (const [name, options] of Object.entries(rules)) {
  got[name] = [];
  for (let seed = 1; seed <= seeds; seed++) got[name].push(await run(options, seed));
}
const col = (name: string, k: number) => got[name]!.map((r) => r[k]!);
console.log(
  `Generated misleading bank, seeds 1-${seeds} (answers and random order per seed); truth ${(100 * truth).toFixed(1)}%.\n`,
);
console.log(
  mdTable(
    [
      "rule",
      "probes to 3 points: median / mean",
      "paired vs random, probes [95% CI]",
      ...AT.map((t) => `error after ${t}, points`),
      ...AT.map((t) => `paired vs random after ${t} [95% CI]`),
    ],
    Object.keys(rules).map((name) => [
      name,
      `${median(col(name, 0))} / ${mean(col(name, 0)).toFixed(0)}`,
      name === "random" ? "" : paired(col(name, 0), col("random", 0)),
      ...AT.map((_, i) => mean(col(name, i + 1)).toFixed(1)),
      ...AT.map((_, i) => (name === "random" ? "" : paired(col(name, i + 1), col("random", i + 1)))),
    ]),
  ),
);
