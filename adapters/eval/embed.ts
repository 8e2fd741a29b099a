import type { CorrectnessDataset } from "../../src/data/types.js";
import type { QueryEncoder } from "../../src/encoders/types.js";
import { Progress } from "../progress.js";
import { embeddingNotice } from "../data/embedding-cache.js";
import { getDatasetEmbeddings } from "../data/dataset-embeddings.js";

/** The query embeddings of a whole dataset, with the encoder that made them. */
export interface EvalEmbeddings {
  /** `nItems x dim`, row-major, in item order. */
  readonly X: Float32Array;
  readonly dim: number;
  readonly encoderId: string;
  /** Whether the vectors came from the on-disk cache (false: computed by this call). */
  readonly fromCache?: boolean;
}

/**
 * The embeddings `eval` uses: the vectors of every item text by `encoder` (default the project's offline USE-lite),
 * from the on-disk embedding cache when present (keyed by encoder id and a hash of the item ids and texts),
 * else computed and cached, with progress on stderr.
 *
 * @example
 * ```ts
 * const { X, dim } = await embedForEval(await loadDataset("routerbench-subset-11models"));
 * ```
 */
export async function embedForEval(
  ds: CorrectnessDataset,
  log: { isTTY?: boolean; write(s: string): boolean } = process.stderr,
  encoder?: QueryEncoder,
): Promise<EvalEmbeddings> {
  let bar: Progress | undefined;
  const result = await getDatasetEmbeddings(ds, {
    ...(encoder && { encoder }),
    onProgress: (p) => {
      // only called while texts are embedded (a cache hit reports no progress)
      if (!bar) log.write(`${embeddingNotice(ds.name, p.total)}\n`);
      bar ??= new Progress({ label: `embedding ${ds.name}`, total: p.total, unit: "texts", stream: log });
      bar.update(p.done);
    },
  });
  if (result.fromCache)
    log.write(`embedding ${ds.name}: ${result.count} texts served from the cache (${result.file})\n`);
  bar?.finish();
  return { X: result.vectors, dim: result.dim, encoderId: result.encoder.id, fromCache: result.fromCache };
}
