/**
 * `npm run eval:encoders`: irt-moe with the static encoder against irt-moe with USE-lite, on each dataset's test
 * split, in one evaluation per dataset (same split, seeds 1-3 and bootstrap resamples), so the routing difference is
 * a paired interval. Needs the datasets' USE-lite embeddings in the cache (it embeds nothing with USE-lite);
 * a dataset without them is skipped and said so. About 2-4 min per dataset on 2 cores.
 *
 * `npm run eval:encoders -- [--datasets a,b] [--seeds N]`; writes bench/results/encoders-<dataset>.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { splitIndices } from "../../src/data/split.js";
import { IRT_MOE, evaluate } from "../../src/eval/evaluate.js";
import { irtMoeMethod } from "../../src/eval/irt-moe-method.js";
import { withEmbeddings } from "../../src/eval/with-embeddings.js";
import { packageRoot } from "../../adapters/data/data-root.js";
import { getDatasetEmbeddings, predictedDefaultEncoder } from "../../adapters/data/dataset-embeddings.js";
import { peekCachedEmbeddings } from "../../adapters/data/embedding-cache.js";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { StaticEncoder } from "../../adapters/encoders/static.js";
import { getTf } from "../../adapters/tf.js";
import { listFlag, MAX_EVAL_SEEDS, scriptFlags, seedsFlag } from "../flags.js";

const ALL = ["routerbench-subset-11models", "routellm-2models", "mmlu-pro-29models", "routerdc-7models"];
const values = scriptFlags(
  "eval:encoders",
  { datasets: { type: "string" }, seeds: { type: "string" } },
  z.object({ datasets: listFlag(z.string()).default(ALL), seeds: seedsFlag(3, MAX_EVAL_SEEDS) }).strict(),
);
const { datasets } = values;
const seeds = Array.from({ length: values.seeds }, (_, k) => k + 1);
const STATIC_ROW = "irt-moe (static)";
const f = (v: number | null | undefined) => (v === null || v === undefined ? "–" : v.toFixed(4));

const encoder = await StaticEncoder.load();
const tf = (await getTf()).tf;
const lines: string[] = [
  `Encoders: use-lite (cached) vs ${encoder.id}; seeds ${seeds.join(", ")}; test split.`,
  "",
  "| dataset | routing USE-lite | routing static | static - USE-lite (95% paired CI) | AUC USE-lite | AUC static | AUC diff per seed |",
  "|---|---|---|---|---|---|---|",
];
for (const name of datasets) {
  const ds = await loadDataset(name);
  const predicted = await predictedDefaultEncoder();
  const useLite = predicted && (await peekCachedEmbeddings(ds, predicted));
  if (!useLite) {
    lines.push(`| ${name} | (USE-lite embeddings not cached yet) | | | | | |`);
    console.error(`${name}: skipped, its USE-lite embeddings are not in the cache`);
    continue;
  }
  const staticEmb = await getDatasetEmbeddings(ds, { encoder });
  const split = splitIndices(
    ds.name,
    ds.items.map((it) => it.id),
  );
  const data = {
    X: useLite.vectors,
    dim: useLite.dim,
    nItems: ds.items.length,
    nModels: ds.models.length,
    offsets: ds.labels.offsets,
    model: ds.labels.model,
    y: ds.labels.y,
  };
  const t0 = performance.now();
  const report = await evaluate(
    {
      name: ds.name,
      models: ds.models,
      data,
      split,
      categories: ds.items.map((it) => it.category),
      itemIds: ds.items.map((it) => it.id),
    },
    {
      methods: [irtMoeMethod(tf), withEmbeddings(irtMoeMethod(tf), staticEmb.vectors, staticEmb.dim, STATIC_ROW)],
      seeds,
    },
  );
  const a = report.methods.find((m) => m.name === IRT_MOE)!;
  const b = report.methods.find((m) => m.name === STATIC_ROW)!;
  const aucDiffs = b.perSeed.map((s, k) => (s.auc ?? NaN) - (a.perSeed[k]!.auc ?? NaN));
  lines.push(
    `| ${name} | ${f(a.routingAccuracy)} | ${f(b.routingAccuracy)} | ${f(b.diffVsIrtMoe)} [${f(b.diffVsIrtMoeCi95?.[0])}, ${f(b.diffVsIrtMoeCi95?.[1])}] | ` +
      `${f(a.auc)} ± ${f(a.aucSd)} | ${f(b.auc)} ± ${f(b.aucSd)} | ${aucDiffs.map((d) => d.toFixed(4)).join(", ")} |`,
  );
  const dir = join(packageRoot(), "bench", "results");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `encoders-${name}.json`),
    `${JSON.stringify({ encoder: encoder.id, seeds, useLite: a, static: b }, null, 2)}\n`,
  );
  console.error(`${name}: done in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}
console.log(lines.join("\n"));
