/**
 * Validation-only choice of the exploration settings of the online benchmark (`npx tsx bench/dev/exploration.ts`).
 *
 * The benchmark's routing simulation (bench/online/sim.ts `simulateSeed`, the same worlds as `npm run bench:online`:
 * item model trained per seed without the left-out models, train-split items streamed as bandit feedback), but the
 * routing accuracy at each checkpoint is measured on the VALIDATION split (`validationWorld`), for a grid of the
 * new-model prior's `inflate` (Thompson, UCB and greedy) and UCB's `kappa`. Prints, per setting, the validation
 * routing accuracy after each checkpoint's events (means over seeds), the share of the static-to-oracle gap closed
 * (of the means, as docs/online.md reports it) and the worst seed's share. Writes nothing but the world cache.
 *
 *   npx tsx bench/dev/exploration.ts --seeds 1,2,3,4,5 --inflate 1,3,10 --kappa 1,2,3
 *
 * Thompson and greedy do not depend on kappa; they run once per inflate. The item model's early stopping used the
 * validation split's labels of the KNOWN models (as in the benchmark); the held-out models' validation labels, which
 * decide the gap, are read only here.
 */
import { z } from "zod";
import { loadDataset } from "../../adapters/data/index.js";
import { getTf } from "../../adapters/tf.js";
import { splitIndices } from "../../src/data/split.js";
import { embeddingsFor } from "../online/embeddings.js";
import { listFlag, positiveDecimalFlag, positiveIntFlag, scriptFlags } from "../flags.js";
import { simulateSeed, type RouterName, type SeedResult } from "../online/sim.js";
import { benchSimConfig, CHECKPOINTS, defaultLeaveOut, validationWorld } from "../online/world.js";

const argsSchema = z
  .object({
    dataset: z.string().min(1).default("mmlu-pro-29models"),
    "leave-out": z.string().min(1).optional(),
    "data-root": z.string().optional(),
    seeds: listFlag(positiveIntFlag(undefined, { max: 20 })).default([1, 2, 3, 4, 5]),
    inflate: listFlag(positiveDecimalFlag(1000)).default([1, 3, 10]),
    kappa: listFlag(positiveDecimalFlag(100)).default([1, 2, 3]),
  })
  .strict();

/** One grid cell's curves: a router at one setting, per seed. */
interface Row {
  label: string;
  bySeed: { curve: number[]; static: number; oracle: number }[];
}

async function main(): Promise<void> {
  const args = scriptFlags(
    "bench/dev/exploration.ts",
    {
      dataset: { type: "string" },
      "leave-out": { type: "string" },
      "data-root": { type: "string" },
      seeds: { type: "string" },
      inflate: { type: "string" },
      kappa: { type: "string" },
    },
    argsSchema,
  );
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const t0 = performance.now();
  const { tf } = await getTf();
  const ds = await loadDataset(args.dataset, args["data-root"] ? { dataRoot: args["data-root"] } : {});
  const split = splitIndices(
    ds.name,
    ds.items.map((it) => it.id),
  );
  const emb = await embeddingsFor(ds, log);
  const leaveOut = args["leave-out"] ?? defaultLeaveOut(ds.name);

  const rows = new Map<string, Row>();
  const add = (label: string, r: SeedResult, router: RouterName) => {
    const row = rows.get(label) ?? { label, bySeed: [] };
    row.bySeed.push({ curve: r.curves[router]!, static: r.curves.static![0]!, oracle: r.curves.oracle![0]! });
    rows.set(label, row);
  };
  for (const seed of args.seeds) {
    const world = await validationWorld(tf, ds, emb, split, leaveOut, seed, log);
    for (const inflate of args.inflate) {
      for (const [k, kappa] of args.kappa.entries()) {
        const ts = performance.now();
        const routers: RouterName[] = k === 0 ? ["thompson", "greedy", "learningUcb"] : ["learningUcb"];
        const r = await simulateSeed(world, {
          ...benchSimConfig(seed),
          ucbKappa: kappa,
          learner: { inflate },
          skipCalibration: true,
          routers,
        });
        if (k === 0) {
          if (inflate === args.inflate[0]) {
            // Neither depends on the grid: once per seed.
            add("static", r, "static");
            add("oracle", r, "oracle");
          }
          add(`greedy, inflate ${inflate}`, r, "greedy");
          add(`Thompson, inflate ${inflate}`, r, "thompson");
        }
        add(`UCB, inflate ${inflate}, kappa ${kappa}`, r, "learningUcb");
        log(`seed ${seed} inflate ${inflate} kappa ${kappa}: ${((performance.now() - ts) / 1000).toFixed(1)} s`);
      }
    }
  }

  const meanOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const pct = (v: number) => (100 * v).toFixed(1);
  const any = [...rows.values()][0]!.bySeed;
  const st = meanOf(any.map((s) => s.static));
  const or = meanOf(any.map((s) => s.oracle));
  const k1000 = CHECKPOINTS.indexOf(1000);
  const k3000 = CHECKPOINTS.indexOf(3000);
  console.log(
    `${ds.name}, leave-out ${leaveOut}, seeds ${args.seeds.join(",")}: VALIDATION routing accuracy (%) after N bandit events, ` +
      `means over seeds (${split.val.length} validation items); static ${pct(st)}, oracle ${pct(or)}, gap ${(100 * (or - st)).toFixed(2)} points.`,
  );
  console.log(
    "closed = (mean router - mean static) / (mean oracle - mean static); worst = the lowest seed's own share.\n",
  );
  const head = [
    "setting",
    ...CHECKPOINTS.map(String),
    "closed@1000",
    "closed@3000",
    "worst@1000",
    "worst@3000",
    "mean closed 50-3000",
  ];
  const table: string[][] = [];
  for (const row of rows.values()) {
    const curve = CHECKPOINTS.map((_, k) => meanOf(row.bySeed.map((s) => s.curve[k]!)));
    const closed = curve.map((v) => (v - st) / (or - st));
    const worst = (k: number) => Math.min(...row.bySeed.map((s) => (s.curve[k]! - s.static) / (s.oracle - s.static)));
    const share = (v: number) => `${(100 * v).toFixed(0)}%`;
    table.push([
      row.label,
      ...curve.map(pct),
      share(closed[k1000]!),
      share(closed[k3000]!),
      share(worst(k1000)),
      share(worst(k3000)),
      share(meanOf(closed.slice(1))),
    ]);
  }
  const widths = head.map((h, c) => Math.max(h.length, ...table.map((r) => r[c]!.length)));
  for (const r of [head, ...table])
    console.log(r.map((v, c) => (c === 0 ? v.padEnd(widths[c]!) : v.padStart(widths[c]!))).join("  "));
  log(`exploration-dev: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

await main();
