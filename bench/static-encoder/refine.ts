/**
 * Chooses on the validation split whether the learned refinement of the static encoder (per-piece weights trained
 * jointly with irt-moe on the train split, `src/scorer/piece-weights.ts`) beats the plain static table: for each
 * dataset and seed, irt-moe on USE-lite (cached), on the static table and on the refined table, early-stopped on val,
 * then val AUC and routing accuracy with paired bootstrap intervals over the val items (refined minus static).
 * Nothing here looks at the test split.
 *
 * `IRT_ROUTER_CACHE=<cache> npx tsx bench/static-encoder/refine.ts [--datasets a,b] [--seeds 1]
 * [--variants w:5:1,r:100:0.3,...]` (see DEFAULT_VARIANTS)
 * (RouterDC: 20-90 s per training on 2 shared cores; two baselines and one training per variant and seed); writes
 * bench/results/refine-val-<dataset>[-seeds-...].json.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { splitIndices } from "../../src/data/split.js";
import { bootstrapDiffCi, bootstrapPlan } from "../../src/stats/bootstrap.js";
import { routeByPrediction } from "../../src/stats/routing-scores.js";
import { decodeStaticTable, type StaticTableDtype } from "../../src/encoders/static-table.js";
import { predictItems } from "../../src/scorer/forward.js";
import { observedPairs, rocAuc } from "../../src/scorer/metrics.js";
import { pieceWeightInput } from "../../src/scorer/piece-weights.js";
import { trainIrtMoe, trainIrtMoeWith, type EmbeddedLabels, type TrainedIrtMoe } from "../../src/scorer/train.js";
import { packageRoot } from "../../adapters/data/data-root.js";
import { getDatasetEmbeddings, predictedDefaultEncoder } from "../../adapters/data/dataset-embeddings.js";
import { peekCachedEmbeddings } from "../../adapters/data/embedding-cache.js";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { defaultStaticDir, StaticEncoder } from "../../adapters/encoders/static.js";
import { getTf } from "../../adapters/tf.js";
import { listFlag, scriptFlags, seedListFlag, seedsFlag } from "../flags.js";

const DEFAULT_VARIANTS = "w:5:1,w:5:10,w:100:3,w:100:10,r:100:0.1,r:100:0.3,r:100:1,r:20:1";
/**
 * A refinement tried, each against the same baselines: `w` (piece weights) or `r` (weights and row residuals), the
 * piece-count threshold (a piece is learned when at least this many training items contain it) and the learning-rate
 * multiplier of the refinement's variables.
 */
const variantFlag = z
  .string()
  .refine((v) => {
    const [kind, minItems, scale] = v.split(":");
    return (kind === "w" || kind === "r") && Number(minItems) >= 1 && Number(scale) > 0;
  }, "is not kind:minItems:lrScale (kind w or r), e.g. w:5:1")
  .transform((v) => {
    const [kind, minItems, scale] = v.split(":");
    return { tuneRows: kind === "r", minItems: Number(minItems), learningRateScale: Number(scale) };
  });

/** `--seeds 3`: seeds 1-3; `--seeds 2,3`: those seeds. */
const seedsOrListFlag = z
  .string()
  .default("1")
  .transform((text, ctx) => {
    const parsed = text.includes(",")
      ? seedListFlag().safeParse(text)
      : seedsFlag(1)
          .transform((n) => Array.from({ length: n }, (_, k) => k + 1))
          .safeParse(text);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    return z.NEVER;
  });

const { datasets, seeds, variants } = scriptFlags(
  "bench/static-encoder/refine.ts",
  { datasets: { type: "string" }, seeds: { type: "string" }, variants: { type: "string" } },
  z
    .object({
      datasets: listFlag(z.string()).default(["routerdc-7models"]),
      seeds: seedsOrListFlag,
      variants: z.string().default(DEFAULT_VARIANTS).pipe(listFlag(variantFlag)),
    })
    .strict(),
);
const tf = (await getTf()).tf;
const encoder = await StaticEncoder.load();

/** The shipped table, read as the encoder reads it (the encoder keeps its own private). */
function shippedTable() {
  const dir = defaultStaticDir();
  const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as {
    rows: number;
    dim: number;
    dtype: StaticTableDtype;
    table: { file: string };
  };
  return decodeStaticTable(new Uint8Array(readFileSync(join(dir, m.table.file))), m.rows, m.dim, m.dtype);
}
const table = shippedTable();

/** Bootstrap interval of AUC(a) - AUC(b) over val items (each resample takes the same items for both). */
function aucDiffCi(pa: Float32Array, pb: Float32Array, data: EmbeddedLabels, rows: readonly number[]) {
  const plan = bootstrapPlan(rows.length, 300, 11);
  const stats: number[] = [];
  for (let b = 0; b < plan.resamples; b++) {
    const picked = Array.from(plan.indices.subarray(b * plan.n, (b + 1) * plan.n));
    const sub = (p: Float32Array) => {
      const q = new Float32Array(picked.length * data.nModels);
      picked.forEach((r, k) => q.set(p.subarray(r * data.nModels, (r + 1) * data.nModels), k * data.nModels));
      const pairs = observedPairs(
        q,
        data.nModels,
        data,
        picked.map((r) => rows[r]!),
      );
      return rocAuc(pairs.p, pairs.y);
    };
    stats.push(sub(pa) - sub(pb));
  }
  stats.sort((x, y) => x - y);
  return [stats[Math.floor(0.025 * stats.length)]!, stats[Math.ceil(0.975 * stats.length) - 1]!];
}

function valFigures(trained: TrainedIrtMoe, X: Float32Array, data: EmbeddedLabels, val: readonly number[]) {
  const p = predictItems(trained, X, val);
  const pairs = observedPairs(p, data.nModels, data, val);
  const routed = routeByPrediction(data, val, p, data.nModels).score;
  return { p, routed, auc: rocAuc(pairs.p, pairs.y), routing: routed.reduce((s, v) => s + v, 0) / routed.length };
}

const f = (v: number) => (v >= 0 ? "+" : "") + v.toFixed(4);
for (const name of datasets) {
  const ds = await loadDataset(name);
  const split = splitIndices(
    ds.name,
    ds.items.map((it) => it.id),
  );
  const staticEmb = await getDatasetEmbeddings(ds, { encoder });
  const predicted = await predictedDefaultEncoder();
  const useLite = predicted && (await peekCachedEmbeddings(ds, predicted));
  const labels = { nItems: ds.items.length, nModels: ds.models.length, ...ds.labels };
  const data: EmbeddedLabels = { X: staticEmb.vectors, dim: staticEmb.dim, ...labels };
  const bags = ds.items.map((it) => encoder.tokenize(it.text));
  const out: Record<string, unknown>[] = [];
  for (const seed of seeds) {
    const log = (tag: string) => ({
      onEpoch: (e: { epoch: number; valAuc: number; valRouting: number; seconds: number }) =>
        console.error(
          `  ${tag} epoch ${e.epoch}: val AUC ${e.valAuc.toFixed(4)} routing ${e.valRouting.toFixed(4)} (${e.seconds.toFixed(1)} s)`,
        ),
    });
    const b = valFigures(await trainIrtMoe(tf, data, split, {}, { seed, ...log("static") }), data.X, data, split.val);
    let u: { auc: number; routing: number } | undefined;
    if (useLite) {
      const dataU = { ...labels, X: useLite.vectors, dim: useLite.dim };
      u = valFigures(await trainIrtMoe(tf, dataU, split, {}, { seed }), dataU.X, dataU, split.val);
    }
    for (const { tuneRows, minItems, learningRateScale } of variants) {
      const t0 = performance.now();
      const input = pieceWeightInput(tf, {
        bags,
        table,
        trainRows: split.train,
        minItems,
        learningRateScale,
        tuneRows,
      });
      const X0 = input.embedAll();
      let drift = 0;
      for (let j = 0; j < X0.length; j++) drift = Math.max(drift, Math.abs(X0[j]! - data.X[j]!));
      console.error(
        `${name}: ${input.pieces.length} learned pieces; max |s=0 - cached static| ${drift.toExponential(2)}`,
      );
      const refined = await trainIrtMoeWith(
        tf,
        data,
        split,
        {},
        { seed, ...log(`refined ${tuneRows ? "r" : "w"}:${minItems}:${learningRateScale}`) },
        input,
      );
      const Xr = input.embedAll();
      const w = input.rowWeights();
      const logW = Array.from(input.pieces, (id) => Math.log(w[id]!)).sort((x, y) => x - y);
      input.dispose();
      const a = valFigures(refined, Xr, data, split.val);
      const plan = bootstrapPlan(split.val.length, 1000, 7);
      const routingCi = bootstrapDiffCi(a.routed, b.routed, plan);
      const aucCi = aucDiffCi(a.p, b.p, data, split.val);
      const quantiles = [0, 0.05, 0.5, 0.95, 1].map(
        (q) => logW[Math.min(logW.length - 1, Math.floor(q * logW.length))]!,
      );
      out.push({
        dataset: name,
        seed,
        minItems,
        learningRateScale,
        tuneRows,
        learnedPieces: logW.length,
        logWeightQuantiles: quantiles,
        refinedEpochs: `${refined.bestEpoch}/${refined.history.length}`,
        refinedSeconds: (performance.now() - t0) / 1000,
        val: {
          refined: { auc: a.auc, routing: a.routing },
          static: { auc: b.auc, routing: b.routing },
          useLite: u ? { auc: u.auc, routing: u.routing } : null,
          refinedMinusStatic: { routing: a.routing - b.routing, routingCi, auc: a.auc - b.auc, aucCi },
        },
      });
      console.log(
        `${name} seed ${seed} ${tuneRows ? "rows+weights" : "weights"} lr x${learningRateScale} min ${minItems} val: refined AUC ${a.auc.toFixed(4)} routing ${a.routing.toFixed(4)} | ` +
          `static AUC ${b.auc.toFixed(4)} routing ${b.routing.toFixed(4)} | ` +
          `USE-lite ${u ? `AUC ${u.auc.toFixed(4)} routing ${u.routing.toFixed(4)}` : "(not cached)"} | ` +
          `refined - static: routing ${f(a.routing - b.routing)} [${f(routingCi[0])}, ${f(routingCi[1])}], ` +
          `AUC ${f(a.auc - b.auc)} [${f(aucCi[0]!)}, ${f(aucCi[1]!)}]; log-weights ${quantiles.map((v) => v.toFixed(2)).join(" ")}`,
      );
    }
  }
  const dir = join(packageRoot(), "bench", "results");
  mkdirSync(dir, { recursive: true });
  const tag = seeds.join(",") === "1" ? "" : `-seeds-${seeds.join("-")}`;
  writeFileSync(join(dir, `refine-val-${name}${tag}.json`), `${JSON.stringify(out, null, 2)}\n`);
}
