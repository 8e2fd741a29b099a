import { createHash, randomBytes } from "node:crypto";
import { endianness } from "node:os";
import { open, readFile, rename, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { z } from "zod";
import { EmbeddingProviderError, EncoderInputError } from "../../src/errors.js";
import type { QueryEncoder } from "../../src/encoders/types.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { parseWith } from "../../src/util/validate.js";
import { defaultCacheRoot, ensureWritableCacheDir, fsProblem } from "./cache-dir.js";

/** Environment variable naming the embedding cache folder. */
export const CACHE_DIR_ENV = "IRT_ROUTER_CACHE";

const MAGIC = "IRTEMB01";
const FORMAT_VERSION = 1;
const PREFIX_BYTES = MAGIC.length + 4; // magic + uint32 LE header length

/** The JSON header of a cache file. */
export interface EmbeddingCacheHeader {
  readonly format: number;
  /** `"complete"` (all `count` vectors) or `"partial"` (a checkpoint holding the first `done`). */
  readonly kind: "complete" | "partial";
  readonly encoderId: string;
  readonly dim: number;
  /** Number of items of the dataset. */
  readonly count: number;
  /** Vectors stored (= count when complete). */
  readonly done: number;
  /** sha256 over the item ids and texts, in order: what the vectors depend on. */
  readonly dataHash: string;
  /** sha256 over the item ids, in order. */
  readonly itemIdHash: string;
  /** The dataset's name and `source.sha256` when the file was written (informational). */
  readonly dataset: { readonly name: string; readonly sha256: string };
  /** sha256 of the stored vector bytes. */
  readonly vectorsSha256: string;
}

/**
 * The folder embeddings are cached in: `cacheDir` if given, else `$IRT_ROUTER_CACHE`, else `embeddings` under
 * {@link defaultCacheRoot}: `<package root>/.cache/embeddings` in a source checkout (git-ignored), the per-user
 * `~/.cache/irt-router/embeddings` (or under `$XDG_CACHE_HOME`) when irt-router is installed as a dependency.
 *
 * @example
 * ```ts
 * embeddingCacheDir(); // "/path/to/irt-router/.cache/embeddings" in a checkout
 * ```
 */
export function embeddingCacheDir(cacheDir?: string, env: NodeJS.ProcessEnv = process.env): string {
  return embeddingCacheLocation(cacheDir, env).dir;
}

function embeddingCacheLocation(
  cacheDir: string | undefined,
  env: NodeJS.ProcessEnv,
): { dir: string; from: "option" | "env" | "default" } {
  if (cacheDir) return { dir: resolve(cacheDir), from: "option" };
  const fromEnv = env[CACHE_DIR_ENV];
  if (fromEnv) return { dir: resolve(fromEnv), from: "env" };
  return { dir: join(defaultCacheRoot(env), "embeddings"), from: "default" };
}

/**
 * Creates the embedding cache folder (as {@link embeddingCacheDir} resolves it) and checks it can be written, so
 * that a folder which cannot hold the result is reported before any text is embedded. Throws a `CacheError`
 * (`CACHE_UNUSABLE`) naming the folder, where it came from and `--cache-dir` / `cacheDir` / `IRT_ROUTER_CACHE`.
 *
 * @example
 * ```ts
 * const dir = await ensureEmbeddingCacheDir(args["cache-dir"]); // before loading an encoder
 * ```
 */
export async function ensureEmbeddingCacheDir(
  cacheDir?: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const { dir, from } = embeddingCacheLocation(cacheDir, env);
  const origin =
    from === "option"
      ? "given by --cache-dir / the cacheDir option"
      : from === "env"
        ? `given by ${CACHE_DIR_ENV}`
        : "the default";
  await ensureWritableCacheDir(dir, {
    what: "embedding cache",
    origin,
    fix: `Nothing was embedded. Point --cache-dir <dir> (CLI), the cacheDir option or the ${CACHE_DIR_ENV} environment variable at a folder you can write.`,
    path: from === "option" ? "options.cacheDir" : from === "env" ? CACHE_DIR_ENV : "cacheDir",
  });
  return dir;
}

/**
 * sha256 hex over the item ids (and, with `withTexts`, the texts) of a dataset, in order: the key of its
 * cached embeddings.
 *
 * @example
 * ```ts
 * const key = datasetTextHash(ds); // changes when any id or text changes, not when labels do
 * ```
 */
export function datasetTextHash(ds: CorrectnessDataset, withTexts = true): string {
  const hash = createHash("sha256");
  hash.update(withTexts ? "irt-router-texts\0" : "irt-router-ids\0");
  for (const item of ds.items) {
    hash.update(item.id);
    hash.update("\0");
    if (withTexts) {
      hash.update(item.text);
      hash.update("\0");
    }
  }
  return hash.digest("hex");
}

/**
 * Cache file of `encoderId` for data hash `dataHash` (the partial checkpoint adds `.partial`).
 *
 * @example
 * ```ts
 * embeddingCacheFile(embeddingCacheDir(), encoder.id, datasetTextHash(ds)); // ".../use-lite-512_model-....emb"
 * ```
 */
export function embeddingCacheFile(dir: string, encoderId: string, dataHash: string): string {
  const slug = encoderId.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 80);
  const idHash = createHash("sha256").update(encoderId).digest("hex").slice(0, 8);
  return join(dir, `${slug}-${idHash}-${dataHash.slice(0, 24)}.emb`);
}

function toLittleEndian(vectors: Float32Array, count: number): Buffer {
  const view = Buffer.from(vectors.buffer, vectors.byteOffset, count * 4);
  if (endianness() === "LE") return view;
  const out = Buffer.alloc(count * 4);
  for (let k = 0; k < count; k++) out.writeFloatLE(vectors[k]!, k * 4);
  return out;
}

function fromLittleEndian(bytes: Buffer, into: Float32Array): void {
  if (endianness() === "LE") {
    new Uint8Array(into.buffer, into.byteOffset, bytes.length).set(bytes);
    return;
  }
  for (let k = 0; k < bytes.length / 4; k++) into[k] = bytes.readFloatLE(k * 4);
}

/**
 * Write a cache file atomically: a temporary file in the same folder, fsync, then rename over `file`.
 * Layout: `IRTEMB01`, uint32 LE header length H, H bytes of JSON header (space-padded so the vectors start
 * on a 4-byte boundary), then `done * dim` float32 little-endian values, row-major.
 *
 * @example
 * ```ts
 * await writeEmbeddingCacheFile(file, { kind: "complete", encoderId, dim, count, done: count, dataHash, itemIdHash, dataset }, vectors);
 * ```
 */
export async function writeEmbeddingCacheFile(
  file: string,
  header: Omit<EmbeddingCacheHeader, "format" | "vectorsSha256">,
  vectors: Float32Array,
): Promise<void> {
  const body = toLittleEndian(vectors, header.done * header.dim);
  const full: EmbeddingCacheHeader = {
    format: FORMAT_VERSION,
    ...header,
    vectorsSha256: createHash("sha256").update(body).digest("hex"),
  };
  let json = Buffer.from(JSON.stringify(full), "utf8");
  const pad = (4 - ((PREFIX_BYTES + json.length) % 4)) % 4;
  if (pad > 0) json = Buffer.concat([json, Buffer.alloc(pad, 0x20)]);
  const prefix = Buffer.alloc(PREFIX_BYTES);
  prefix.write(MAGIC, 0, "latin1");
  prefix.writeUInt32LE(json.length, MAGIC.length);
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const handle = await open(tmp, "w");
  try {
    await handle.writeFile(Buffer.concat([prefix, json]));
    await handle.write(body);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(tmp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

/** What a cache file must match to be used. */
export interface CacheExpectation {
  readonly encoderId: string;
  readonly dim: number;
  readonly count: number;
  readonly dataHash: string;
  readonly itemIdHash: string;
}

/** Result of reading a cache file: the vectors, or why the file cannot be used. */
export type CacheReadResult =
  { ok: true; header: EmbeddingCacheHeader; vectors: Float32Array } | { ok: false; reason: string };

/**
 * Read and validate a cache file against `expect`: magic, format version, encoder id, dim, item count,
 * data and item-id hashes, exact file length and the checksum of the vector bytes. Any mismatch,
 * truncation or corruption gives `{ ok: false, reason }` (the caller recomputes), never wrong vectors.
 *
 * @example
 * ```ts
 * const r = await readEmbeddingCacheFile(file, { encoderId, dim, count, dataHash, itemIdHash });
 * if (!r.ok) console.warn(`cache not used: ${r.reason}`);
 * ```
 */
export async function readEmbeddingCacheFile(file: string, expect: CacheExpectation): Promise<CacheReadResult> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    return {
      ok: false,
      reason:
        (error as NodeJS.ErrnoException).code === "ENOENT"
          ? "no cache file"
          : `unreadable: ${(error as Error).message}`,
    };
  }
  if (bytes.length < PREFIX_BYTES || bytes.toString("latin1", 0, MAGIC.length) !== MAGIC)
    return { ok: false, reason: "not an embedding cache file" };
  const headerLength = bytes.readUInt32LE(MAGIC.length);
  if (PREFIX_BYTES + headerLength > bytes.length) return { ok: false, reason: "truncated header" };
  let header: EmbeddingCacheHeader;
  try {
    header = JSON.parse(bytes.toString("utf8", PREFIX_BYTES, PREFIX_BYTES + headerLength)) as EmbeddingCacheHeader;
  } catch {
    return { ok: false, reason: "unreadable header" };
  }
  const mismatch = (
    [
      ["format", header.format, FORMAT_VERSION],
      ["encoder id", header.encoderId, expect.encoderId],
      ["dim", header.dim, expect.dim],
      ["item count", header.count, expect.count],
      ["data hash", header.dataHash, expect.dataHash],
      ["item-id hash", header.itemIdHash, expect.itemIdHash],
    ] as const
  ).find(([, got, want]) => got !== want);
  if (mismatch)
    return { ok: false, reason: `${mismatch[0]} differs (${String(mismatch[1])} != ${String(mismatch[2])})` };
  if (!Number.isInteger(header.done) || header.done < 0 || header.done > header.count)
    return { ok: false, reason: "bad vector count" };
  if (header.kind === "complete" && header.done !== header.count)
    return { ok: false, reason: "complete file with missing vectors" };
  const start = PREFIX_BYTES + headerLength;
  const expected = start + header.done * header.dim * 4;
  if (bytes.length !== expected)
    return { ok: false, reason: `file is ${bytes.length} bytes, expected ${expected} (truncated or padded)` };
  const body = bytes.subarray(start);
  if (createHash("sha256").update(body).digest("hex") !== header.vectorsSha256)
    return { ok: false, reason: "vector checksum mismatch (corrupted)" };
  const vectors = new Float32Array(header.count * header.dim);
  fromLittleEndian(body, vectors);
  return { ok: true, header, vectors };
}

const embedOptionsSchema = z
  .object({
    cacheDir: z.string().min(1).optional(),
    batchSize: z.number().int().min(1).max(4096).default(32),
    /** Minimum milliseconds between two checkpoints of partial progress. */
    checkpointEveryMs: z.number().int().min(0).default(15_000),
    onProgress: z
      .custom<(progress: EmbedProgress) => void>((v) => typeof v === "function", "must be a function")
      .optional(),
    signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal, "must be an AbortSignal").optional(),
    /** Told, when `signal` aborts the run, whether its progress was checkpointed (see {@link EmbedAbort}). */
    onAbort: z.custom<(abort: EmbedAbort) => void>((v) => typeof v === "function", "must be a function").optional(),
    /** Told when computed vectors could not be written to the cache (they are still returned; default console.warn). */
    onWarning: z.custom<(message: string) => void>((v) => typeof v === "function", "must be a function").optional(),
    env: z.record(z.string(), z.string().optional()).optional(),
  })
  .strict();

/** Options of {@link embedDataset}. */
export type EmbedDatasetOptions = z.input<typeof embedOptionsSchema>;

/** Progress report of {@link embedDataset}: only while vectors are computed, never for a run served from the cache. */
export interface EmbedProgress {
  /** Vectors available so far (including those resumed from a checkpoint). */
  readonly done: number;
  readonly total: number;
  /** Vectors taken from a checkpoint of an earlier, interrupted run. */
  readonly resumed: number;
}

/** What an aborted {@link embedDataset} run left for a rerun to resume from (told to `onAbort` before it rejects). */
export interface EmbedAbort {
  /** Vectors available when the run stopped (including those resumed from a checkpoint). */
  readonly done: number;
  readonly total: number;
  /**
   * Vectors the checkpoint file holds, as far as this run knows: `done` when the checkpoint on abort was written (or
   * there was nothing new to write), else those of the last checkpoint that was written (0: none).
   */
  readonly checkpointed: number;
  /** The checkpoint file a rerun resumes from. */
  readonly file: string;
  /** Why the checkpoint on abort could not be written, when it could not. */
  readonly problem?: string;
}

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
  const count = ds.items.length;
  const env = (opts.env as NodeJS.ProcessEnv | undefined) ?? process.env;
  const dir = embeddingCacheDir(opts.cacheDir, env);
  const dataHash = datasetTextHash(ds);
  const expect: CacheExpectation = {
    encoderId: encoder.id,
    dim,
    count,
    dataHash,
    itemIdHash: datasetTextHash(ds, false),
  };
  const file = embeddingCacheFile(dir, encoder.id, dataHash);
  const partialFile = `${file}.partial`;
  const report = (done: number, resumed: number) => opts.onProgress?.({ done, total: count, resumed });

  const cached = await readEmbeddingCacheFile(file, expect);
  if (cached.ok) {
    // Nothing is computed: no progress is reported (fromCache says it on the result).
    return { vectors: cached.vectors, dim, count, fromCache: true, resumed: 0, file, encoder: { id: encoder.id, dim } };
  }
  const cacheProblem = cached.reason === "no cache file" ? undefined : cached.reason;

  await ensureEmbeddingCacheDir(opts.cacheDir, env);
  const warn = opts.onWarning ?? ((message: string) => console.warn(message));
  let vectors: Float32Array = new Float32Array(count * dim);
  let done = 0;
  const partial = await readEmbeddingCacheFile(partialFile, expect);
  if (partial.ok) {
    vectors = partial.vectors;
    done = partial.header.done;
  }
  const resumed = done;
  report(done, resumed);

  const header = (kind: "complete" | "partial", n: number) => ({
    kind,
    encoderId: encoder.id,
    dim,
    count,
    done: n,
    dataHash,
    itemIdHash: expect.itemIdHash,
    dataset: { name: ds.name, sha256: ds.source.sha256 },
  });
  let lastCheckpoint = performance.now();
  // Vectors on disk in the checkpoint file (the resumed ones were read from it).
  let checkpointed = done;
  let checkpointsFailed = false;
  /** Writes the checkpoint; the problem when it could not be written. */
  const writeCheckpoint = async (): Promise<string | undefined> => {
    try {
      await writeEmbeddingCacheFile(partialFile, header("partial", done), vectors);
      checkpointed = done;
      return undefined;
    } catch (error) {
      return fsProblem(error);
    }
  };
  const checkpoint = async () => {
    if (done > checkpointed && !checkpointsFailed) {
      const problem = await writeCheckpoint();
      if (problem) {
        // Losing a checkpoint costs a resume, not this run: say so once and carry on (the abort still tries one).
        checkpointsFailed = true;
        warn(
          `irt-router: progress could not be checkpointed in ${dir} (${problem}); embedding goes on without checkpoints (one is tried again if the run is interrupted).`,
        );
      }
    }
    lastCheckpoint = performance.now();
  };

  while (done < count) {
    if (opts.signal?.aborted) {
      // Always tried, even after a periodic checkpoint failed: it is what a rerun resumes from.
      const problem = done > checkpointed ? await writeCheckpoint() : undefined;
      const outcome: EmbedAbort = {
        done,
        total: count,
        checkpointed,
        file: partialFile,
        ...(problem ? { problem } : {}),
      };
      if (opts.onAbort) opts.onAbort(outcome);
      else if (problem)
        warn(
          `irt-router: the interrupted run's progress could not be checkpointed in ${dir} (${problem}); ${resumeNote(outcome)}.`,
        );
      throw opts.signal.reason ?? new Error("aborted");
    }
    const end = Math.min(count, done + opts.batchSize);
    const texts = ds.items.slice(done, end).map((item) => item.text);
    const out = await encoder.embed(texts);
    checkBatch(out, texts.length, dim, encoder.id, done);
    out.forEach((v, j) => vectors.set(v, (done + j) * dim));
    done = end;
    report(done, resumed);
    if (done < count && performance.now() - lastCheckpoint >= opts.checkpointEveryMs) await checkpoint();
  }
  let notCached: string | undefined;
  try {
    await writeEmbeddingCacheFile(file, header("complete", count), vectors);
  } catch (error) {
    // The vectors are computed and correct: a cache that cannot take them costs a recomputation next time, not this run.
    notCached = `${fsProblem(error)}: ${(error as Error).message.split("\n")[0]}`;
    warn(
      `irt-router: the embeddings of ${ds.name} could not be cached in ${dir} (${notCached}); they are used uncached and will be recomputed next time. ` +
        `Point --cache-dir, the cacheDir option or ${CACHE_DIR_ENV} at a writable folder with room for ${((count * dim * 4) / 1e6).toFixed(1)} MB.`,
    );
  }
  if (!notCached) await rm(partialFile, { force: true }).catch(() => {});
  return {
    vectors,
    dim,
    count,
    fromCache: false,
    resumed,
    file,
    encoder: { id: encoder.id, dim },
    ...(cacheProblem ? { cacheProblem } : {}),
    ...(notCached ? { notCached } : {}),
  };
}

/**
 * What a rerun of an aborted {@link embedDataset} resumes from, in words: e.g. "rerun the same command to resume from
 * 20/45 texts", or "a rerun starts over".
 *
 * @example
 * ```ts
 * embedDataset(ds, encoder, { signal, onAbort: (a) => console.error(`Interrupted: ${resumeNote(a)}.`) });
 * ```
 */
export function resumeNote(abort: EmbedAbort): string {
  if (abort.checkpointed === 0) return "a rerun starts over";
  const from = `${abort.checkpointed}/${abort.total} texts`;
  return abort.problem
    ? `a rerun resumes from the last checkpoint written (${from}) if it is still there, else starts over`
    : `a rerun resumes from ${from}`;
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

function checkBatch(
  out: unknown,
  expected: number,
  dim: number,
  encoderId: string,
  offset: number,
): asserts out is Float32Array[] {
  if (!Array.isArray(out) || out.length !== expected) {
    throw new EmbeddingProviderError(
      `Encoder "${encoderId}" returned ${Array.isArray(out) ? out.length : typeof out} vectors for a batch of ${expected} texts (items ${offset}..${offset + expected - 1}); nothing was cached for this batch.`,
    );
  }
  out.forEach((v: unknown, j) => {
    if (!(v instanceof Float32Array) || v.length !== dim) {
      throw new EmbeddingProviderError(
        `Encoder "${encoderId}" returned a vector of length ${(v as { length?: number })?.length} for item ${offset + j}; expected ${dim}.`,
      );
    }
    for (const x of v) {
      if (!Number.isFinite(x)) {
        throw new EmbeddingProviderError(
          `Encoder "${encoderId}" returned a non-finite value for item ${offset + j}; refusing to cache it.`,
        );
      }
    }
  });
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
