/**
 * A generated bank on which the item model is wrong about the model being calibrated
 * (`npx tsx bench/dev/calibration-misspecified.ts`, seconds): half the bank is highly discriminating items (alpha (3, 0),
 * difficulty uniform in [-1, 1]) that the model answers at 50% whatever their difficulty, half easy weakly
 * discriminating items (alpha (0.3, 0.3), beta -1) that it answers at 95%. Prints, per probe rule, the probes until the
 * predicted bank accuracy is first within 3 points of the true one (cap 200; 201 = never) for seeds 1-9, and the median.
 */
import { calibrateModel, probeBankFrom, type CalibrationOptions } from "../../src/learning/new-model-calibration.js";
import { OnlineLearner } from "../../src/learning/learner.js";
import { ItemTracker } from "../../src/learning/tracker.js";
import { seededRng } from "../../src/util/random.js";

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

async function probesToTarget(options: Partial<CalibrationOptions>, seed: number): Promise<number> {
  const learner = new OnlineLearner(known);
  learner.addModel("new");
  const tracker = new ItemTracker(learner.posterior("new"), bank.alphas, bank.betas);
  const answers = seededRng(1000 + seed);
  const draws = new Map(items.map((it) => [it.id, answers.next() < it.q ? 1 : 0]));
  let first = Math.abs(tracker.predictedAccuracy() - truth) <= 0.03 ? 0 : -1;
  await calibrateModel({
    learner,
    modelId: "new",
    probes: bank,
    budget: 200,
    targetSd: 0,
    seed,
    ...options,
    ask: async (probe) => draws.get(probe.id)!,
    onProgress: (p) => {
      if (first < 0 && Math.abs(tracker.predictedAccuracy() - truth) <= 0.03) first = p.asked;
    },
  });
  tracker.dispose();
  return first < 0 ? 201 : first;
}

const rules: Record<string, Partial<CalibrationOptions>> = {
  random: { strategy: "random" },
  "accuracy (default)": {},
  "accuracy, 25% random": { randomShare: 0.25 },
  "accuracy, 50% random": { randomShare: 0.5 },
  "accuracy, 50% random on conflict": { randomShare: 0.5, mixRandom: "on-conflict" },
};
for (const [name, options] of Object.entries(rules)) {
  const counts: number[] = [];
  for (let seed = 1; seed <= 9; seed++) counts.push(await probesToTarget(options, seed));
  const median = [...counts].sort((a, b) => a - b)[4];
  console.log(`${name.padEnd(34)} median ${median}  (seeds 1-9: ${counts.join(", ")})`);
}
