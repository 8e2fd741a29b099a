/**
 * Chooses the static table's build settings on the validation split: builds each variant (PCA dims, storage, SIF
 * parameter) with `npm run build:static-encoder -- --out ...`, trains irt-moe on each dataset's train split with it
 * (seed 1, early stopping on val) and prints the val AUC and routing accuracy, beside USE-lite's where its
 * embeddings are cached (nothing is embedded with USE-lite here).
 *
 * `npx tsx bench/static-encoder/variants.ts [--datasets a,b] [--variants 256:int8:0.001,...]` (about 1 min per
 * variant and dataset on 2 cores).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { packageRoot } from "../../adapters/data/data-root.js";
import { predictedDefaultEncoder } from "../../adapters/data/dataset-embeddings.js";
import { peekCachedEmbeddings } from "../../adapters/data/embedding-cache.js";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { trainScorerPipeline } from "../../adapters/artifact/train-pipeline.js";
import { StaticEncoder } from "../../adapters/encoders/static.js";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { datasets: { type: "string" }, variants: { type: "string" } },
  strict: true,
});
const datasets = (
  values.datasets ?? "routerbench-subset-11models,routellm-2models,mmlu-pro-29models,routerdc-7models"
).split(",");
const variants = (
  values.variants ?? "512:int8:0.001,256:int8:0.001,128:int8:0.001,256:int8:0.0001,256:float16:0.001"
).split(",");
const root = packageRoot();
const config = { maxEpochs: 24, patience: 3 };

async function valMetrics(name: string, encoder?: StaticEncoder): Promise<string> {
  // Variants' embeddings stay in the checkout's own cache, not the shared one.
  const own = encoder ? { encoder, cacheDir: join(root, ".cache", "static-encoder", "embeddings") } : {};
  const { artifact } = await trainScorerPipeline([name], { seed: 1, config, ...own });
  const val = artifact.metrics[name]!.val!;
  return `AUC ${val.auc!.toFixed(4)} routing ${val.routingAccuracy!.toFixed(4)}`;
}

for (const name of datasets) {
  const predicted = await predictedDefaultEncoder();
  const cached = predicted && (await peekCachedEmbeddings(await loadDataset(name), predicted));
  console.log(`${name} use-lite: ${cached ? await valMetrics(name) : "(embeddings not cached yet)"}`);
}
for (const variant of variants) {
  const [dim, dtype, a] = variant.split(":");
  const dir = join(root, ".cache", "static-encoder", "variants", variant.replaceAll(":", "-"));
  if (!existsSync(join(dir, "manifest.json")))
    execFileSync(
      "npx",
      ["tsx", "bench/static-encoder/build.ts", "--dim", dim!, "--dtype", dtype!, "--sif-a", a!, "--out", dir],
      { cwd: root, stdio: "inherit" },
    );
  const encoder = await StaticEncoder.load({ dir });
  for (const name of datasets) console.log(`${name} static ${variant}: ${await valMetrics(name, encoder)}`);
}
