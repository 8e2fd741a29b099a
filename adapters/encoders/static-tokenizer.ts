/**
 * The static encoder's tokenizer, saved at build time: `npm run build` writes the tables of the shipped vocabulary's
 * tokenizer (src/encoders/piece-tables.ts) to `dist/static-tokenizer.bin`, and {@link StaticEncoder.load} restores
 * the tokenizer from them when they were built from the vocabulary its manifest names, instead of parsing the
 * vocabulary and building the trie (the largest part of a fresh process's first routed call after Node and
 * LangChain themselves). Anything else (no file, another vocabulary, a truncated or malformed file) builds from the
 * vocabulary as before: the file only saves time, the tokens are the same.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { decodePieceTables } from "../../src/encoders/piece-tables.js";
import { tokenizerFromTables, type SentencePieceTokenizer } from "../../src/encoders/sentencepiece.js";
import { packageRoot } from "../package-root.js";

const MAGIC = "irt-pt01";
/** Bytes before the tables: the magic, then the sha256 (hex) of the tables' bytes. Keeps them 8-byte aligned. */
const HEAD = MAGIC.length + 64;

/** Where the build saves the shipped tokenizer's tables. */
export function prebuiltTokenizerFile(): string {
  return join(packageRoot(), "dist", "static-tokenizer.bin");
}

/** The file's bytes for tables from `encodePieceTables`: a magic and their sha256, then the tables. */
export function prebuiltTokenizerBytes(tables: Uint8Array): Uint8Array {
  const head = Buffer.from(MAGIC + createHash("sha256").update(tables).digest("hex"), "ascii");
  return Buffer.concat([head, tables]);
}

/**
 * The tokenizer saved in `file` if it was built from the vocabulary with this sha256 and size, intact; otherwise
 * undefined (the caller builds it from the vocabulary).
 *
 * @example
 * ```ts
 * const tokenizer = await readPrebuiltTokenizer(manifest.vocabulary.sha256, manifest.rows);
 * ```
 */
export async function readPrebuiltTokenizer(
  vocabSha256: string,
  rows: number,
  file: string = prebuiltTokenizerFile(),
): Promise<{ tokenizer: SentencePieceTokenizer; longest: number } | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch {
    return undefined;
  }
  if (bytes.byteLength < HEAD || bytes.toString("ascii", 0, MAGIC.length) !== MAGIC) return undefined;
  // Typed-array views need the tables 8-byte aligned in their buffer (a file this size has a buffer of its own).
  const aligned = (bytes.byteOffset + HEAD) % 8 === 0 ? bytes : Buffer.from(bytes);
  const body = new Uint8Array(aligned.buffer, aligned.byteOffset + HEAD, aligned.byteLength - HEAD);
  // The file ships in dist/ like the code: its sha256 is checked by the build that writes it and by the test suite
  // (test/encoders/static.test.ts), not on every load; a truncated or malformed file fails decodePieceTables' checks.
  let decoded: ReturnType<typeof decodePieceTables>;
  try {
    decoded = decodePieceTables(body);
  } catch {
    return undefined;
  }
  const { vocabSha256: builtFrom, tables } = decoded;
  if (builtFrom !== vocabSha256 || tables.stepOf.length !== rows) return undefined;
  let longest = 1;
  for (let id = 0; id < tables.stepOf.length; id++) longest = Math.max(longest, tables.stepOf[id]!);
  return { tokenizer: tokenizerFromTables(tables), longest };
}
