/**
 * How faithfully static tables reproduce USE-lite's similarities on short texts: the first ten words of the first 60
 * val items of each dataset plus eight hand-written questions, embedded with USE-lite and with each table; prints the
 * rank correlation (Spearman) of all pairwise cosines with USE-lite's, and for each encoder the cosine of the first
 * hand-written question with the capital-of-France one (another topic) and with its own rephrasing. Reads no labels
 * and no test items.
 *
 * `IRT_ROUTER_CACHE=<cache> npx tsx bench/static-encoder/short-texts.ts [--dirs <table dir>,...]` (default: the
 * shipped table; add e.g. a `--fit none` build's folder to compare; about 20 s).
 */
import { parseArgs } from "node:util";
import { splitIndices } from "../../src/data/split.js";
import { spearman } from "../../src/eval/rank-correlation.js";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { StaticEncoder } from "../../adapters/encoders/static.js";
import { UseLiteEncoder } from "../../adapters/encoders/use-lite.js";

const { values } = parseArgs({ args: process.argv.slice(2), options: { dirs: { type: "string" } }, strict: true });
const DATASETS = ["routerbench-subset-11models", "routellm-2models", "mmlu-pro-29models", "routerdc-7models"];
const texts: string[] = [];
for (const name of DATASETS) {
  const ds = await loadDataset(name);
  const val = splitIndices(
    ds.name,
    ds.items.map((it) => it.id),
  ).val.slice(0, 60);
  for (const i of val) texts.push(ds.items[i]!.text.split(/\s+/).slice(0, 10).join(" "));
}
texts.push(
  "How do I reverse a linked list in Python?",
  "Write a Python function that reverses a singly linked list.",
  "What is the capital of France?",
  "Which city is the capital of Germany?",
  "Solve 3x + 5 = 20 for x.",
  "Translate 'good morning' into Spanish.",
  "Summarise this article about climate change.",
  "What is 17 * 23?",
);

/** Cosines of every pair (the vectors are unit norm). */
function pairCosines(vectors: Float32Array[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < vectors.length; i++)
    for (let j = i + 1; j < vectors.length; j++) {
      let dot = 0;
      for (let k = 0; k < vectors[i]!.length; k++) dot += vectors[i]![k]! * vectors[j]![k]!;
      out.push(dot);
    }
  return out;
}

/** "How do I reverse a linked list...?" against "What is the capital of France?" and against its rephrasing. */
const first = texts.length - 8;
function examples(vectors: Float32Array[]): string {
  const cos = (a: number, b: number) => vectors[a]!.reduce((s, v, k) => s + v * vectors[b]![k]!, 0).toFixed(2);
  return `other topic ${cos(first, first + 2)}, rephrasing ${cos(first, first + 1)}`;
}

const teacher = await UseLiteEncoder.load({ cacheSize: 0 });
const taught = await teacher.embed(texts);
const reference = pairCosines(taught);
teacher.dispose();
console.log(`${teacher.id}: ${examples(taught)}`);
for (const dir of values.dirs ? values.dirs.split(",") : [undefined]) {
  const encoder = await StaticEncoder.load(dir ? { dir } : {});
  const vectors = await encoder.embed(texts);
  const rho = spearman(pairCosines(vectors), reference);
  console.log(
    `${encoder.id}: Spearman of pairwise cosines with USE-lite's, ${texts.length} short texts: ${rho.toFixed(3)}; ` +
      examples(vectors),
  );
}
