/**
 * Query embeddings of a dataset for the online simulation: the project's embedding pipeline
 * (adapters/data `getDatasetEmbeddings`: offline USE-lite on the loader's routing texts, cached; run
 * `npx irt-router embed --dataset <name>` to fill the cache ahead of time). Alternatively, precomputed
 * vectors (`IRT_ROUTER_PRELIM_EMBEDDINGS=<dir>` holding `<dataset>.f32` + `.ids.json` + `.jsonl`) are
 * accepted only when their texts equal the loader's texts for every item and a sample re-embedded by
 * the project encoder agrees within 1e-3 (cached in `.cache/online-bench/`).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Progress } from "../../adapters/progress.js";
import { UseLiteEncoder } from "../../adapters/encoders/use-lite.js";
import { getDatasetEmbeddings, predictedDefaultEncoder } from "../../adapters/data/dataset-embeddings.js";
import { embedDataset, peekCachedEmbeddings } from "../../adapters/data/embedding-cache.js";
import type { CorrectnessDataset } from "../../src/data/types.js";

/** The bench/ folder (this study's entry sits one level below it). */
const here = join(dirname(fileURLToPath(import.meta.url)), "..");

export interface DatasetEmbeddings {
  readonly X: Float32Array;
  readonly dim: number;
  /** How the vectors were obtained (reported with the results). */
  readonly source: string;
}

/**
 * The dataset's query vectors. `encoderChoice: "static"` embeds with the shipped static encoder (what a router gets by
 * default; seconds for a whole dataset, cached in the embedding cache) instead of USE-lite (the benchmark's default).
 */
export async function embeddingsFor(
  ds: CorrectnessDataset,
  log: (s: string) => void,
  encoderChoice: "use-lite" | "static" = "use-lite",
): Promise<DatasetEmbeddings> {
  if (encoderChoice === "static") return staticEmbeddings(ds);
  const predicted = await predictedDefaultEncoder();
  const hit = predicted ? await peekCachedEmbeddings(ds, predicted) : undefined;
  if (hit) return { X: hit.vectors, dim: hit.dim, source: `${hit.encoder.id} (project embedding cache)` };
  if (!process.env.IRT_ROUTER_PRELIM_EMBEDDINGS) {
    const progress = new Progress({ label: `embedding ${ds.name}`, total: ds.items.length, unit: "texts" });
    const got = await getDatasetEmbeddings(ds, { onProgress: (p) => progress.update(p.done) });
    progress.finish();
    return { X: got.vectors, dim: got.dim, source: `${got.encoder.id} (project embedding pipeline)` };
  }
  const encoder = await UseLiteEncoder.load();
  const dim = encoder.dim;
  const dir = join(here, "..", ".cache", "online-bench");
  const file = join(
    dir,
    `${ds.name}-${ds.source.sha256.slice(0, 12)}-${encoder.id.replace(/[^A-Za-z0-9._-]/g, "_")}.f32`,
  );
  const n = ds.items.length;
  if (existsSync(file)) {
    const buf = readFileSync(file);
    if (buf.byteLength === n * dim * 4) {
      const meta = existsSync(`${file}.json`)
        ? (JSON.parse(readFileSync(`${file}.json`, "utf8")) as { source: string }).source
        : encoder.id;
      return { X: new Float32Array(buf.buffer, buf.byteOffset, n * dim).slice(), dim, source: `${meta} (cached)` };
    }
    log(`  embedding cache ${file} has the wrong size; recomputing`);
  }
  let X: Float32Array | undefined;
  let source = encoder.id;
  const got = await tryPrelim(ds, process.env.IRT_ROUTER_PRELIM_EMBEDDINGS, encoder, log);
  if (got) ({ X, source } = got);
  if (!X) {
    X = new Float32Array(n * dim);
    const progress = new Progress({ label: `embedding ${ds.name}`, total: n, unit: "texts" });
    for (let s = 0; s < n; s += 32) {
      const vecs = await encoder.embed(ds.items.slice(s, s + 32).map((it) => it.text));
      vecs.forEach((v, k) => X!.set(v, (s + k) * dim));
      progress.tick(vecs.length);
    }
    progress.finish();
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, Buffer.from(X.buffer, X.byteOffset, X.byteLength));
  writeFileSync(`${file}.json`, JSON.stringify({ source }));
  return { X, dim, source };
}

async function staticEmbeddings(ds: CorrectnessDataset): Promise<DatasetEmbeddings> {
  const { StaticEncoder } = await import("../../adapters/encoders/static.js");
  const got = await embedDataset(ds, await StaticEncoder.load());
  return { X: got.vectors, dim: got.dim, source: `${got.encoder.id} (static encoder, embedding cache)` };
}

async function tryPrelim(
  ds: CorrectnessDataset,
  dir: string,
  encoder: UseLiteEncoder,
  log: (s: string) => void,
): Promise<{ X: Float32Array; source: string } | undefined> {
  const base = join(dir, ds.name);
  if (![".f32", ".ids.json", ".jsonl"].every((ext) => existsSync(base + ext))) {
    log(`  no precomputed vectors for ${ds.name} in ${dir}`);
    return undefined;
  }
  const ids = JSON.parse(readFileSync(`${base}.ids.json`, "utf8")) as string[];
  const texts = new Map(
    readFileSync(`${base}.jsonl`, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: string; text: string })
      .map((r) => [String(r.id), r.text]),
  );
  const buf = readFileSync(`${base}.f32`);
  const dim = encoder.dim;
  if (buf.byteLength !== ids.length * dim * 4) {
    log(`  precomputed vectors for ${ds.name}: size mismatch, ignored`);
    return undefined;
  }
  const raw = new Float32Array(buf.buffer, buf.byteOffset, ids.length * dim);
  const row = new Map(ids.map((id, r) => [String(id), r]));
  let textMismatch = 0;
  const X = new Float32Array(ds.items.length * dim);
  for (const [i, it] of ds.items.entries()) {
    const r = row.get(it.id);
    if (r === undefined) {
      log(`  precomputed vectors for ${ds.name}: item ${it.id} missing, ignored`);
      return undefined;
    }
    if (texts.get(it.id)?.trim() !== it.text.trim()) textMismatch++;
    X.set(raw.subarray(r * dim, (r + 1) * dim), i * dim);
  }
  if (textMismatch > 0) {
    log(`  precomputed vectors for ${ds.name}: ${textMismatch} texts differ from the loader's, ignored`);
    return undefined;
  }
  const sample = Array.from({ length: 32 }, (_, k) => Math.floor((k * ds.items.length) / 32));
  const fresh = await encoder.embed(sample.map((i) => ds.items[i]!.text));
  let maxDiff = 0;
  sample.forEach((i, k) => {
    for (let c = 0; c < dim; c++) maxDiff = Math.max(maxDiff, Math.abs(fresh[k]![c]! - X[i * dim + c]!));
  });
  if (maxDiff > 1e-3) {
    log(
      `  precomputed vectors for ${ds.name}: differ from the project encoder by ${maxDiff.toExponential(2)} on a sample, ignored`,
    );
    return undefined;
  }
  return {
    X,
    source: `${encoder.id} (precomputed vectors; loader texts identical for all ${ds.items.length} items; 32-item re-embedding max |diff| ${maxDiff.toExponential(1)})`,
  };
}
