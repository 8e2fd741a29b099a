/**
 * The texts the static table is fitted on: each dataset's train split (and, to choose settings, its val split),
 * tokenized by the static encoder's tokenizer, with their USE-lite vectors from the embedding cache (computed with
 * USE-lite when missing, about 25 texts/s: see `embeddingNotice`). Test items are never read.
 */
import { splitIndices } from "../../src/data/split.js";
import { SentencePieceTokenizer } from "../../src/encoders/sentencepiece.js";
import { sifWeight } from "../../src/encoders/static-table.js";
import { getDatasetEmbeddings } from "../../adapters/data/dataset-embeddings.js";
import { USE_LITE_DIM } from "../../adapters/encoders/use-lite.js";
import { bagOf, type Bag } from "./distil.js";
import { usedRow, type Teacher } from "./teacher.js";

/** Tokens read per text in the fit: the static encoder's default `maxTokens`. */
export const FIT_MAX_TOKENS = 512;

/**
 * How the fit reads a text: the static encoder's tokenization (its first FIT_MAX_TOKENS pieces) and each piece's
 * SIF weight at `sifA` (0 for ids the tokenizer never produces), the same weights the table's rows are scaled by.
 */
export function fitInputs(
  teacher: Teacher,
  sifA: number,
): { tokenize: (text: string) => number[]; sif: Float64Array; weight: (id: number) => number } {
  const tokenizer = new SentencePieceTokenizer(teacher.vocabulary);
  const sif = Float64Array.from(teacher.vocabulary, ([, logProb], r) => (usedRow(r) ? sifWeight(logProb, sifA) : 0));
  return {
    tokenize: (text) => tokenizer.encode(text).slice(0, FIT_MAX_TOKENS),
    sif,
    weight: (id) => sif[id] ?? 0,
  };
}

/** Texts as weighted bags of pieces, and their teacher vectors (texts x 512). */
export interface FitPart {
  readonly bag: Bag;
  readonly targets: Float32Array;
}

/** The train and val parts of one dataset. */
export async function datasetParts(
  name: string,
  tokenize: (text: string) => number[],
  weight: (id: number) => number,
): Promise<{ train: FitPart; val: FitPart }> {
  const { dataset, vectors, dim } = await getDatasetEmbeddings(name);
  if (dim !== USE_LITE_DIM) throw new Error(`${name}: expected USE-lite vectors of ${USE_LITE_DIM} dims, got ${dim}`);
  const split = splitIndices(
    dataset.name,
    dataset.items.map((it) => it.id),
  );
  const part = (idx: number[]): FitPart => {
    const bag = bagOf(
      idx.map((i) => tokenize(dataset.items[i]!.text)),
      weight,
    );
    const targets = new Float32Array(idx.length * dim);
    idx.forEach((i, k) => targets.set(vectors.subarray(i * dim, (i + 1) * dim), k * dim));
    return { bag, targets };
  };
  return { train: part(split.train), val: part(split.val) };
}

/** Several parts as one (texts in order). */
export function concatParts(parts: readonly FitPart[]): FitPart {
  const dim = USE_LITE_DIM;
  const texts = parts.reduce((s, p) => s + p.bag.texts, 0);
  const nnz = parts.reduce((s, p) => s + p.bag.cols.length, 0);
  const offsets = new Uint32Array(texts + 1);
  const cols = new Uint32Array(nnz);
  const vals = new Float64Array(nnz);
  const targets = new Float32Array(texts * dim);
  let t0 = 0;
  let k0 = 0;
  for (const p of parts) {
    for (let t = 0; t < p.bag.texts; t++) offsets[t0 + t + 1] = k0 + p.bag.offsets[t + 1]!;
    cols.set(p.bag.cols, k0);
    vals.set(p.bag.vals, k0);
    targets.set(p.targets, t0 * dim);
    t0 += p.bag.texts;
    k0 += p.bag.cols.length;
  }
  return { bag: { texts, offsets, cols, vals }, targets };
}
