/**
 * `irt-router predict`: each model's predicted accuracy on a dataset's items (the mean predicted p over them) with
 * an interval over the model's ability uncertainty, from the scorer alone or refined by `--probes N` results of the
 * model on the dataset, replayed from the dataset's own labels of that model (src/learning/predict.ts, docs/evaluation.md).
 */
import { dirname } from "node:path";
import { z } from "zod";
import { listFlag, nonNegativeIntFlag } from "../flag-schemas.js";
import type { CorrectnessDataset } from "../../../src/data/types.js";
import { IrtRouterError, ValidationError } from "../../../src/errors.js";
import { predictAccuracy, type AccuracyPrediction, type ProbeOutcome } from "../../../src/learning/predict.js";
import type { ModelStart } from "../../../src/learning/learner-types.js";
import { priorStart } from "../../../src/core/routing/scoring-context.js";
import { ModelResolver } from "../../../src/scorer/catalog.js";
import type { IrtMoeScorer } from "../../../src/scorer/scorer.js";
import { loadPretrained, loadScorer, pretrainedDir } from "../../artifact/load.js";
import { loadPredictCalibration } from "../../artifact/interval-calibration.js";
import { getDatasetEmbeddings } from "../../data/dataset-embeddings.js";
import { embeddingCacheDir, embeddingNotice, peekCachedEmbeddings } from "../../data/embedding-cache.js";
import { loadDataset } from "../../data/load-dataset.js";
import { sampleItems } from "../../learning/probe-bank.js";
import type { CliCommand } from "../command.js";
import { Progress } from "../../progress.js";
import {
  CACHE_DIR_OUTPUT,
  datasetEncoder,
  ENCODER_FLAG_USAGE,
  ENCODER_NEEDS,
  encoderFlag,
  loadCommandScorer,
  withOptionalPackages,
} from "../scorer.js";
import type { EncoderName } from "../../encoders/choice.js";

const schema = z
  .object({
    dataset: z
      .string({ error: "is required: a dataset name (e.g. mmlu-pro-29models) or a folder (docs/your-own-data.md)" })
      .min(1),
    models: listFlag(z.string(), "needs at least one model id (comma-separated)").optional(),
    probes: nonNegativeIntFlag("probe results per model; 0: the scorer alone").default(0),
    seed: nonNegativeIntFlag().default(0),
    model: z.string().min(1).optional(),
    "data-root": z.string().min(1).optional(),
    "cache-dir": z.string().min(1).optional(),
    json: z.boolean().default(false),
    uncalibrated: z.boolean().default(false),
    encoder: encoderFlag,
  })
  .strict();

type Args = z.output<typeof schema>;

/** One model of the report: the prediction, and the dataset's own record of it when it has one. */
export interface PredictRow extends AccuracyPrediction {
  /** The name asked for (`--models` or the dataset's column). */
  readonly name: string;
  /** The model's observed accuracy over its labelled items of the dataset (absent: no labels of it there). */
  readonly observed?: number;
  readonly observedItems: number;
  /**
   * For a model the scorer does not know that the current-models catalog does: where its prior comes from
   * (`published`, `terminal-bench`, `family-tier`; docs/catalog.md) and the source, as a router starts it.
   */
  readonly catalogPrior?: { readonly method: string; readonly source: string };
}

/** A model's current-models catalog prior on this scorer, as the start a router gives it (undefined: none usable). */
async function catalogStart(name: string, scorer: IrtMoeScorer) {
  const { currentModels } = await import("../../../src/scorer/model-catalog.js");
  const catalog = await currentModels();
  const model = catalog.resolve(name);
  const prior = model && catalog.priorOn(model, scorer);
  const start = prior && priorStart(prior);
  if (!start) return undefined;
  return { id: prior.id, start, catalogPrior: { method: prior.method, source: prior.source } };
}

/**
 * Loads the scorer: `--model` (default the pretrained one of `--encoder`, default static); one of another encoder is
 * used when the dataset's vectors from it are cached.
 */
async function predictScorer(
  dir: string | undefined,
  encoder: EncoderName | undefined,
  ds: CorrectnessDataset,
  cacheDir: string | undefined,
): Promise<IrtMoeScorer> {
  const path = dir === undefined || dir === "pretrained" ? undefined : dir;
  return loadCommandScorer(path, {
    path: "options.model",
    encoder,
    otherwise: async (mismatch) => {
      if (!(await peekCachedEmbeddings(ds, mismatch.expected, cacheDir ? { cacheDir } : {}))) return undefined;
      return path === undefined ? loadPretrained({ encoder: null }) : loadScorer(path, { encoder: null });
    },
    hint: (mismatch) =>
      `predict scores the dataset's items with the vectors of the scorer's encoder, and the embedding cache (${embeddingCacheDir(cacheDir)}) has none of ` +
      `${ds.name} from "${mismatch.expected.id}"; irt-router embeds text with the static encoder or USE-lite only. Cache the vectors from ` +
      `"${mismatch.expected.id}" there first (embedDataset(dataset, encoder) in the library), or give --model a scorer built with one of them.`,
  });
}

/** Item parameters (temperature folded in) of every item of `ds`, from cached or freshly computed vectors. */
async function itemParameters(scorer: IrtMoeScorer, ds: CorrectnessDataset, cacheDir: string | undefined) {
  const options = cacheDir ? { cacheDir } : {};
  let bar: Progress | undefined;
  const cached = await peekCachedEmbeddings(ds, scorer.encoder, options);
  const emb =
    cached ??
    (await getDatasetEmbeddings(ds, {
      ...options,
      ...(await datasetEncoder(scorer)),
      onProgress: (p) => {
        if (!bar) process.stderr.write(`${embeddingNotice(ds.name, p.total, cacheDir)}\n`);
        (bar ??= new Progress({ label: `embedding ${ds.name}`, total: p.total, unit: "texts" })).update(p.done);
      },
    }));
  bar?.finish();
  const d = scorer.abilityDim;
  const T = scorer.temperature;
  const alphas = new Float32Array(ds.items.length * d);
  const betas = new Float32Array(ds.items.length);
  const scoring = new Progress({ label: `item parameters of ${ds.name}`, total: ds.items.length, unit: "items" });
  for (let i = 0; i < ds.items.length; i++) {
    const q = await scorer.itemParams(emb.vectors.subarray(i * emb.dim, (i + 1) * emb.dim));
    for (let k = 0; k < d; k++) alphas[i * d + k] = q.alpha[k]! / T;
    betas[i] = q.beta / T;
    if (i % 256 === 255) scoring.update(i + 1);
  }
  scoring.finish();
  return { dim: d, alphas, betas };
}

/** The dataset's labels of one model column: item index -> y. */
function labelsOf(ds: CorrectnessDataset, column: number): Map<number, number> {
  const out = new Map<number, number>();
  for (let i = 0; i < ds.items.length; i++)
    for (let j = ds.labels.offsets[i]!; j < ds.labels.offsets[i + 1]!; j++)
      if (ds.labels.model[j] === column) out.set(i, ds.labels.y[j]!);
  return out;
}

/** A model to predict: the name asked for, its id, the dataset's labels of it, and its catalog start if it has one. */
interface ModelPlan {
  readonly name: string;
  readonly id: string;
  readonly labels: Map<number, number>;
  readonly start?: ModelStart;
  readonly catalogPrior?: PredictRow["catalogPrior"];
}

/** Resolves each model asked for, refusing one there is nothing to predict from (see {@link predictDataset}). */
async function planModels(
  a: Args,
  ds: CorrectnessDataset,
  scorer: IrtMoeScorer,
  warn: (line: string) => void,
): Promise<ModelPlan[]> {
  const names = a.models ?? [...ds.models];
  const resolver = new ModelResolver(scorer.models);
  const plans: ModelPlan[] = [];
  for (const [k, name] of names.entries()) {
    let id = name;
    let known = true;
    try {
      id = scorer.models[resolver.indexOf(name)]!.id;
    } catch {
      known = false;
    }
    const catalog = known ? undefined : await catalogStart(name, scorer);
    if (catalog) id = catalog.id;
    const column = ds.models.indexOf(name);
    const labels = column >= 0 ? labelsOf(ds, column) : new Map<number, number>();
    if (!known && !catalog && a.probes === 0) {
      const close = resolver.suggest(name);
      throw new IrtRouterError(
        "UNKNOWN_MODEL",
        `the scorer does not know model "${name}" and --probes is 0, so there is nothing to predict it from. ` +
          (labels.size > 0
            ? `Give --probes N (e.g. --probes 20) to replay N of its ${labels.size} labelled results in ${ds.name} as probes`
            : `It has no labels in ${ds.name} to replay as probes either: add some of its results to the dataset and give --probes N`) +
          `${close.length > 0 ? `, or, if you meant a known model: ${close.join(", ")}` : ""}.`,
        { path: a.models ? `options.models.${k}` : "options.probes", details: { model: name } },
      );
    }
    if (a.probes > 0 && labels.size === 0) {
      throw new ValidationError(
        `--probes ${a.probes} replays each model's results from the dataset's labels, and ${ds.name} has none of "${name}" (model columns: ${ds.models.join(", ")}). ` +
          `Leave --probes out for it (the scorer alone) or add its results to the dataset.`,
        { path: "options.probes" },
      );
    }
    if (a.probes > labels.size)
      warn(
        `note: "${name}" has ${labels.size} labelled items in ${ds.name}, fewer than --probes ${a.probes}; all ${labels.size} are used as probes.`,
      );
    plans.push({ name, id, labels, ...(catalog && { start: catalog.start, catalogPrior: catalog.catalogPrior }) });
  }
  return plans;
}

/**
 * Predicts every requested model (default: the dataset's model columns) on the dataset's items.
 *
 * @example
 * ```ts
 * const rows = await predictDataset({ dataset: "mmlu-pro-29models", probes: 10, seed: 0, json: false });
 * ```
 */
export async function predictDataset(
  a: Args,
  warn: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<{ dataset: CorrectnessDataset; rows: PredictRow[] }> {
  const ds = await loadDataset(a.dataset, a["data-root"] ? { dataRoot: a["data-root"] } : {});
  const scorer = await predictScorer(a.model, a.encoder, ds, a["cache-dir"]);
  const plans = await planModels(a, ds, scorer, warn);
  const items = await withOptionalPackages(
    `irt-router predict with the encoder "${scorer.encoder.id}"`,
    "leave --encoder and --model out to use the static encoder and its pretrained scorer, which need none",
    () => itemParameters(scorer, ds, a["cache-dir"]),
  );
  const d = items.dim;
  const models = plans.map((p) => {
    const pool = [...p.labels.keys()];
    const picked = a.probes > 0 ? sampleItems(pool.length, a.probes, a.seed).map((r) => pool[r]!) : [];
    const probes: ProbeOutcome[] = picked.map((i) => ({
      alpha: items.alphas.subarray(i * d, (i + 1) * d),
      beta: items.betas[i]!,
      y: p.labels.get(i)!,
      item: i,
    }));
    return { id: p.id, probes, ...(p.start && { start: p.start }) };
  });
  // The scorer's calibration for unseen benchmarks, beside its manifest (the USE-lite pretrained scorer's is
  // pretrained/predict-calibration.json; the static one has none yet; a --model directory's own).
  const calibration = a.uncalibrated
    ? undefined
    : loadPredictCalibration(scorer.manifestFile ? dirname(scorer.manifestFile) : pretrainedDir());
  const predictions = predictAccuracy({ scorer, items, models, seed: a.seed, ...(calibration ? { calibration } : {}) });
  const rows = predictions.map((pred, k): PredictRow => {
    const labels = plans[k]!.labels;
    let sum = 0;
    for (const y of labels.values()) sum += y;
    const { catalogPrior } = plans[k]!;
    return {
      ...pred,
      name: plans[k]!.name,
      ...(catalogPrior && { catalogPrior }),
      ...(labels.size > 0 ? { observed: sum / labels.size } : {}),
      observedItems: labels.size,
    };
  });
  return { dataset: ds, rows };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function formatRows(ds: CorrectnessDataset, rows: readonly PredictRow[], probes: number): string {
  const head = `Predicted accuracy on ${ds.name} (${ds.items.length} items), ${probes > 0 ? `${probes} probe(s) per model replayed from its labels` : "scorer alone (no probes)"}:`;
  const table = [
    "| model | predicted | 95% interval | calibrated | probes | prior | observed |",
    "|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.name}${r.model !== r.name ? ` (${r.model})` : ""} | ${pct(r.accuracy)} | ${pct(r.interval[0])} - ${pct(r.interval[1])} | ` +
        `${r.calibrated && r.scorer ? `yes (scorer alone ${pct(r.scorer.accuracy)})` : "no"} | ${r.probes} | ` +
        `${r.known ? "scorer" : r.catalogPrior ? `catalog: ${r.catalogPrior.method}` : "new model"} | ${r.observed !== undefined ? `${pct(r.observed)} (${r.observedItems} items)` : "-"} |`,
    ),
  ];
  const foot =
    "Calibrated: shrunk toward the model's catalog accuracy, with a predictive interval that includes the scorer's error on a " +
    "benchmark it never saw (fitted leaving one category out; docs/evaluation.md); --uncalibrated shows the scorer alone. " +
    "Otherwise the interval is the model's ability uncertainty only (new models, and scorers without a calibration). " +
    "Prior: the scorer's own row of the model, its current-models catalog prior on this scorer (the router's start for " +
    "it; docs/catalog.md), or the new-model prior (probes only). " +
    "Observed: the dataset's own record of the model (its probes included), for comparison.";
  return [head, "", ...table, "", foot].join("\n");
}

export const command: CliCommand<typeof schema> = {
  name: "predict",
  summary:
    "Predict each model's accuracy on a dataset it may never have been run on (mean predicted p over the items, with an interval over its ability uncertainty), from the scorer alone or refined by --probes N results replayed from the dataset's labels.",
  usage:
    "irt-router predict --dataset <name-or-folder> [--models a,b] [--probes N] [--seed N] [--json] [--uncalibrated] [--model pretrained|<dir>] [--encoder static|use-lite] [--data-root D] [--cache-dir C]\n" +
    ENCODER_FLAG_USAGE +
    " (the pretrained USE-lite scorer has an interval calibration, the static one none yet: its intervals are the ability uncertainty only)",
  needs: `${ENCODER_NEEDS}. The dataset is read from --data-root or the dataset folder given (no download).`,
  options: {
    dataset: { type: "string" },
    models: { type: "string" },
    probes: { type: "string" },
    seed: { type: "string" },
    model: { type: "string" },
    "data-root": { type: "string" },
    "cache-dir": { type: "string" },
    json: { type: "boolean" },
    uncalibrated: { type: "boolean" },
    encoder: { type: "string" },
  },
  schema,
  outputs: { "cache-dir": CACHE_DIR_OUTPUT },
  async run(args) {
    const { dataset, rows } = await predictDataset(args);
    if (args.json) {
      const out = {
        dataset: dataset.name,
        items: dataset.items.length,
        probes: args.probes,
        seed: args.seed,
        models: rows,
      };
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    } else process.stdout.write(`${formatRows(dataset, rows, args.probes)}\n`);
    return 0;
  },
};

export default command;
