/**
 * `npm run bench -- tokens`: error of the offline token estimate (`estimateTokens`) against the real
 * cl100k_base tokenizer (js-tiktoken, bundled ranks) on the datasets' texts, beside the two common
 * rules of thumb, and its speed against the real tokenizer in the same process.
 */
import { getEncoding } from "js-tiktoken";
import { estimateTokens } from "../../../src/policy/tokens.js";
import { loadDataset } from "../../../adapters/data/load-dataset.js";
import { readRouterBenchPrompts } from "../../../adapters/policy/full-prompts.js";
import { mdTable, percentile, type BenchSection } from "../section.js";

/** At most this many texts per dataset, evenly spaced in file order (deterministic). */
const MAX_TEXTS = 4000;

function evenly<T>(xs: readonly T[], max: number): T[] {
  if (xs.length <= max) return [...xs];
  const step = xs.length / max;
  return Array.from({ length: max }, (_, k) => xs[Math.floor(k * step)]!);
}

const charsOver4 = (t: string) => Math.round(t.length / 4);
const wordsTimes13 = (t: string) => Math.round((t.match(/\S+/g)?.length ?? 0) * 1.3);

export async function run(): Promise<BenchSection> {
  const enc = getEncoding("cl100k_base");
  const sets: [string, string[]][] = [
    ["routerbench-subset-11models (full prompts)", [...(await readRouterBenchPrompts()).values()]],
  ];
  for (const name of ["mmlu-pro-29models", "routerdc-7models", "routellm-2models"]) {
    sets.push([name, (await loadDataset(name)).items.map((i) => i.text)]);
  }
  const rows: (string | number)[][] = [];
  const fmt = (x: number) => `${(100 * x).toFixed(1)}%`;
  let estUs = 0;
  let tikUs = 0;
  let chars = 0;
  for (const [name, all] of sets) {
    const texts = evenly(all, MAX_TEXTS);
    const real = texts.map((t) => enc.encode(t).length);
    for (const [method, f] of [
      ["estimateTokens", estimateTokens],
      ["chars / 4", charsOver4],
      ["words x 1.3", wordsTimes13],
    ] as const) {
      const rel = texts.map((t, i) => (f(t) - real[i]!) / Math.max(1, real[i]!));
      const abs = rel.map(Math.abs);
      rows.push([
        name,
        `${texts.length} of ${all.length}`,
        method,
        fmt(abs.reduce((a, x) => a + x, 0) / abs.length),
        fmt(percentile(abs, 50)),
        fmt(percentile(abs, 90)),
        `${rel.reduce((a, x) => a + x, 0) >= 0 ? "+" : ""}${fmt(rel.reduce((a, x) => a + x, 0) / rel.length)}`,
      ]);
    }
    // Speed, same texts, same process: heuristic vs the real tokenizer.
    const t0 = performance.now();
    for (const t of texts) estimateTokens(t);
    const t1 = performance.now();
    for (const t of texts) enc.encode(t);
    const t2 = performance.now();
    estUs += (t1 - t0) * 1000;
    tikUs += (t2 - t1) * 1000;
    chars += texts.reduce((a, t) => a + t.length, 0);
  }
  const perKChar = (us: number) => (us / (chars / 1000)).toFixed(1);
  return {
    title: "Token estimate vs cl100k_base",
    markdown: [
      mdTable(["dataset", "texts", "method", "mean abs rel err", "median", "p90", "mean signed"], rows),
      "",
      `Relative error = (estimate - cl100k_base count) / cl100k_base count, per text. RouterBench texts are the full prompts the models were billed for (few-shot prefix included); the other datasets use the item text (question and options).`,
      `The five constants of \`estimateTokens\` (TOKEN_HEURISTIC) were fitted on a subsample of these same texts, so these are in-sample figures.`,
      "",
      `Speed on the same texts: estimateTokens ${perKChar(estUs)} us per 1,000 characters; js-tiktoken encode (baseline, ranks already loaded) ${perKChar(tikUs)} us per 1,000 characters.`,
    ].join("\n"),
  };
}
