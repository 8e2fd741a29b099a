/**
 * `npm run bench:online-lodo [-- --seeds 1,2,3] [--datasets a,b,c] [--print]` (about 10 minutes on 2 cores from cold
 * caches: about 1 minute to build each (dataset, seed) world, 5 for the exploration grid, 3 for the calibration grid)
 *
 * Leave-one-dataset-out choice of the online learner's defaults (docs/online.md, "How the defaults were chosen"):
 * the exploration rule (Thompson or UCB and its kappa), the new-model prior's inflate, and the calibration probe rule
 * (accuracy-targeted or Fisher about theta, and the share of random probes mixed in).
 *
 * Every score is on the VALIDATION split of its dataset: the worlds of `npm run bench:online` (item model trained per
 * seed without the dataset's left-out models) with routing and calibration measured on validation items
 * (`validationWorld`). For each held-out dataset, the setting is the one with the best worst case over the OTHER
 * datasets, and it is then scored on the held-out one; the default is the setting with the best worst case over all.
 * - Routing score of a setting on a dataset: the mean of the shares of the static-to-oracle gap its router has
 *   closed after 1,000 and 3,000 events (shares of the means over seeds). Higher is better.
 * - Calibration score: median probes to within 3 points of the validation accuracy over the (held-out model, seed)
 *   pairs, divided by the median of random probes (5 seeded orders per pair). Lower is better.
 * Writes bench/results/online-lodo.json and the generated block of docs/online.md.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { loadDataset } from "../../adapters/data/index.js";
import { getTf } from "../../adapters/tf.js";
import { splitIndices } from "../../src/data/split.js";
import { embeddingsFor } from "./embeddings.js";
import { listFlag, positiveIntFlag, scriptFlags } from "../flags.js";
import { calibrationSetup, median, probesToTolerance, simulateSeed } from "./sim.js";
import { benchSimConfig, CHECKPOINTS, defaultLeaveOut, validationWorld } from "./world.js";
import { pickMaxMin, renderLodo, type LodoResult } from "./lodo-report.js";

/** The bench/ folder (this study's entry sits one level below it). */
const here = join(dirname(fileURLToPath(import.meta.url)), "..");

const argsSchema = z
  .object({
    datasets: listFlag(z.string()).default(["mmlu-pro-29models", "routerdc-7models", "routerbench-subset-11models"]),
    seeds: listFlag(positiveIntFlag(undefined, { max: 20 })).default([1, 2, 3]),
    "data-root": z.string().optional(),
    /** Print the tables only; write neither the JSON nor docs/online.md. */
    print: z.boolean().default(false),
  })
  .strict();

/** The exploration grid: rule x new-model prior inflate. */
const EXPLORATION_GRID = [1, 3, 10].flatMap((inflate) => [
  { explore: "thompson" as const, inflate },
  ...[1, 2, 3].map((kappa) => ({ explore: "ucb" as const, kappa, inflate })),
]);
/** The calibration grid: rule x share of random probes x when the mixing starts (at the chosen inflate). */
const CALIBRATION_GRID = [
  { strategy: "accuracy" as const, randomShare: 0, mixRandom: "always" as const },
  ...[0.25, 0.5].flatMap((randomShare) =>
    (["always", "on-conflict"] as const).map((mixRandom) => ({
      strategy: "accuracy" as const,
      randomShare,
      mixRandom,
    })),
  ),
  { strategy: "fisher" as const, randomShare: 0, mixRandom: "always" as const },
  { strategy: "fisher" as const, randomShare: 0.5, mixRandom: "on-conflict" as const },
];
const RANDOM_ORDERS = 5;

type ExplorationSetting = (typeof EXPLORATION_GRID)[number];
type CalibrationSetting = (typeof CALIBRATION_GRID)[number];

const explorationLabel = (s: ExplorationSetting) =>
  s.explore === "thompson" ? `Thompson, inflate ${s.inflate}` : `UCB kappa ${s.kappa}, inflate ${s.inflate}`;
const calibrationLabel = (s: CalibrationSetting) =>
  `${s.strategy === "accuracy" ? "accuracy-targeted" : "Fisher about theta"}` +
  (s.randomShare === 0
    ? ", no random probes"
    : `, ${Math.round(100 * s.randomShare)}% random ${s.mixRandom === "always" ? "from the start" : "once the answers contradict the prior"}`);

async function main(): Promise<void> {
  const args = scriptFlags(
    "bench:online-lodo",
    {
      datasets: { type: "string" },
      seeds: { type: "string" },
      "data-root": { type: "string" },
      print: { type: "boolean" },
    },
    argsSchema,
  );
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const t0 = performance.now();
  const { tf } = await getTf();
  const routing: LodoResult["routing"] = {};
  const worlds = new Map<string, Awaited<ReturnType<typeof validationWorld>>[]>();
  for (const name of args.datasets) {
    const ds = await loadDataset(name, args["data-root"] ? { dataRoot: args["data-root"] } : {});
    const split = splitIndices(
      ds.name,
      ds.items.map((it) => it.id),
    );
    const emb = await embeddingsFor(ds, log);
    const ws = [];
    for (const seed of args.seeds) ws.push(await validationWorld(tf, ds, emb, split, defaultLeaveOut(name), seed, log));
    worlds.set(name, ws);
    routing[name] = await routingGrid(name, ws, args.seeds, log);
  }
  const explorationAdmissible = EXPLORATION_GRID.map((s) => s.explore === "thompson");
  const explorationDefault = pickMaxMin(routing, args.datasets, explorationAdmissible);
  const chosen = EXPLORATION_GRID[explorationDefault]!;
  const calibration: LodoResult["calibration"] = {};
  for (const name of args.datasets)
    calibration[name] = await calibrationGrid(name, worlds.get(name)!, args.seeds, chosen.inflate, log);
  const result: LodoResult = {
    datasets: args.datasets,
    seeds: args.seeds,
    exploration: EXPLORATION_GRID.map(explorationLabel),
    explorationAdmissible,
    calibrationSettings: CALIBRATION_GRID.map(calibrationLabel),
    routing,
    calibration,
    seconds: (performance.now() - t0) / 1000,
  };
  const md = renderLodo(result);
  process.stdout.write(`${md}\n`);
  if (!args.print) {
    writeFileSync(join(here, "results", "online-lodo.json"), `${JSON.stringify(result, null, 2)}\n`);
    const docPath = join(here, "..", "docs", "online.md");
    const doc = readFileSync(docPath, "utf8");
    const start = "<!-- lodo:start -->";
    const end = "<!-- lodo:end -->";
    if (doc.includes(start)) {
      writeFileSync(
        docPath,
        doc.slice(0, doc.indexOf(start)) + `${start}\n${md}\n${end}` + doc.slice(doc.indexOf(end) + end.length),
      );
      log("bench:online-lodo: wrote bench/results/online-lodo.json and the lodo block of docs/online.md");
    } else log(`bench:online-lodo: docs/online.md has no ${start} marker; wrote bench/results/online-lodo.json only`);
  }
}

const cachePath = (kind: string, key: unknown) =>
  join(
    here,
    "..",
    ".cache",
    "online-bench",
    `lodo-${kind}-${createHash("sha256").update(JSON.stringify(key)).digest("hex").slice(0, 16)}.json`,
  );

function cached<T>(file: string, compute: () => Promise<T>): Promise<T> {
  if (existsSync(file)) return Promise.resolve(JSON.parse(readFileSync(file, "utf8")) as T);
  return compute().then((v) => {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(v));
    return v;
  });
}

/** Every exploration setting's validation curve on one dataset, per seed, and its score. */
async function routingGrid(
  name: string,
  worlds: Awaited<ReturnType<typeof validationWorld>>[],
  seeds: readonly number[],
  log: (s: string) => void,
): Promise<LodoResult["routing"][string]> {
  const bySeed: { curves: number[][]; baselines: Record<string, number[]> }[] = [];
  for (const [k, w] of worlds.entries()) {
    const seed = seeds[k]!;
    const runs = await cached(cachePath("routing", { v: 1, name, seed, grid: EXPLORATION_GRID }), async () => {
      const curves: number[][] = [];
      let baselines: Record<string, number[]> = {};
      for (const s of EXPLORATION_GRID) {
        const r = await simulateSeed(w, {
          ...benchSimConfig(seed),
          ucbKappa: s.explore === "ucb" ? s.kappa : 2,
          learner: { inflate: s.inflate },
          skipCalibration: true,
          routers:
            s === EXPLORATION_GRID[0]
              ? ["thompson", "sgdEpsilon", "epsilonGreedy", "greedy"]
              : [s.explore === "thompson" ? "thompson" : "learningUcb"],
        });
        curves.push(r.curves[s.explore === "thompson" ? "thompson" : "learningUcb"]!);
        if (s === EXPLORATION_GRID[0])
          baselines = {
            static: r.curves.static!,
            oracle: r.curves.oracle!,
            sgdEpsilon: r.curves.sgdEpsilon!,
            epsilonGreedy: r.curves.epsilonGreedy!,
            greedy: r.curves.greedy!,
          };
      }
      return { curves, baselines };
    });
    log(`${name} seed ${seed}: exploration grid done`);
    bySeed.push(runs);
  }
  const meanAt = (get: (s: (typeof bySeed)[number]) => number[], k: number) =>
    bySeed.reduce((a, s) => a + get(s)[k]!, 0) / bySeed.length;
  const st = meanAt((s) => s.baselines.static!, 0);
  const or = meanAt((s) => s.baselines.oracle!, 0);
  const k1000 = CHECKPOINTS.indexOf(1000);
  const k3000 = CHECKPOINTS.indexOf(3000);
  const closed = (get: (s: (typeof bySeed)[number]) => number[], k: number) => (meanAt(get, k) - st) / (or - st);
  const rows = EXPLORATION_GRID.map((_, g) => ({
    at1000: closed((s) => s.curves[g]!, k1000),
    at3000: closed((s) => s.curves[g]!, k3000),
  }));
  return {
    static: st,
    oracle: or,
    closed1000: rows.map((r) => r.at1000),
    closed3000: rows.map((r) => r.at3000),
    score: rows.map((r) => (r.at1000 + r.at3000) / 2),
    baselines3000: Object.fromEntries(
      ["sgdEpsilon", "epsilonGreedy", "greedy"].map((b) => [b, closed((s) => s.baselines[b]!, k3000)]),
    ),
  };
}

/** Probes to within 3 points of validation accuracy for every calibration setting and random orders, on one dataset. */
async function calibrationGrid(
  name: string,
  worlds: Awaited<ReturnType<typeof validationWorld>>[],
  seeds: readonly number[],
  inflate: number,
  log: (s: string) => void,
): Promise<LodoResult["calibration"][string]> {
  const perSetting: number[][] = CALIBRATION_GRID.map(() => []);
  const random: number[][] = [];
  for (const [k, w] of worlds.entries()) {
    const seed = seeds[k]!;
    const known = [...w.knownTheta.entries()].map(([m, theta]) => ({ id: w.models[m]!, ability: theta }));
    for (const m of w.heldOut) {
      const r = await cached(
        cachePath("calibration", { v: 2, name, seed, m, inflate, grid: CALIBRATION_GRID, orders: RANDOM_ORDERS }),
        async () => {
          const setup = calibrationSetup(w, m, seed, 2000);
          const common = { known, learner: { inflate }, modelId: w.models[m]!, setup, cap: 300, tolerance: 0.03 };
          const settings: number[] = [];
          for (const s of CALIBRATION_GRID)
            settings.push((await probesToTolerance({ ...common, ...s, seed: seed * 101 + m })).probes);
          const orders: number[] = [];
          for (let o = 0; o < RANDOM_ORDERS; o++)
            orders.push(
              (await probesToTolerance({ ...common, strategy: "random", seed: seed * 101 + m + 7777 * o })).probes,
            );
          return { settings, orders };
        },
      );
      r.settings.forEach((p, g) => perSetting[g]!.push(p));
      random.push(r.orders);
      log(`${name} seed ${seed} ${w.models[m]}: ${r.settings.join("/")} random ${r.orders.join(",")}`);
    }
  }
  const randomMedian = median(random.flat());
  const medians = perSetting.map((ps) => median(ps));
  return {
    inflate,
    pairs: random.length,
    medians,
    randomMedian,
    ratio: medians.map((m) => m / Math.max(1e-9, randomMedian)),
    // pickMaxMin maximises: the negated ratio.
    score: medians.map((m) => -m / Math.max(1e-9, randomMedian)),
    perPair: perSetting,
    random,
  };
}

await main();
