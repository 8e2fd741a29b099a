/**
 * Chooses the static table's build settings on the validation split: builds each variant (a set of
 * `build:static-encoder` flags) into .cache/static-encoder/variants/, trains irt-moe on each dataset's train split
 * with it (seed 1, early stopping on val) and prints the val AUC and routing accuracy, beside USE-lite's where its
 * embeddings are cached (nothing is embedded with USE-lite here).
 *
 * `npx tsx bench/static-encoder/variants.ts [--datasets a,b] [--variants "--fit none;--dim 128;--lambda 0.1"]`
 * (variants separated by ";"; about 1 min per variant and dataset on 2 cores, plus a fit's 4 min).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
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
  options: { datasets: { type: "string" }, variants: { type: "string" }, "no-use-lite": { type: "boolean" } },
  strict: true,
});
const datasets = (
  values.datasets ?? "routerbench-subset-11models,routellm-2models,mmlu-pro-29models,routerdc-7models"
).split(",");
const variants = (values.variants ?? "--fit none;--fit none --dim 512;--fit none --dim 128;").split(";");
const root = packageRoot();
const config = { maxEpochs: 24, patience: 3 };

async function valMetrics(name: string, encoder?: StaticEncoder): Promise<string> {
  // Variants' embeddings stay in the checkout's own cache, not the shared one.
  const own = encoder ? { encoder, cacheDir: join(root, ".cache", "static-encoder", "embeddings") } : {};
  const { artifact } = await trainScorerPipeline([name], { seed: 1, config, ...own });
  const val = artifact.metrics[name]!.val!;
  return `AUC ${val.auc!.toFixed(4)} routing ${val.routingAccuracy!.toFixed(4)}`;
}

if (!values["no-use-lite"])
  for (const name of datasets) {
    const predicted = await predictedDefaultEncoder();
    const cached = predicted && (await peekCachedEmbeddings(await loadDataset(name), predicted));
    console.log(`${name} use-lite: ${cached ? await valMetrics(name) : "(embeddings not cached yet)"}`);
  }
for (const variant of variants) {
  const flags = variant.trim().split(/\s+/).filter(Boolean);
  const dir = join(
    root,
    ".cache",
    "static-encoder",
    "variants",
    createHash("sha256").update(flags.join(" ")).digest("hex").slice(0, 12),
  );
  if (!existsSync(join(dir, "manifest.json")))
    execFileSync("npx", ["tsx", "bench/static-encoder/build.ts", ...flags, "--out", dir], {
      cwd: root,
      stdio: "inherit",
    });
  const encoder = await StaticEncoder.load({ dir });
  for (const name of datasets)
    console.log(`${name} static [${flags.join(" ") || "defaults"}]: ${await valMetrics(name, encoder)}`);
}
