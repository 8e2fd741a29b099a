/**
 * Validation-only development of adaptive calibration (`npx tsx bench/dev/calibration.ts`).
 *
 * Same worlds as `npm run bench:online` (item model trained per seed without the left-out models), but
 * every probe count is measured against the held-out model's VALIDATION accuracy, so calibration rules and
 * prior settings can be compared without reading the test split. Prints the median probes to within the
 * tolerance and the mean error after 100 probes, per strategy; writes nothing but its cache.
 *
 *   npx tsx bench/dev/calibration.ts --seeds 1,2,3 --strategies fisher,accuracy,random --random-orders 5
 *
 * A strategy "<rule>+warmup<k>" (e.g. accuracy+warmup10) asks k probes by Fisher information about theta
 * first (a sequential D-optimal start), then follows <rule>.
 */
import { z } from "zod";
import { getTf } from "../../adapters/tf.js";
import { loadDataset } from "../../adapters/data/index.js";
import { splitIndices } from "../../src/data/split.js";
import { OnlineLearner, type LearnerOptions } from "../../src/learning/index.js";
import { embeddingsFor } from "../online/embeddings.js";
import type { SimWorld } from "../online/sim.js";
import {
  calibrationSetup,
  fitAbilityMap,
  mean,
  median,
  predictedAccuracyOf,
  probesToTolerance,
} from "../online/sim.js";
import { defaultLeaveOut, validationWorld } from "../online/world.js";
import { listFlag, positiveIntFlag, scriptFlags, seedListFlag, seedsFlag } from "../flags.js";

const values = scriptFlags(
  "bench/dev/calibration.ts",
  {
    dataset: { type: "string" },
    "leave-out": { type: "string" },
    seeds: { type: "string" },
    strategies: { type: "string" },
    "random-orders": { type: "string" },
    learner: { type: "string" },
    cap: { type: "string" },
  },
  z
    .object({
      dataset: z.string().min(1).default("mmlu-pro-29models"),
      "leave-out": z.string().min(1).optional(),
      seeds: seedListFlag().default([1, 2, 3, 4, 5]),
      // "<rule>" or "<rule>+warmup<k>" (k probes by Fisher about theta first)
      strategies: listFlag(
        z
          .string()
          .regex(/^(fisher|accuracy|random)(\+warmup[0-9]+)?$/, "takes fisher, accuracy or random (+warmup<k>)"),
      ).default(["fisher", "accuracy", "random"]),
      "random-orders": seedsFlag(5),
      learner: z.string().default("{}"),
      cap: positiveIntFlag().default(300),
    })
    .strict(),
);

const { tf } = await getTf();
const ds = await loadDataset(values.dataset);
const split = splitIndices(
  ds.name,
  ds.items.map((it) => it.id),
);
const emb = await embeddingsFor(ds, (s) => process.stderr.write(`${s}\n`));
const learnerOpts = JSON.parse(values.learner) as Pick<LearnerOptions, "inflate" | "knownScale" | "shrinkage">;
const cap = values.cap;
const strategies = values.strategies;

const world = (seed: number): Promise<SimWorld> =>
  validationWorld(tf, ds, emb, split, values["leave-out"] ?? defaultLeaveOut(ds.name), seed, (s) =>
    process.stderr.write(`${s}\n`),
  );

const rows: {
  seed: number;
  model: string;
  acc: number;
  strategy: string;
  probes: number;
  at100: number;
  oracle: number;
}[] = [];
for (const seed of values.seeds) {
  const w = await world(seed);
  const known = [...w.knownTheta.entries()].map(([m, theta]) => ({ id: w.models[m]!, ability: theta }));
  const ref = new OnlineLearner(known, learnerOpts);
  for (const m of w.heldOut) {
    const setup = calibrationSetup(w, m, seed, 2000);
    const oracle = Math.abs(
      predictedAccuracyOf(w, setup.testItems, fitAbilityMap(w, m, w.train, ref.population)) - setup.trueAcc,
    );
    for (const strategy of strategies) {
      const orders = strategy === "random" ? values["random-orders"] : 1;
      // "<rule>+warmup<k>": k probes by Fisher about theta first, then <rule>
      const [rule, warm] = strategy.split("+warmup");
      for (let o = 0; o < orders; o++) {
        const r = await probesToTolerance({
          known,
          learner: learnerOpts,
          modelId: w.models[m]!,
          setup,
          strategy: rule as never,
          warmup: warm ? Number(warm) : 0,
          seed: seed * 101 + m + 7777 * o,
          cap,
          tolerance: 0.03,
        });
        rows.push({ seed, model: w.models[m]!, acc: setup.trueAcc, strategy, ...r, oracle });
      }
    }
    process.stderr.write(
      `seed ${seed} ${w.models[m]} (val acc ${(100 * setup.trueAcc).toFixed(1)}): ${strategies
        .map(
          (s) =>
            `${s} ${rows
              .filter((r) => r.seed === seed && r.model === w.models[m] && r.strategy === s)
              .map((r) => r.probes)
              .join("/")}`,
        )
        .join(", ")}\n`,
    );
  }
}
console.log(`learner ${values.learner}; seeds ${values.seeds}; target: validation accuracy within 3 points`);
for (const s of strategies) {
  const r = rows.filter((x) => x.strategy === s);
  console.log(
    `${s.padEnd(10)} median probes ${median(r.map((x) => x.probes))}  mean error@100 ${(100 * mean(r.map((x) => x.at100))).toFixed(2)}  (n=${r.length})`,
  );
}
console.log(
  `oracle error ${(100 * mean(rows.filter((x) => x.strategy === strategies[0]).map((x) => x.oracle))).toFixed(2)}`,
);
