/**
 * `npm run bench -- scorer`: IRT-MoE scoring latency (1 query x 50 models, after embedding), batch
 * throughput, training throughput, pretrained load time and memory, each beside a brute-force cosine
 * kNN baseline (k = 20 over 9,646 train embeddings, the MMLU-Pro train split's size) measured in the
 * same run (its load: reading and verifying its train embeddings and labels from files written like an artifact). Weights are seeded random values of the default architecture: timing does not depend on
 * their values. Training throughput is measured on simulated labels at the default configuration.
 */
import { datasetModelNames } from "../../../src/scorer/catalog.js";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "../../../src/scorer/serialize.js";
import { loadPretrained, pretrainedDir } from "../../../adapters/artifact/load.js";
import { getTf } from "../../../adapters/tf.js";
import { DEFAULT_IRT_MOE_CONFIG } from "../../../src/scorer/config.js";
import { predictItems } from "../../../src/scorer/forward.js";
import { trainingRng, type Rng } from "../../../src/util/random.js";
import { IrtMoeScorer } from "../../../src/scorer/scorer.js";
import { trainIrtMoe } from "../../../src/scorer/train.js";
import { initWeights, tensorFloats } from "../../../src/scorer/weights.js";
import { buildCatalog } from "../../../src/scorer/catalog.js";
import { loadDataset } from "../../../adapters/data/load-dataset.js";
import { splitIndices } from "../../../src/data/split.js";
import { mdTable, percentile, timeCalls, type BenchSection } from "../section.js";

const DIM = 512;
const MODELS = 50;
const TRAIN_ITEMS = 9646;
const K = 20;

function unitRows(rng: Rng, n: number, dim: number): Float32Array {
  const X = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let c = 0; c < dim; c++) {
      const v = rng.normal();
      X[i * dim + c] = v;
      s += v * v;
    }
    const inv = 1 / Math.sqrt(s);
    for (let c = 0; c < dim; c++) X[i * dim + c]! *= inv;
  }
  return X;
}

/** Brute-force cosine kNN over unit-norm train rows; p(model) = mean label over the k nearest. */
class KnnBaseline {
  constructor(
    readonly X: Float32Array,
    readonly labels: Float32Array, // n x models
    readonly n: number,
    readonly models: number,
  ) {}
  predict(q: Float32Array, k = K): Float32Array {
    const sims = new Float32Array(this.n);
    for (let i = 0; i < this.n; i++) {
      let s = 0;
      const base = i * DIM;
      for (let c = 0; c < DIM; c++) s += q[c]! * this.X[base + c]!;
      sims[i] = s;
    }
    // Partial selection of the top k.
    const top: number[] = [];
    for (let i = 0; i < this.n; i++) {
      if (top.length < k) {
        top.push(i);
        top.sort((a, b) => sims[b]! - sims[a]!);
      } else if (sims[i]! > sims[top[k - 1]!]!) {
        top[k - 1] = i;
        top.sort((a, b) => sims[b]! - sims[a]!);
      }
    }
    const p = new Float32Array(this.models);
    for (const i of top) for (let m = 0; m < this.models; m++) p[m]! += this.labels[i * this.models + m]! / k;
    return p;
  }
}

/**
 * A kNN router's files, for the load-time comparison: what it must ship and read is its train embeddings and labels.
 * Written like the scorer artifact (little-endian float32, a JSON header with the byte length and sha256), and read
 * back the way `loadPretrained()` reads weights.bin: read, check length and sha256, decode each float (finite).
 */
async function writeKnnIndex(dir: string, knn: KnnBaseline): Promise<void> {
  const bytes = new Uint8Array(knn.X.byteLength + knn.labels.byteLength);
  const view = new DataView(bytes.buffer);
  const all = [knn.X, knn.labels];
  let at = 0;
  for (const a of all) for (let i = 0; i < a.length; i++, at += 4) view.setFloat32(at, a[i]!, true);
  await writeFile(join(dir, "knn-index.bin"), bytes);
  await writeFile(
    join(dir, "knn-index.json"),
    JSON.stringify({
      rows: knn.n,
      dim: DIM,
      models: knn.models,
      byteLength: bytes.byteLength,
      sha256: sha256Hex(bytes),
    }),
  );
}

async function loadKnnIndex(dir: string): Promise<KnnBaseline> {
  const header = JSON.parse(await readFile(join(dir, "knn-index.json"), "utf8")) as {
    rows: number;
    dim: number;
    models: number;
    byteLength: number;
    sha256: string;
  };
  const bytes = new Uint8Array(await readFile(join(dir, "knn-index.bin")));
  if (bytes.byteLength !== header.byteLength || sha256Hex(bytes) !== header.sha256)
    throw new Error("knn-index.bin does not match its header");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const read = (offset: number, n: number) => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const v = view.getFloat32(offset + i * 4, true);
      if (!Number.isFinite(v)) throw new Error(`knn-index.bin: non-finite value at ${offset + i * 4}`);
      a[i] = v;
    }
    return a;
  };
  const nX = header.rows * header.dim;
  return new KnnBaseline(read(0, nX), read(nX * 4, header.rows * header.models), header.rows, header.models);
}

/**
 * The done-when check of the pretrained scorer: `loadPretrained()` and `scorer.predict(text, observed models)`
 * on the raw text of every MMLU-Pro test question (embedded by the scorer's own encoder), routing accuracy
 * vs the best single model (highest train accuracy).
 */
async function pretrainedOnRawText(): Promise<string> {
  if (!existsSync(join(pretrainedDir(), "manifest.json")))
    return "Pretrained raw-text check: not run (no artifact in pretrained/).";
  let ds;
  try {
    ds = await loadDataset("mmlu-pro-29models");
  } catch (error) {
    return `Pretrained raw-text check: not run (${(error as Error).message.split("\n")[0]}).`;
  }
  const scorer = await loadPretrained();
  // the catalog's rows trained on MMLU-Pro (`<name>@mmlu-pro-29models` where a model has one row per source)
  const names = datasetModelNames(scorer.models, ds.models, ds.name);
  const split = splitIndices(
    ds.name,
    ds.items.map((i) => i.id),
  );
  const { offsets, model, y } = ds.labels;
  const acc = ds.models.map((_, m) => {
    let n = 0;
    let s = 0;
    for (const i of split.train) {
      for (let j = offsets[i]!; j < offsets[i + 1]!; j++) {
        if (model[j] === m) {
          n++;
          s += y[j]!;
        }
      }
    }
    return s / n;
  });
  const best = acc.indexOf(Math.max(...acc));
  let routed = 0;
  let single = 0;
  let singleN = 0;
  const t0 = performance.now();
  for (const i of split.test) {
    const obs: number[] = [];
    for (let j = offsets[i]!; j < offsets[i + 1]!; j++) obs.push(j);
    const scores = await scorer.predict(
      ds.items[i]!.text,
      obs.map((j) => names[model[j]!]!),
    );
    let k = 0;
    scores.forEach((s, r) => {
      if (s.p > scores[k]!.p) k = r;
    });
    routed += y[obs[k]!]!;
    for (const j of obs) {
      if (model[j] === best) {
        singleN++;
        single += y[j]!;
      }
    }
  }
  const secs = (performance.now() - t0) / 1000;
  const n = split.test.length;
  return `Pretrained scorer on raw MMLU-Pro test questions (\`loadPretrained()\` + \`scorer.predict(text, observed models)\`, ${n} items, text embedded by ${scorer.encoder.id}, ${secs.toFixed(0)} s): routing accuracy **${(routed / n).toFixed(4)}** vs best single model ${ds.models[best]} **${(single / singleN).toFixed(4)}**.`;
}

const ms = (v: number) => `${v.toFixed(3)} ms`;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

export async function run(): Promise<BenchSection> {
  const rng = trainingRng(1);
  const cfg = DEFAULT_IRT_MOE_CONFIG;
  const ids = Array.from({ length: MODELS }, (_, m) => `model-${m}`);
  const heap0 = process.memoryUsage().heapUsed;
  const weights = initWeights(
    rng,
    { inDim: DIM, experts: cfg.experts, hidden: cfg.hidden, out: cfg.out, abilityDim: cfg.abilityDim },
    ids,
    0.5,
  );
  const catalog = buildCatalog(
    weights.theta,
    cfg.abilityDim,
    ids.map((id) => ({ id, names: [id], sources: ["bench"], nLabels: 0, accuracy: 0.5 })),
  );
  const scorer = new IrtMoeScorer({ weights, catalog, encoderInfo: { id: "bench", dim: DIM }, temperature: 1 });
  const weightBytes = tensorFloats(weights) * 4;
  const heap1 = process.memoryUsage().heapUsed;
  const Xtrain = unitRows(rng, TRAIN_ITEMS, DIM);
  const labels = new Float32Array(TRAIN_ITEMS * MODELS).map(() => (rng.next() < 0.5 ? 1 : 0));
  const knn = new KnnBaseline(Xtrain, labels, TRAIN_ITEMS, MODELS);
  const knnBytes = Xtrain.byteLength + labels.byteLength;
  const queries = unitRows(rng, 200, DIM);
  let qi = 0;
  const next = () => queries.subarray((qi++ % 200) * DIM, (qi % 200 || 200) * DIM);

  // Latency: one query against all 50 models (after embedding).
  const irtLat = await timeCalls(() => scorer.predictSync(next()), 400, 20);
  const knnLat = await timeCalls(() => knn.predict(next()), 100, 5);

  // Batch throughput: 1,000 queries.
  const batchRows = Array.from({ length: 1000 }, (_, i) => i % 200);
  let t = performance.now();
  predictItems({ weights, temperature: 1 }, queries, batchRows);
  const irtBatch = 1000 / ((performance.now() - t) / 1000);
  t = performance.now();
  for (let i = 0; i < 200; i++) knn.predict(queries.subarray(i * DIM, (i + 1) * DIM));
  const knnBatch = 200 / ((performance.now() - t) / 1000);

  // Training throughput: default architecture on simulated labels, 2 epochs of 2,048 items.
  const { tf, backend } = await getTf();
  const nTrain = 2048;
  const Xs = unitRows(rng, nTrain + 256, DIM);
  const offsets = new Int32Array(nTrain + 257);
  const model: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < nTrain + 256; i++) {
    for (let m = 0; m < MODELS; m++) {
      model.push(m);
      y.push(rng.next() < 0.5 ? 1 : 0);
    }
    offsets[i + 1] = model.length;
  }
  const rows = Array.from({ length: nTrain + 256 }, (_, i) => i);
  const tr = await trainIrtMoe(
    tf,
    {
      X: Xs,
      dim: DIM,
      nItems: nTrain + 256,
      nModels: MODELS,
      offsets,
      model: Int32Array.from(model),
      y: Float32Array.from(y),
    },
    { train: rows.slice(0, nTrain), val: rows.slice(nTrain) },
    { maxEpochs: 2, patience: 5 },
    { seed: 1 },
  );
  const trainItemsPerSec = (nTrain * tr.history.length) / tr.history.reduce((s, h) => s + h.seconds, 0);
  t = performance.now();
  const knnFit = new Float32Array(Xtrain); // kNN "training": keep a copy of the normalised embeddings
  const knnFitPerSec = TRAIN_ITEMS / Math.max(1e-6, (performance.now() - t) / 1000);
  void knnFit;

  // Load time: the pretrained artifact (read + verification; the encoder loads lazily and is not included) beside a kNN
  // router's index (its train embeddings and labels) read and verified the same way.
  const knnDir = mkdtempSync(join(tmpdir(), "irt-bench-knn-"));
  let knnLoad: number[];
  try {
    await writeKnnIndex(knnDir, knn);
    knnLoad = await timeCalls(() => loadKnnIndex(knnDir), 5, 1);
    const back = await loadKnnIndex(knnDir);
    if (back.X.some((v, i) => v !== knn.X[i]) || back.labels.some((v, i) => v !== knn.labels[i]))
      throw new Error("the kNN index did not read back identical");
  } finally {
    rmSync(knnDir, { recursive: true, force: true });
  }
  const knnLoadCell = `${ms(percentile(knnLoad, 50))} (its index: read ${mb(knnBytes)} of train embeddings + labels, verify sha256, decode; p50 of 5)`;
  const loadRows: string[][] = [
    ["pretrained load (`loadPretrained()`)", "not measured: no artifact in pretrained/", knnLoadCell],
  ];
  if (existsSync(join(pretrainedDir(), "manifest.json"))) {
    const loads = await timeCalls(() => loadPretrained(), 5, 1);
    const pre = await loadPretrained();
    const q = queries.subarray(0, DIM);
    const lat = await timeCalls(() => pre.predictSync(q), 200, 20);
    loadRows.splice(
      0,
      1,
      [
        "pretrained load (`loadPretrained()`: read into WebAssembly memory, decode; the shipped files' sha256 is checked by the test suite; p50 of 5)",
        ms(percentile(loads, 50)),
        knnLoadCell,
      ],
      [
        `pretrained artifact: 1 query x ${pre.models.length} models (p50 / p99)`,
        `${ms(percentile(lat, 50))} / ${ms(percentile(lat, 99))}`,
        "-",
      ],
    );
  }

  const rawCheck = await pretrainedOnRawText();

  const table = mdTable(
    ["measure", "IRT-MoE (default architecture)", "kNN baseline (cosine, k = 20, 9,646 rows)"],
    [
      [
        `latency, 1 query x ${MODELS} models (p50 / p99)`,
        `${ms(percentile(irtLat, 50))} / ${ms(percentile(irtLat, 99))}`,
        `${ms(percentile(knnLat, 50))} / ${ms(percentile(knnLat, 99))}`,
      ],
      ["batch throughput (queries/s, 1 thread)", irtBatch.toFixed(0), knnBatch.toFixed(0)],
      [
        `training throughput (items/s, ${backend} backend)`,
        trainItemsPerSec.toFixed(0),
        `${knnFitPerSec.toExponential(1)} (copy)`,
      ],
      [
        "model memory",
        `${mb(weightBytes)} weights (heap +${mb(heap1 - heap0)})`,
        `${mb(knnBytes)} (embeddings + labels)`,
      ],
      ...loadRows,
    ],
  );
  const p50 = percentile(irtLat, 50);
  return {
    title: "Scorer (IRT-MoE) vs kNN",
    markdown: `${table}\n\nDefault architecture: K = ${cfg.experts} routed experts + 1 shared, H = ${cfg.hidden}, O = ${cfg.out}, d = ${cfg.abilityDim}, input ${DIM}. Target p50 <= 1 ms for 1 query x 50 models: **${p50 <= 1 ? "met" : "not met"}** (${ms(p50)}). Latency excludes embedding the text (see the encoder section). Both methods run on one thread: kNN and the IRT-MoE rows of weights built in the process in TypeScript, the pretrained artifact's dense layers in the WebAssembly kernel a loaded scorer uses (same bits); training runs on tfjs (${backend}).\n\n${rawCheck}`,
  };
}
