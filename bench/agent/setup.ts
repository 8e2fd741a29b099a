/**
 * Loads what `npm run bench:agent` replays: the dataset (project loaders), its split, its cached embeddings, the
 * scorer, each model's prices, and the world of per-step labels, tokens and costs.
 */
import { basename } from "node:path";
import { loadDataset, getDatasetEmbeddings } from "../../adapters/data/index.js";
import { loadPretrained } from "../../adapters/artifact/index.js";
import { StaticEncoder } from "../../adapters/encoders/static.js";
import { readRouterBenchPrompts } from "../../adapters/policy/full-prompts.js";
import type { CorrectnessDataset, ModelPrice } from "../../src/data/types.js";
import { splitIndices } from "../../src/data/split.js";
import { listPrice } from "../../src/policy/prices.js";
import { datasetModelNames } from "../../src/scorer/catalog.js";
import type { Scorer } from "../../src/scorer/types.js";
import { withCachedPrice, type CachedPricing } from "./cached-pricing.js";
import type { AgentPrice } from "./price-types.js";
import { VectorTableEncoder } from "./replay-models.js";
import { buildAgentWorld, type AgentWorld } from "./world.js";

/**
 * List prices of RouteLLM's two models (USD per 1M tokens), which the dataset does not carry: GPT-4 Turbo
 * (gpt-4-1106-preview) at OpenAI's list price, $10 input / $30 output (openai.com/pricing, Nov. 2023); Mixtral-8x7B
 * Instruct at Together AI's serverless price, $0.60 / $0.60 (the RouterBench price table, withmartian/routerbench
 * routers/common.py; see docs/cost-estimation.md).
 */
export const ROUTELLM_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  "gpt-4-1106-preview": { inputPer1M: 10, outputPer1M: 30 },
  "mistralai/Mixtral-8x7B-Instruct-v0.1": { inputPer1M: 0.6, outputPer1M: 0.6 },
});

export interface AgentSetup {
  readonly ds: CorrectnessDataset;
  readonly world: AgentWorld;
  readonly split: { train: number[]; val: number[]; test: number[] };
  readonly scorer: Scorer;
  /** Which scorer, in words (printed and documented). */
  readonly scorerNote: string;
  readonly encoder: VectorTableEncoder;
  /** The router key of each model (its catalog row for this dataset). */
  readonly keys: readonly string[];
  readonly embeddingsNote: string;
}

/** The price of each model: the dataset's own (your-own-data models.csv), else a known list price, else an error. */
export function modelPrices(ds: CorrectnessDataset, cached: CachedPricing = "current"): AgentPrice[] {
  return ds.models.map((m) => {
    // The dataset's own price keeps its cachedInputPer1M; a list price's is the historical family default, which
    // withCachedPrice replaces under "current" pricing (the list tables fill it in for every model).
    const own = ds.prices?.[m];
    const list = ROUTELLM_PRICES[m] ?? listPrice(m);
    const price = own ?? (list && { inputPer1M: list.inputPer1M, outputPer1M: list.outputPer1M });
    if (!price) {
      throw new Error(
        `bench:agent: model "${m}" of ${ds.name} has no price; a your-own-data folder needs a models.csv with input and output prices per model (docs/your-own-data.md).`,
      );
    }
    return withCachedPrice(m, price, cached);
  });
}

export async function loadAgentSetup(
  dataset: string,
  log: (s: string) => void,
  options: { dataRoot?: string; cachedPricing?: CachedPricing; encoder?: "use-lite" | "static" } = {},
): Promise<AgentSetup> {
  const { dataRoot, cachedPricing = "current", encoder: encoderName = "use-lite" } = options;
  const ds = await loadDataset(dataset, dataRoot ? { dataRoot } : {});
  const split = splitIndices(
    ds.name,
    ds.items.map((it) => it.id),
  );
  const billed =
    basename(ds.source.dir) === "routerbench-subset-11models" ? await readRouterBenchPrompts(ds.source.dir) : undefined;
  const world = buildAgentWorld(ds, modelPrices(ds, cachedPricing), billed);
  let last = 0;
  // The static encoder (option `encoder: "static"`) embeds a large dataset in seconds; its scorer is the one trained
  // on its vectors (pretrained/static).
  const staticEncoder = encoderName === "static" ? await StaticEncoder.load() : undefined;
  const emb = await getDatasetEmbeddings(ds, {
    ...(staticEncoder ? { encoder: staticEncoder } : {}),
    onProgress: (p) => {
      if (Date.now() - last > 10_000 || p.done === p.total) {
        last = Date.now();
        log(`  embedding ${ds.name}: ${p.done}/${p.total}`);
      }
    },
  });
  const scorer = await loadPretrained(staticEncoder ? { encoder: staticEncoder } : { encoder: null });
  const encoder = new VectorTableEncoder(emb.encoder.id, emb.dim, world.texts, emb.vectors);
  const keys = datasetModelNames(scorer.models, ds.models, ds.name);
  return {
    ds,
    world,
    split,
    scorer,
    scorerNote: `the shipped pretrained scorer${staticEncoder ? " on the static encoder (pretrained/static)" : ""} (trained on the train splits of the four datasets, early-stopped on their val splits; never saw a test item)`,
    encoder,
    keys,
    embeddingsNote: `${emb.encoder.id}${emb.fromCache ? " (embedding cache)" : " (computed and cached)"}`,
  };
}
