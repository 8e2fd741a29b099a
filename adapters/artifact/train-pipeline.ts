/**
 * The training pipeline behind `irt-router train` and `npm run train:pretrained`: load datasets, embed
 * them (through the embedding cache), join models by the alias table, train, measure each dataset's
 * validation and test metrics, and assemble the artifact.
 */
import { z } from "zod";
import type { CorrectnessDataset } from "../../src/data/types.js";
import type { QueryEncoder } from "../../src/encoders/types.js";
import { ValidationError } from "../../src/errors.js";
import { parseWith } from "../../src/util/validate.js";
import { assertSameEncoder } from "../../src/encoders/identity.js";
import type { ScorerArtifact } from "../../src/scorer/artifact.js";
import { buildCatalog } from "../../src/scorer/catalog.js";
import { irtMoeConfigSchema, type IrtMoeConfig } from "../../src/scorer/config.js";
import { joinDatasets, type JoinedData } from "../../src/scorer/dataset.js";
import { betaDifficultyR, effectiveDifficulty, scorerMetrics } from "../../src/scorer/evaluate.js";
import { foldedItemParams, itemParamsOf, predictItems } from "../../src/scorer/forward.js";
import { trainIrtMoe, type EpochReport, type TrainedIrtMoe } from "../../src/scorer/train.js";
import { getDatasetEmbeddings } from "../data/dataset-embeddings.js";
import { embeddingNotice } from "../data/embedding-cache.js";
import { getTf } from "../tf.js";
import { fitKnownPriorOnTraining, type KnownPriorRecord } from "../../src/learning/known-prior.js";

/** The protocol's split rule, as recorded in manifests. */
export const SPLIT_RULE =
  'by item: h = first 8 hex digits of sha256(utf8("D/ID")) as uint32, u = h / 2^32; train if u < 0.8, val if u < 0.9, else test (D = dataset folder name)';

const optionsSchema = z
  .object({
    dataRoot: z.string().min(1).optional(),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .optional(),
    config: irtMoeConfigSchema.partial().optional(),
    encoder: z
      .custom<QueryEncoder>(
        (v) => typeof v === "object" && v !== null && typeof (v as QueryEncoder).embed === "function",
      )
      .optional(),
    cacheDir: z.string().min(1).optional(),
    log: z.custom<(line: string) => void>((v) => typeof v === "function").optional(),
    onEpoch: z.custom<(r: EpochReport) => void>((v) => typeof v === "function").optional(),
    onBatch: z.function().optional(),
    shareAbilities: z.boolean().optional(),
  })
  .strict();

/** Options of {@link trainScorerPipeline}. */
export interface TrainPipelineOptions {
  dataRoot?: string;
  seed?: number;
  config?: Partial<IrtMoeConfig>;
  /** Default: UseLiteEncoder. */
  encoder?: QueryEncoder;
  /** Embedding cache folder (default: the data adapters' default). */
  cacheDir?: string;
  log?: (line: string) => void;
  onEpoch?: (r: EpochReport) => void;
  onBatch?: (info: { epoch: number; itemsDone: number; itemsTotal: number; loss: number }) => void;
  /**
   * Whether a model present in several datasets shares one ability vector (default true). false gives
   * each (model, dataset) pair its own row (see `joinDatasets`); the pretrained scorer uses false.
   */
  shareAbilities?: boolean;
}

/** What the pipeline produced. */
export interface TrainPipelineResult {
  artifact: ScorerArtifact;
  trained: TrainedIrtMoe;
  joined: JoinedData;
  datasets: CorrectnessDataset[];
}

/**
 * Trains one scorer on the train splits of the named datasets (or your-own-data folders) jointly,
 * early-stopping on their validation splits; the manifest records each dataset's test metrics.
 *
 * @example
 * const { artifact } = await trainScorerPipeline(["mmlu-pro-29models"], { seed: 1 });
 * await saveScorer("./mmlu-scorer", artifact);
 */
export async function trainScorerPipeline(
  names: readonly string[],
  options: TrainPipelineOptions = {},
): Promise<TrainPipelineResult> {
  const opts = parseWith(optionsSchema, options, "options");
  const log = opts.log ?? (() => {});
  const { datasets, parts, encoderInfo } = await embedDatasets(names, opts, log);
  const joined = joinDatasets(parts, undefined, { shareAbilities: opts.shareAbilities ?? true });
  checkSplitSizes(joined, datasets);
  const { tf } = await getTf();
  const seed = opts.seed ?? 1;
  log(
    `training on ${joined.split.train.length} items (val ${joined.split.val.length}), ${joined.data.nModels} models, seed ${seed}`,
  );
  const trained = await trainIrtMoe(tf, joined.data, joined.split, (opts.config ?? {}) as Partial<IrtMoeConfig>, {
    seed,
    ...(opts.onEpoch ? { onEpoch: opts.onEpoch } : {}),
    ...(opts.onBatch ? { onBatch: opts.onBatch as TrainPipelineOptions["onBatch"] } : {}),
  });
  const { metrics, interpretability } = splitMetrics(trained, joined, log);
  let knownPrior: KnownPriorRecord | undefined;
  try {
    knownPrior = fitKnownPrior(trained, joined, datasets, log);
  } catch (error) {
    // The trained scorer is still good: ship it without a fitted prior (the learner's default applies) and say why.
    log(
      `known-model prior: the fit failed (${error instanceof Error ? error.message : String(error)}); the artifact has no knownPrior and the learner's default scale applies`,
    );
  }
  const catalog = buildCatalog(trained.weights.theta, trained.config.abilityDim, joined.stats);
  const artifact: ScorerArtifact = {
    weights: trained.weights,
    catalog,
    encoder: { id: encoderInfo.id, dim: encoderInfo.dim },
    config: trained.config,
    temperature: trained.temperature,
    calibration: trained.calibration,
    training: {
      datasets: joined.parts.map((p) => ({
        name: p.name,
        sha256: p.sha256,
        labels: datasets.find((d) => d.name === p.name)?.labels.y.some((v) => v > 0 && v < 1) ? "graded" : "binary",
        counts: { train: p.rows.train.length, val: p.rows.val.length, test: p.rows.test.length },
        models: [...p.models],
      })),
      splitRule: SPLIT_RULE,
      shareAbilities: opts.shareAbilities ?? true,
      seed,
      bestEpoch: trained.bestEpoch,
      epochs: trained.history.length,
      trainSeconds: trained.trainSeconds,
    },
    metrics,
    interpretability: { betaDifficulty: interpretability, val: trained.val },
    ...(knownPrior ? { knownPrior } : {}),
  };
  return { artifact, trained, joined, datasets };
}

/** Each dataset loaded and embedded (through the cache), all with one encoder (an error names the one that differs). */
async function embedDatasets(
  names: readonly string[],
  opts: z.output<typeof optionsSchema>,
  log: (line: string) => void,
): Promise<{
  datasets: CorrectnessDataset[];
  parts: { dataset: CorrectnessDataset; vectors: Float32Array; dim: number }[];
  encoderInfo: { id: string; dim: number };
}> {
  const datasets: CorrectnessDataset[] = [];
  const parts = [];
  let encoderInfo: { id: string; dim: number } | undefined;
  for (const name of names) {
    let last = 0;
    const emb = await getDatasetEmbeddings(name, {
      ...(opts.encoder ? { encoder: opts.encoder } : {}),
      ...(opts.dataRoot ? { dataRoot: opts.dataRoot } : {}),
      ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}),
      onProgress: (p) => {
        if (last === 0) log(embeddingNotice(name, p.total, opts.cacheDir));
        const now = Date.now();
        if (now - last > 10_000 || p.done === p.total) {
          last = now;
          log(`${name}: embedded ${p.done}/${p.total}`);
        }
      },
    });
    const ds = emb.dataset;
    log(
      `${ds.name}: ${ds.items.length} items, ${ds.models.length} models, ${emb.encoder.id}${emb.fromCache ? " (embeddings from cache)" : ""}`,
    );
    if (encoderInfo) assertSameEncoder(encoderInfo, emb.encoder, `embedding of ${ds.name}`);
    encoderInfo = emb.encoder;
    datasets.push(ds);
    parts.push({ dataset: ds, vectors: emb.vectors, dim: emb.dim });
  }
  return { datasets, parts, encoderInfo: encoderInfo! };
}

/**
 * Refuses, before training, data whose train or val split is empty (training fits on train and stops early on val):
 * a {@link ValidationError} (path `datasets`) naming each folder with its items per split, how the split is made and
 * what to do. A small your-own-data folder meets it: about 1 item in 10 goes to val, so 12 items have none 28% of
 * the time.
 */
export function checkSplitSizes(
  joined: Pick<JoinedData, "split" | "parts">,
  datasets: readonly CorrectnessDataset[],
): void {
  const empty = (["train", "val"] as const).filter((s) => joined.split[s].length === 0);
  if (empty.length === 0) return;
  const counts = joined.parts.map((part, k) => {
    const dir = datasets[k]?.source.dir ?? part.name;
    const { train, val, test } = part.rows;
    return {
      dir,
      name: part.name,
      items: train.length + val.length + test.length,
      train: train.length,
      val: val.length,
      test: test.length,
    };
  });
  const one = counts.length === 1;
  const listed = counts
    .map((c) => `${c.dir}: ${c.items} items, ${c.train} train, ${c.val} val, ${c.test} test`)
    .join("; ");
  throw new ValidationError(
    `Cannot train on ${one ? "this folder" : "these datasets"} (${listed}): training fits on the train items and ` +
      `stops early on the val items, so it needs both, and ${empty.join(" and ")} ${empty.length > 1 ? "are" : "is"} empty. ` +
      `The split is the protocol's, item by item: u = the first 8 hex digits of sha256("<folder name>/<item id>") / 2^32; ` +
      `train if u < 0.8, val if u < 0.9, else test (docs/your-own-data.md#split; the folder name "${counts[0]!.name}" ` +
      `is part of it), so about 1 item in 10 goes to val and a small folder may have none. ` +
      `Add items (with 50 or more, val is empty less than 1% of the time), or train it together with another ` +
      `dataset (--dataset ${one ? counts[0]!.dir : "<name>"} --dataset <another>), whose items count too.`,
    { path: "datasets", details: { splits: counts } },
  );
}

/**
 * Each dataset's val and test metrics for the manifest, and on test how well beta tracks the items' difficulty
 * (logged as it goes).
 */
function splitMetrics(
  trained: TrainedIrtMoe,
  joined: JoinedData,
  log: (line: string) => void,
): { metrics: ScorerArtifact["metrics"]; interpretability: Record<string, unknown> } {
  const metrics: ScorerArtifact["metrics"] = {};
  const interpretability: Record<string, unknown> = {};
  for (const part of joined.parts) {
    const entry: Record<string, Record<string, number | null>> = {};
    for (const which of ["val", "test"] as const) {
      const rows = part.rows[which];
      if (rows.length === 0) continue;
      const p = predictItems(trained, joined.data.X, rows);
      const m = scorerMetrics(p, joined.data, rows, part.rows.train);
      const { bestSingleModel: _b, ...numbers } = m;
      entry[which] = Object.fromEntries(Object.entries(numbers).map(([k, v]) => [k, Number.isFinite(v) ? v : null]));
      if (which !== "test") continue;
      const params = rows.map((i) =>
        itemParamsOf(trained.weights, joined.data.X.subarray(i * joined.data.dim, (i + 1) * joined.data.dim)),
      );
      const r = betaDifficultyR(
        params.map((q) => q.beta),
        joined.data,
        rows,
      );
      // beta_q - alpha_q . mean(theta over the dataset's models): the logit's offset for an average model.
      const effective = params.map((q) => effectiveDifficulty(q, trained.weights.theta, part.modelIndex));
      const rEffective = betaDifficultyR(effective, joined.data, rows);
      interpretability[part.name] = {
        betaDifficultyPearsonR: r,
        effectiveDifficultyPearsonR: rEffective,
        items: rows.length,
        bestSingleModel: m.bestSingleModel,
      };
      log(
        `${part.name} test: routing ${m.routingAccuracy.toFixed(4)} (best single ${m.bestSingle.toFixed(4)} ${m.bestSingleModel}, oracle ${m.oracle.toFixed(4)}), AUC ${m.auc.toFixed(4)}, ECE ${m.ece.toFixed(4)}, r(beta, difficulty) ${r.toFixed(3)}, r(beta - alpha.mean theta, difficulty) ${rEffective.toFixed(3)}`,
      );
    }
    metrics[part.name] = entry;
  }
  return { metrics, interpretability };
}

/**
 * The known-model prior fitted on the train split, one workload per (model row, item category); undefined when
 * no dataset has categories (the learner then uses its default scale, and the log says so).
 */
function fitKnownPrior(
  trained: TrainedIrtMoe,
  joined: JoinedData,
  datasets: readonly CorrectnessDataset[],
  log: (line: string) => void,
): KnownPriorRecord | undefined {
  const { data } = joined;
  const categories = datasets.flatMap((ds) =>
    ds.items.map((it) => (it.category ? `${ds.name}/${it.category}` : undefined)),
  );
  if (!categories.some((c) => c !== undefined)) {
    log(
      "known-model prior: no item categories in the training data, so no scale was fitted (the learner's default applies)",
    );
    return undefined;
  }
  const d = trained.config.abilityDim;
  const { alphas, betas } = foldedItemParams(trained, data.X, joined.split.train);
  const t0 = performance.now();
  const theta = trained.weights.theta;
  const abilities = Array.from({ length: data.nModels }, (_, m) => theta.subarray(m * d, (m + 1) * d));
  const fitOn = (dataset?: string) =>
    fitKnownPriorOnTraining({
      dim: d,
      alphas,
      betas,
      abilities,
      labels: data,
      rows: joined.split.train,
      groupOf:
        dataset === undefined
          ? (i) => categories[i]
          : (i) => (categories[i]?.startsWith(`${dataset}/`) ? categories[i] : undefined),
    });
  const fit = fitOn();
  if (!fit) return undefined;
  const describe = (f: KnownPriorRecord) =>
    `${f.scale.toFixed(4)}${f.atBoundary ? " (at the end of the search range)" : ""}, ${f.groups} groups, ${f.labels} labels${f.unconverged ? `, ${f.unconverged} group evaluations at the Newton iteration cap` : ""}`;
  log(
    `known-model prior: scale ${describe(fit)} (fraction of the population covariance, Laplace evidence over (model, category) groups)`,
  );
  const perDataset: [string, { scale: number; atBoundary: boolean; groups: number; labels: number }][] = [];
  if (datasets.length > 1)
    for (const ds of datasets) {
      const f = fitOn(ds.name);
      if (!f) continue;
      perDataset.push([ds.name, { scale: f.scale, atBoundary: f.atBoundary, groups: f.groups, labels: f.labels }]);
      log(`known-model prior on ${ds.name} alone: scale ${describe(f)}`);
    }
  log(`known-model prior fitted in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  // Object.fromEntries defines own keys: a dataset folder named "__proto__" keeps its entry (an assignment lost it)
  return perDataset.length > 0 ? { ...fit, byDataset: Object.fromEntries(perDataset) } : fit;
}
