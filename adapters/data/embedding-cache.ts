/**
 * Embedding a dataset through the disk cache ({@link embedDataset}), resuming an interrupted run from its
 * checkpoint; the files themselves are embedding-file.ts's, the run's steps embed-run.ts's.
 */
import type { z } from "zod";
import { EncoderInputError } from "../../src/errors.js";
import type { QueryEncoder } from "../../src/encoders/types.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { parseWith } from "../../src/util/validate.js";
import {
  datasetTextHash,
  embeddingCacheDir,
  embeddingCacheFile,
  ensureEmbeddingCacheDir,
  readEmbeddingCacheFile,
  type CacheExpectation,
} from "./embedding-file.js";
import { EmbedRun, embedOptionsSchema } from "./embed-run.js";

export { resumeNote, type EmbedAbort, type EmbedProgress } from "./embed-run.js";

export {
  CACHE_DIR_ENV,
  datasetTextHash,
  embeddingCacheDir,
  embeddingCacheFile,
  ensureEmbeddingCacheDir,
  readEmbeddingCacheFile,
  writeEmbeddingCacheFile,
  type CacheExpectation,
  type CacheReadResult,
  type EmbeddingCacheHeader,
} from "./embedding-file.js";

/** Options of {@link embedDataset}. */
export type EmbedDatasetOptions = z.input<typeof embedOptionsSchema>;

/** Embeddings of a dataset, one row per item in item order. */
export interface DatasetEmbeddings {
  /** `count * dim` values, row-major: item i is `vectors.subarray(i * dim, (i + 1) * dim)`. */
  readonly vectors: Float32Array;
  readonly dim: number;
  readonly count: number;
  /** Served entirely from the cache, without calling the encoder. */
  readonly fromCache: boolean;
  /** Vectors resumed from a partial checkpoint (0 if none). */
  readonly resumed: number;
  /** The cache file. */
  readonly file: string;
  readonly encoder: { readonly id: string; readonly dim: number };
  /** Why an existing cache file was not used (e.g. "vector checksum mismatch"), if there was one. */
  readonly cacheProblem?: string;
  /** Why the computed vectors could not be written to `file` (they are returned all the same), if they could not. */
  readonly notCached?: string;
}

/**
 * Embed every item text of `ds` with `encoder`, through a disk cache keyed by the encoder id and a hash
 * of the item ids and texts. A valid cache file is returned without calling the encoder. Otherwise the
 * texts are embedded in batches, partial progress is checkpointed (atomically) at most every
 * `checkpointEveryMs`, an interrupted run resumes from its checkpoint, and the complete file is written
 * atomically. A bad vector from the encoder (wrong count, wrong length, NaN) is an error and is never cached.
 * With `signal`, an abort writes a checkpoint (tried even when a periodic one failed) and rejects with the signal's
 * reason; `onAbort` is told whether the checkpoint was written (without it, one that could not be is reported through
 * `onWarning`).
 * A cache folder that cannot be created or written is a `CacheError` before anything is embedded; a write that
 * fails afterwards (e.g. a full disk) is reported through `onWarning` and the vectors are returned uncached
 * (`notCached` says why).
 *
 * @example
 * ```ts
 * const ds = await loadDataset("routerbench-subset-11models");
 * const encoder = await UseLiteEncoder.load();
 * const { vectors, dim, fromCache } = await embedDataset(ds, encoder, { onProgress: (p) => console.log(p.done) });
 * const first = vectors.subarray(0, dim);
 * ```
 */
export async function embedDataset(
  ds: CorrectnessDataset,
  encoder: QueryEncoder,
  options: EmbedDatasetOptions = {},
): Promise<DatasetEmbeddings> {
  const opts = parseWith(embedOptionsSchema, options, "options");
  const dim = encoder.dim;
  if (!Number.isInteger(dim) || dim <= 0) {
    throw new EncoderInputError(
      `Encoder "${encoder.id}" reports dim ${dim}; an encoder must have a positive integer dim.`,
    );
  }
  const env = (opts.env as NodeJS.ProcessEnv | undefined) ?? process.env;
  const dir = embeddingCacheDir(opts.cacheDir, env);
  const dataHash = datasetTextHash(ds);
  const expect: CacheExpectation = {
    encoderId: encoder.id,
    dim,
    count: ds.items.length,
    dataHash,
    itemIdHash: datasetTextHash(ds, false),
  };
  const file = embeddingCacheFile(dir, encoder.id, dataHash);
  const cached = await readEmbeddingCacheFile(file, expect);
  if (cached.ok) {
    // Nothing is computed: no progress is reported (fromCache says it on the result).
    const { count } = expect;
    return { vectors: cached.vectors, dim, count, fromCache: true, resumed: 0, file, encoder: { id: encoder.id, dim } };
  }
  const cacheProblem = cached.reason === "no cache file" ? undefined : cached.reason;
  await ensureEmbeddingCacheDir(opts.cacheDir, env);
  const warn = opts.onWarning ?? ((message: string) => console.warn(message));
  const run = await EmbedRun.resume({ ds, encoder, expect, file, dir, warn });
  await run.embedAll(opts);
  const notCached = await run.writeComplete();
  return {
    ...run.result(),
    file,
    encoder: { id: encoder.id, dim },
    ...(cacheProblem ? { cacheProblem } : {}),
    ...(notCached ? { notCached } : {}),
  };
}

/**
 * The cached embeddings of `ds` for an encoder identified by `encoder.id`/`encoder.dim`, without calling
 * (or loading) the encoder; `undefined` when there is no valid complete cache file.
 *
 * @example
 * ```ts
 * const hit = await peekCachedEmbeddings(ds, { id: "use-lite-512@model-embeddings-en-0.2.0", dim: 512 });
 * ```
 */
export async function peekCachedEmbeddings(
  ds: CorrectnessDataset,
  encoder: { readonly id: string; readonly dim: number },
  options: { cacheDir?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<DatasetEmbeddings | undefined> {
  const dataHash = datasetTextHash(ds);
  const file = embeddingCacheFile(embeddingCacheDir(options.cacheDir, options.env), encoder.id, dataHash);
  const cached = await readEmbeddingCacheFile(file, {
    encoderId: encoder.id,
    dim: encoder.dim,
    count: ds.items.length,
    dataHash,
    itemIdHash: datasetTextHash(ds, false),
  });
  if (!cached.ok) return undefined;
  return {
    vectors: cached.vectors,
    dim: encoder.dim,
    count: ds.items.length,
    fromCache: true,
    resumed: 0,
    file,
    encoder: { id: encoder.id, dim: encoder.dim },
  };
}

/** Texts a second the offline encoder embeds on 2 cores (measured on the demo's RouterBench prompts). */
export const EMBED_TEXTS_PER_SECOND = 25;

/**
 * What to say before a dataset's texts are embedded: how many, about how long, and the cache that will keep them.
 *
 * @example
 * ```ts
 * embeddingNotice("routerbench-subset-11models", 3164); // "Embedding 3164 texts of ... takes about 2 min ..."
 * ```
 */
export function embeddingNotice(name: string, total: number, cacheDir?: string): string {
  const secs = total / EMBED_TEXTS_PER_SECOND;
  const time = secs < 90 ? `about ${Math.max(1, Math.round(secs))} s` : `about ${Math.round(secs / 60)} min`;
  return (
    `Embedding ${total} texts of ${name} with the offline encoder takes ${time} on 2 cores; they are cached in ` +
    `${embeddingCacheDir(cacheDir)} for every later run.`
  );
}
