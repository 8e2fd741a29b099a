import type { CorrectnessDataset } from "../../src/data/types.js";
import { Progress } from "../cli/progress.js";
import { UseLiteEncoder } from "../encoders/use-lite.js";

/** The query embeddings of a whole dataset, with the encoder that made them. */
export interface EvalEmbeddings {
  /** `nItems x dim`, row-major, in item order. */
  readonly X: Float32Array;
  readonly dim: number;
  readonly encoderId: string;
}

/**
 * Embeds every item text of `ds` with the offline USE-lite encoder (progress on stderr).
 *
 * @example
 * ```ts
 * const { X, dim } = await embedForEval(await loadDataset("routerbench-subset-11models"));
 * ```
 */
export async function embedForEval(ds: CorrectnessDataset): Promise<EvalEmbeddings> {
  const encoder = await UseLiteEncoder.load();
  const X = new Float32Array(ds.items.length * encoder.dim);
  const bar = new Progress({ label: `embedding ${ds.name}`, total: ds.items.length, unit: "texts" });
  const batch = 64;
  for (let start = 0; start < ds.items.length; start += batch) {
    const texts = ds.items.slice(start, start + batch).map((it) => it.text);
    const vectors = await encoder.embed(texts);
    vectors.forEach((v, k) => X.set(v, (start + k) * encoder.dim));
    bar.tick(texts.length);
  }
  bar.finish();
  return { X, dim: encoder.dim, encoderId: encoder.id };
}
