/**
 * `npm run bench:online [-- --quick] [--dataset <name-or-folder>] [--leave-out top:3,random:2] [--seeds 5]`
 *
 * Each built-in dataset has its own leave-out (`DEFAULT_LEAVE_OUT`, bench/online/world.ts); a full run of a dataset at
 * its default writes bench/results/online-<dataset>.json and that dataset's results block of docs/online.md.
 *
 * Simulation benchmark of online ability learning on real data (issue #10 item 6): leave models out of
 * the item model's training, stream the train split as bandit feedback (only the chosen model's label
 * is revealed), report test-split routing accuracy at checkpoints for the learning routers and the
 * baselines, the static-to-oracle gap with a paired bootstrap interval, and adaptive calibration.
 * Writes those files for full runs at the dataset's default leave-out only, unless `--write` is given.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { getTf } from "../../adapters/tf.js";
import { loadDataset } from "../../adapters/data/index.js";
import { splitIndices } from "../../src/data/split.js";
import { seededRng } from "../../src/learning/index.js";
import type { IrtMoeConfig } from "../../src/scorer/index.js";
import { embeddingsFor } from "./embeddings.js";
import { positiveIntFlag, scriptFlags } from "../flags.js";
import { renderOnlineResults, type OnlineSummary } from "./report.js";
import { itemBootstrapCi, median, simulateSeed, type SeedResult } from "./sim.js";
import { benchSimConfig, buildWorld, CHECKPOINTS, defaultLeaveOut, SIM_SCORER_CONFIG } from "./world.js";

/** The bench/ folder (this study's entry sits one level below it). */
const here = join(dirname(fileURLToPath(import.meta.url)), "..");

const argsSchema = z
  .object({
    quick: z.boolean().default(false),
    dataset: z.string().min(1).default("mmlu-pro-29models"),
    "leave-out": z
      .string()
      .regex(
        /^(top:\d+|random:\d+|[^,:]+)(,(top:\d+|random:\d+|[^,:]+))*$/,
        "use e.g. top:3,random:2 or model ids separated by commas",
      )
      .optional(),
    seeds: positiveIntFlag(undefined, { max: 20 }).optional(),
    "data-root": z.string().optional(),
    write: z.boolean().default(false),
    epochs: positiveIntFlag(undefined, { max: 200 }).optional(),
    "only-seed": positiveIntFlag(undefined, { max: 20 }).optional(),
    fresh: z.boolean().default(false),
  })
  .strict();

async function main(): Promise<void> {
  const args = scriptFlags(
    "bench:online",
    {
      quick: { type: "boolean" },
      dataset: { type: "string" },
      "leave-out": { type: "string" },
      seeds: { type: "string" },
      "data-root": { type: "string" },
      write: { type: "boolean" },
      epochs: { type: "string" },
      "only-seed": { type: "string" },
      fresh: { type: "boolean" },
    },
    argsSchema,
  );
  const nSeeds = args.seeds ?? (args.quick ? 1 : 5);
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const t0 = performance.now();
  const ds = await loadDataset(args.dataset, args["data-root"] ? { dataRoot: args["data-root"] } : {});
  const split = splitIndices(
    ds.name,
    ds.items.map((it) => it.id),
  );
  log(
    `bench:online: ${ds.name} ${ds.items.length} items, ${ds.models.length} models; train ${split.train.length} val ${split.val.length} test ${split.test.length}`,
  );
  const leaveOut = args["leave-out"] ?? defaultLeaveOut(ds.name);
  const emb = await embeddingsFor(ds, log);
  log(`  embeddings: ${emb.source} (${emb.dim}-d)`);
  const { tf } = await getTf();
  // --quick: one seed and a 3-epoch item model, so the whole run fits in about 3 minutes on a shared 2-core machine.
  const config = {
    ...SIM_SCORER_CONFIG,
    ...(args.quick ? { maxEpochs: 3 } : {}),
    ...(args.epochs ? { maxEpochs: args.epochs } : {}),
  };
  const results: SeedResult[] = [];
  let cachedSeeds = 0;
  // Each seed's result is cached (keyed by dataset content, leave-out, item-model config and embeddings), so
  // seeds can be computed in separate processes (`--only-seed k`) and a rerun only aggregates.
  const seedCache = (seed: number) =>
    join(
      here,
      "..",
      ".cache",
      "online-bench",
      `seed-${createHash("sha256")
        .update(
          JSON.stringify({
            v: 6,
            data: ds.source.sha256,
            spec: leaveOut,
            config,
            emb: emb.source.replace(/ \(.*$/, ""),
            seed,
          }),
        )
        .digest("hex")
        .slice(0, 16)}.json`,
    );
  const seeds = args["only-seed"] ? [args["only-seed"]] : Array.from({ length: nSeeds }, (_, k) => k + 1);
  for (const seed of seeds) {
    const cached = seedCache(seed);
    if (!args.fresh && existsSync(cached)) {
      const r = JSON.parse(readFileSync(cached, "utf8")) as SeedResult & { gapDiffs: number[] };
      results.push({ ...r, gapDiffs: Float64Array.from(r.gapDiffs) });
      cachedSeeds++;
      log(`seed ${seed}: cached result ${cached}`);
      continue;
    }
    const world = await buildWorld(tf, ds, emb, split, leaveOut, config, seed, log);
    const r = await simulateSeed(world, benchSimConfig(seed), log);
    results.push(r);
    mkdirSync(dirname(cached), { recursive: true });
    writeFileSync(cached, JSON.stringify({ ...r, gapDiffs: Array.from(r.gapDiffs) }));
    const c = r.curves;
    log(
      `  static ${fmt(c.static![0]!)} oracle ${fmt(c.oracle![0]!)} gap ${r.gap.points.toFixed(2)} [${r.gap.ci95.map((v) => v.toFixed(2)).join(", ")}]`,
    );
    log(
      `  default ${c.learning!.map(fmt).join(" ")} | UCB ${c.learningUcb!.map(fmt).join(" ")} | greedy ${c.greedy!.map(fmt).join(" ")}`,
    );
    log(`  sgdEps ${c.sgdEpsilon!.map(fmt).join(" ")} | epsGreedy ${c.epsilonGreedy!.map(fmt).join(" ")}`);
    log(
      `  calibration (accuracy/fisher/random orders) ${r.calibration.map((x) => `${x.model}: ${x.adaptiveProbes}/${x.fisherProbes}/${x.randomProbes.join(",")}`).join("; ")}`,
    );
  }
  if (args["only-seed"]) {
    log(`bench:online: seed ${args["only-seed"]} cached; run without --only-seed to aggregate`);
    return;
  }
  const summary = summarise(results, {
    dataset: ds.name,
    leaveOutSpec: leaveOut,
    embeddings: emb.source,
    config,
    seconds: (performance.now() - t0) / 1000,
    quick: args.quick,
    cachedSeeds,
  });
  const json = {
    dataset: summary.dataset,
    leaveOut: summary.leaveOut,
    seeds: summary.seeds,
    gap: summary.gap,
    checkpoints: summary.checkpoints,
    calibration: summary.calibration,
    knownScaleBySeed: summary.knownScaleBySeed,
    detail: summary.detail,
  };
  const defaultRun =
    leaveOut === defaultLeaveOut(ds.name) && !args.quick && !args.seeds && !args.epochs && !args["only-seed"];
  if (defaultRun || args.write) {
    const jsonName = `online-${ds.name}.json`;
    writeFileSync(join(here, "results", jsonName), `${JSON.stringify(json, null, 2)}\n`);
    const docPath = join(here, "..", "docs", "online.md");
    const start = `<!-- results:${ds.name}:start -->`;
    const end = `<!-- results:${ds.name}:end -->`;
    const doc = existsSync(docPath) ? readFileSync(docPath, "utf8") : "";
    const block = `${start}\n${renderOnlineResults(summary)}\n${end}`;
    const at = doc.indexOf(start);
    const next =
      at >= 0 ? doc.slice(0, at) + block + doc.slice(doc.indexOf(end, at) + end.length) : `${doc}\n${block}\n`;
    writeFileSync(docPath, next);
    log(`bench:online: wrote bench/results/${jsonName} and the ${ds.name} block of docs/online.md`);
  } else {
    process.stdout.write(`${renderOnlineResults(summary)}\n`);
    log(`bench:online: not the default full run (or --write not given): results printed, files left unchanged`);
  }
}

const fmt = (v: number) => (100 * v).toFixed(1);

function summarise(
  results: SeedResult[],
  meta: {
    dataset: string;
    leaveOutSpec: string;
    embeddings: string;
    config: Partial<IrtMoeConfig>;
    seconds: number;
    quick: boolean;
    cachedSeeds: number;
  },
): OnlineSummary {
  const meanOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const routers = Object.keys(results[0]!.curves);
  const checkpoints = CHECKPOINTS.map((events, k) => {
    const row: Record<string, number> = { events };
    for (const r of routers) row[r] = meanOf(results.map((s) => s.curves[r]![k]!));
    return row;
  });
  // Pooled interval: every seed scores the same test items, so each resample draws one set of items for all seeds.
  const pooled = itemBootstrapCi(
    results.map((s) => s.gapDiffs),
    1000,
    12345,
  );
  const cal = results.flatMap((s) => s.calibration);
  return {
    dataset: meta.dataset,
    leaveOut: meta.leaveOutSpec,
    seeds: results.map((s) => s.seed),
    heldOutBySeed: results.map((s) => s.heldOut),
    knownScaleBySeed: results.map((s) => s.knownScale ?? null),
    gap: { points: meanOf(results.map((s) => s.gap.points)), ci95: [100 * pooled[0], 100 * pooled[1]] },
    gapBySeed: results.map((s) => s.gap),
    checkpoints,
    closedBySeed: results.map((s) => {
      const st = s.curves.static![0]!;
      const or = s.curves.oracle![0]!;
      return s.curves.learning!.map((v) => (v - st) / (or - st));
    }),
    heldOutShare: meanOf(results.map((s) => s.heldOutShare)),
    streamEvents: Math.min(...results.map((s) => s.streamEvents ?? CHECKPOINTS[CHECKPOINTS.length - 1]!)),
    calibration: {
      adaptiveProbes: median(cal.map((c) => c.adaptiveProbes)),
      randomProbes: median(cal.flatMap((c) => c.randomProbes)),
      adaptiveErrorAt100: meanOf(cal.map((c) => c.adaptiveErrorAt100)),
      randomErrorAt100: meanOf(cal.map((c) => c.randomErrorAt100)),
      fisherProbes: median(cal.map((c) => c.fisherProbes)),
      fisherErrorAt100: meanOf(cal.map((c) => c.fisherErrorAt100)),
      ...calibrationRatio(cal),
      oracleError: meanOf(cal.map((c) => c.oracleError)),
    },
    detail: {
      calibrationByModel: cal,
      config: meta.config,
      embeddings: meta.embeddings,
      seconds: meta.seconds,
      quick: meta.quick,
      cachedSeeds: meta.cachedSeeds,
    },
  };
}

/** Median adaptive / median random probes, and its 95% bootstrap interval over (model, seed) pairs (1,000 resamples, seeded). */
function calibrationRatio(cal: SeedResult["calibration"]): { ratio: number; ratioCi95: [number, number] } {
  const ratioOf = (rows: SeedResult["calibration"]) =>
    median(rows.map((c) => c.adaptiveProbes)) / Math.max(1e-9, median(rows.flatMap((c) => c.randomProbes)));
  const rng = seededRng(4242);
  const stats: number[] = [];
  for (let b = 0; b < 1000; b++) stats.push(ratioOf(cal.map(() => cal[Math.floor(rng.next() * cal.length)]!)));
  stats.sort((a, b) => a - b);
  return { ratio: ratioOf(cal), ratioCi95: [stats[24]!, stats[974]!] };
}

await main();
