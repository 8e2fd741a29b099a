/**
 * Validation-only development of adaptive calibration (`npx tsx bench/calibration-dev.ts`).
 *
 * Same worlds as `npm run bench:online` (item model trained per seed without the left-out models), but
 * every probe count is measured against the held-out model's VALIDATION accuracy, so calibration rules and
 * prior settings can be compared without reading the test split. Prints the median probes to within the
 * tolerance and the mean error after 100 probes, per strategy; writes nothing but its cache.
 *
 *   npx tsx bench/calibration-dev.ts --seeds 1,2,3 --strategies fisher,accuracy,random --random-orders 5
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import { getTf } from "../adapters/tf.js";
import { loadDataset } from "../adapters/data/index.js";
import { splitIndices } from "../src/data/split.js";
import { calibrateModel, ItemTracker, OnlineLearner, type LearnerOptions } from "../src/learning/index.js";
import { embeddingsFor } from "./online-embeddings.js";
import type { SimWorld } from "./online-sim.js";
import { calibrationSetup, fitAbilityMap } from "./online-sim.js";
import { buildWorld, SIM_SCORER_CONFIG } from "./online-world.js";

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    dataset: { type: "string", default: "mmlu-pro-29models" },
    "leave-out": { type: "string", default: "top:3,random:2" },
    seeds: { type: "string", default: "1,2,3,4,5" },
    strategies: { type: "string", default: "fisher,accuracy,random" },
    "random-orders": { type: "string", default: "5" },
    learner: { type: "string", default: "{}" },
    cap: { type: "string", default: "300" },
  },
  strict: true,
});

const { tf } = await getTf();
const ds = await loadDataset(values.dataset);
const split = splitIndices(ds.name, ds.items.map((it) => it.id));
const emb = await embeddingsFor(ds, (s) => process.stderr.write(`${s}\n`));
const learnerOpts = JSON.parse(values.learner) as Pick<LearnerOptions, "inflate" | "knownScale" | "shrinkage">;
const cap = Number(values.cap);
const strategies = values.strategies.split(",");
const sig = (z: number) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

/** The seed's world with val as the evaluation rows, cached (item parameters and known abilities). */
async function world(seed: number): Promise<SimWorld> {
  const key = createHash("sha256").update(JSON.stringify({ v: 1, data: ds.source.sha256, lo: values["leave-out"], config: SIM_SCORER_CONFIG, seed })).digest("hex").slice(0, 16);
  const file = join(here, "..", ".cache", "online-bench", `world-val-${key}.json`);
  if (existsSync(file)) {
    const j = JSON.parse(readFileSync(file, "utf8"));
    return {
      models: ds.models, d: j.d, alphas: Float32Array.from(j.alphas), betas: Float32Array.from(j.betas),
      offsets: ds.labels.offsets, model: ds.labels.model, y: ds.labels.y, train: split.train, test: split.val,
      heldOut: j.heldOut, knownTheta: new Map(j.knownTheta.map(([m, t]: [number, number[]]) => [m, Float32Array.from(t)])),
    };
  }
  const w = await buildWorld(tf, ds, emb, split, values["leave-out"], SIM_SCORER_CONFIG, seed, (s) => process.stderr.write(`${s}\n`), split.val);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ d: w.d, alphas: Array.from(w.alphas), betas: Array.from(w.betas), heldOut: w.heldOut, knownTheta: [...w.knownTheta].map(([m, t]) => [m, Array.from(t)]) }));
  return w;
}

const rows: { seed: number; model: string; acc: number; strategy: string; probes: number; at100: number; oracle: number }[] = [];
for (const seed of values.seeds.split(",").map(Number)) {
  const w = await world(seed);
  const d = w.d;
  const known = [...w.knownTheta.entries()].map(([m, theta]) => ({ id: w.models[m]!, ability: theta }));
  const ref = new OnlineLearner(known, learnerOpts);
  for (const m of w.heldOut) {
    const { bank, label, testItems: evalItems, testAlphas: evalAlphas, testBetas: evalBetas, trueAcc } = calibrationSetup(w, m, seed, 2000);
    const oracleTheta = fitAbilityMap(w, m, w.train, ref.population);
    let oraclePred = 0;
    for (const i of evalItems) {
      let z = -w.betas[i]!;
      for (let k = 0; k < d; k++) z += w.alphas[i * d + k]! * oracleTheta[k]!;
      oraclePred += sig(z) / evalItems.length;
    }
    for (const strategy of strategies) {
      const orders = strategy === "random" ? Number(values["random-orders"]) : 1;
      for (let o = 0; o < orders; o++) {
        const learner = new OnlineLearner(known, learnerOpts);
        learner.addModel(w.models[m]!);
        const tracker = new ItemTracker(learner.posterior(w.models[m]!), evalAlphas, evalBetas);
        let first = -1;
        let at100 = NaN;
        const check = (asked: number) => {
          const err = Math.abs(tracker.predictedAccuracy() - trueAcc);
          if (first < 0 && err <= 0.03) first = asked;
          if (asked === 100) at100 = err;
        };
        check(0);
        await calibrateModel({
          learner, modelId: w.models[m]!, probes: bank, budget: cap, strategy: strategy as never, seed: seed * 101 + m + 7777 * o, targetSd: 0,
          ask: async (probe) => label.get(Number(probe.id))!, onProgress: (p) => check(p.asked),
        });
        tracker.dispose();
        rows.push({ seed, model: w.models[m]!, acc: trueAcc, strategy, probes: first < 0 ? cap + 1 : first, at100, oracle: Math.abs(oraclePred - trueAcc) });
      }
    }
    process.stderr.write(
      `seed ${seed} ${w.models[m]} (val acc ${(100 * trueAcc).toFixed(1)}): ${strategies.map((s) => `${s} ${rows.filter((r) => r.seed === seed && r.model === w.models[m] && r.strategy === s).map((r) => r.probes).join("/")}`).join(", ")}\n`,
    );
  }
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(`learner ${values.learner}; seeds ${values.seeds}; target: validation accuracy within 3 points`);
for (const s of strategies) {
  const r = rows.filter((x) => x.strategy === s);
  console.log(`${s.padEnd(10)} median probes ${median(r.map((x) => x.probes))}  mean error@100 ${(100 * mean(r.map((x) => x.at100))).toFixed(2)}  (n=${r.length})`);
}
console.log(`oracle error ${(100 * mean(rows.filter((x) => x.strategy === strategies[0]).map((x) => x.oracle))).toFixed(2)}`);
