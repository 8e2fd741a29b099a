/**
 * `npm run bench:predict`: how well the IRT-MoE scorer predicts a model's accuracy on a category it was never
 * trained on (docs/evaluation.md, "Predicting accuracy on an unseen benchmark"). Leave one category out: train
 * without it (train split of the other categories, early stopping and calibration on their val split), predict
 * every model's accuracy on the held-out category's test items from the scorer alone and with 10 / 50 probes drawn
 * from its non-test items, and compare with the observed accuracy, against the baselines.
 *
 * Options: `npm run bench:predict -- [--datasets a,b] [--seeds N] [--epochs E] [--data-root D] [--json] [--report-only]`.
 * Each (dataset, category, seed) is cached in `.cache/bench-predict/` as it finishes, so an interrupted run resumes;
 * the tables go to stdout and bench/results/predict.json.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { embedForEval } from "../../adapters/eval/embed.js";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { getTf } from "../../adapters/tf.js";
import { splitIndices } from "../../src/data/split.js";
import { resolveIrtMoeConfig } from "../../src/scorer/config.js";
import { embeddedLabelsOf } from "../../src/scorer/dataset.js";
import { listFlag, positiveIntFlag, scriptFlags, seedsFlag } from "../flags.js";
import { categoryFolds } from "./category-folds.js";
import { fitPredictCalibration } from "./calibrate.js";
import { PROBE_COUNTS, runFold, type FoldResult } from "./fold-run.js";
import { formatPredictMarkdown, summarisePredict, type CategoryRow, type PredictRow } from "./report.js";

/** The bench/ folder (this study's entry sits one level below it). */
const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const root = join(here, "..");
const ALL = ["mmlu-pro-29models", "routerdc-7models"];

const args = scriptFlags(
  "bench:predict",
  {
    datasets: { type: "string" },
    seeds: { type: "string" },
    epochs: { type: "string" },
    "data-root": { type: "string" },
    json: { type: "boolean" },
    "report-only": { type: "boolean" },
  },
  z
    .object({
      datasets: listFlag(z.string().min(1)).optional(),
      seeds: seedsFlag(3),
      epochs: positiveIntFlag(undefined, { max: 200 }).default(3),
      "data-root": z.string().min(1).optional(),
      json: z.boolean().default(false),
      "report-only": z.boolean().default(false),
    })
    .strict(),
);

/**
 * Training settings of the benchmark: the scorer's defaults (chosen on validation, docs/scorer.md) with the epoch
 * cap lowered to fit 24 folds x 3 seeds on 2 cores; early stopping on the fold's validation items within the cap.
 */
const config = { maxEpochs: args.epochs, patience: 1, lrPatience: 1 };
const configKey = JSON.stringify(resolveIrtMoeConfig(config));
const log = (s: string) => process.stderr.write(`${s}\n`);

function cacheFile(dataset: string, category: string, seed: number): string {
  let h = 0x811c9dc5;
  for (const ch of configKey) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  const dir = join(root, ".cache", "bench-predict", `${dataset}-${h.toString(16)}`);
  return join(dir, `${category.replace(/[^A-Za-z0-9._-]/g, "_")}-seed${seed}.json`);
}

function readCached(file: string): FoldResult | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as FoldResult;
  } catch {
    return undefined;
  }
}

function writeCached(file: string, result: FoldResult): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify(result));
  renameSync(`${file}.tmp`, file);
}

async function runDataset(name: string): Promise<FoldResult[]> {
  const ds = await loadDataset(name, args["data-root"] ? { dataRoot: args["data-root"] } : {});
  const split = splitIndices(
    ds.name,
    ds.items.map((it) => it.id),
  );
  const categories = ds.items.map((it) => it.category);
  const folds = categoryFolds(categories, split);
  const seeds = Array.from({ length: args.seeds }, (_, k) => k + 1);
  // Seed by seed, so an interrupted run still has every category for its first seeds.
  const todo = seeds.flatMap((seed) =>
    folds.map((fold) => ({ fold, seed, file: cacheFile(ds.name, fold.category, seed) })),
  );
  const cached = todo.filter((t) => readCached(t.file));
  log(
    `bench:predict ${ds.name}: ${folds.length} held-out categories x ${seeds.length} seeds = ${todo.length} trainings ` +
      `(${cached.length} cached); max ${args.epochs} epochs each on ~${folds[0]?.train.length ?? 0} train items.`,
  );
  if (args["report-only"]) return cached.map((t) => readCached(t.file)!);
  const results: FoldResult[] = [];
  const pending = todo.filter((t) => !readCached(t.file));
  if (pending.length > 0) {
    const { X, dim } = await embedForEval(ds, process.stderr);
    const data = embeddedLabelsOf(ds, X, dim);
    const { tf } = await getTf();
    const started = Date.now();
    let done = 0;
    for (const t of pending) {
      const r = await runFold(tf, data, categories, t.fold, t.seed, config);
      writeCached(t.file, r);
      done++;
      const perRun = (Date.now() - started) / done / 1000;
      log(
        `  ${t.fold.category} seed ${t.seed}: ${r.models.length} models, ${r.nTest} test items, best epoch ${r.bestEpoch}/${r.epochs}, ` +
          `known scale ${r.knownScale?.toFixed(3) ?? "-"}, beta prior ${r.priorStrength.toFixed(1)}; ${done}/${pending.length} done, ` +
          `~${((perRun * (pending.length - done)) / 60).toFixed(1)} min left`,
      );
    }
  }
  for (const t of todo) {
    const r = readCached(t.file);
    if (r) results.push(r);
  }
  return results;
}

const rows: PredictRow[] = [];
const perCategory: CategoryRow[] = [];
const markdown: string[] = [];
const everyFold: FoldResult[] = [];
for (const name of args.datasets ?? ALL) {
  const results = await runDataset(name);
  everyFold.push(...results);
  if (results.length === 0) {
    log(`bench:predict ${name}: no fold results (run without --report-only first).`);
    continue;
  }
  const summary = summarisePredict(name, results, PROBE_COUNTS);
  rows.push(...summary.rows);
  perCategory.push(...summary.categories);
  const seeds = new Set(results.map((r) => r.seed)).size;
  markdown.push(
    `### ${name} (${summary.categories.length} held-out categories, ${seeds} seed(s), max ${args.epochs} epochs)`,
    "",
    formatPredictMarkdown(summary.rows, summary.categories),
    "",
  );
}
// bench/results/predict.json keeps the other datasets' rows from earlier runs (each dataset with its own settings)
const resultsFile = join(root, "bench", "results", "predict.json");
const ran = new Set(rows.map((r) => r.dataset));
const previous = existsSync(resultsFile)
  ? (JSON.parse(readFileSync(resultsFile, "utf8")) as {
      rows?: PredictRow[];
      perCategory?: CategoryRow[];
      settings?: Record<string, unknown>;
    })
  : {};
const settings = { ...(previous.settings ?? {}) };
for (const d of ran) settings[d] = { seeds: args.seeds, config: JSON.parse(configKey) };
mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(
  resultsFile,
  `${JSON.stringify(
    {
      rows: [...(previous.rows ?? []).filter((r) => !ran.has(r.dataset)), ...rows],
      perCategory: [...(previous.perCategory ?? []).filter((c) => !ran.has(c.dataset)), ...perCategory],
      settings,
    },
    null,
    2,
  )}\n`,
);
// The library's calibration constants for the shipped scorer, fitted on every fold of every dataset (a benchmark the
// scorer never saw is, to it, one more held-out category): written only when both datasets ran.
if (ALL.every((d) => ran.has(d))) {
  const seedsSeen = [...new Set(everyFold.map((r) => r.seed))].sort();
  const calibration = fitPredictCalibration(
    everyFold,
    PROBE_COUNTS,
    `${ALL.join(" and ")}, leave one category out (${everyFold.length} folds, seeds ${seedsSeen.join(", ")}), npm run bench:predict`,
  );
  const calFile = join(root, "pretrained", "predict-calibration.json");
  writeFileSync(calFile, `${JSON.stringify(calibration, null, 2)}\n`);
  log(`bench:predict: wrote ${calFile} (shrink weight ${calibration.shrinkWeight.toFixed(3)})`);
}
process.stdout.write(args.json ? `${JSON.stringify({ rows }, null, 2)}\n` : `${markdown.join("\n")}\n`);
