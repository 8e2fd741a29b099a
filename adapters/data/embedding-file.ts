/**
 * The embedding cache's files: where they live, what they are keyed by, and their format (a magic prefix, a JSON
 * header, then little-endian float32 vectors with their checksum), written atomically and read with every check.
 */
import { createHash, randomBytes } from "node:crypto";
import { endianness } from "node:os";
import { open, readFile, rename, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { defaultCacheRoot, ensureWritableCacheDir } from "./cache-dir.js";

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
