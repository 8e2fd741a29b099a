/**
 * `npm run bench -- static-encoder`: the static encoder against USE-lite in this one process: embedding latency of
 * one new text (20, 200 and 1,000 tokens; no cache), and the full routing decision on a router cache miss
 * (`IrtRouter.decide`: encode + score 50 models + cost-aware policy) with each encoder. The install size and the time
 * to the first routed call of a fresh process are measured by `npm run bench -- install` (bench/perf/sections/install.ts).
 */
import { cpus, loadavg } from "node:os";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { StaticEncoder } from "../../../adapters/encoders/static.js";
import { UseLiteEncoder } from "../../../adapters/encoders/use-lite.js";
import type { QueryEncoder } from "../../../src/encoders/types.js";
import { IrtRouter } from "../../../src/langchain/index.js";
import { mdTable, percentile, timeCalls, type BenchSection } from "../section.js";
import { makeText } from "./encoder.js";
import { untrainedScorer } from "./untrained-scorer.js";

const SIZES = [20, 200, 1000] as const;
const CALLS = { static: 400, useLite: { 20: 30, 200: 20, 1000: 12 } as Record<number, number> };
const N_MODELS = 50;

/** A new text of about `tokens` tokens at every call (so no cache answers), from a fixed sequence. */
function texts(tokenizer: { encode(t: string): number[] }, tokens: number, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${i}: ${makeText({ tokenizer }, tokens, i + 1)}`);
}

async function embedTimes(encoder: QueryEncoder, pool: string[], calls: number): Promise<number[]> {
  let i = 0;
  return timeCalls(() => encoder.embed([pool[i++ % pool.length]!]), calls, 3);
}

/** A cost-aware router over 50 models scored by an untrained scorer of the default shape, in an arena (see untrainedScorer). */
function router(encoder: QueryEncoder): IrtRouter {
  const ids = Array.from({ length: N_MODELS }, (_, m) => `model-${m}`);
  const scorer = untrainedScorer(encoder, ids);
  const fake = () => new FakeListChatModel({ responses: ["ok"] });
  return new IrtRouter({
    models: Object.fromEntries(
      ids.map((id, m) => [id, { model: fake(), price: { inputPer1M: 0.1 + m / 10, outputPer1M: 0.2 + m / 5 } }]),
    ),
    scorer,
    encoder,
    policy: { kind: "cost-aware", lambda: 20 },
    logger: { warn: () => {} },
  });
}

async function decideTimes(r: IrtRouter, pool: string[], calls: number): Promise<number[]> {
  let i = 0;
  return timeCalls(() => r.decide(pool[i++ % pool.length]!), calls, 3);
}

const ms = (x: number) => (x < 1 ? x.toFixed(4) : x.toFixed(2));
const ratio = (a: number, b: number) => `${(a / b).toFixed(0)}x`;

export async function run(): Promise<BenchSection> {
  const load = loadavg()[0]!;
  const fast = await StaticEncoder.load();
  const slow = await UseLiteEncoder.load({ cacheSize: 0 });
  const rows: (string | number)[][] = [];
  const pools = new Map<number, string[]>();
  for (const size of SIZES) {
    const pool = texts(fast.tokenizer, size, CALLS.static + 3);
    pools.set(size, pool);
    const s = await embedTimes(fast, pool, CALLS.static);
    const u = await embedTimes(slow, pool, CALLS.useLite[size]!);
    const [s50, s99, u50, u99] = [percentile(s, 50), percentile(s, 99), percentile(u, 50), percentile(u, 99)];
    rows.push([`embed, ${size} tokens`, ms(s50), ms(s99), ms(u50), ms(u99), ratio(u50, s50)]);
  }
  const pool = pools.get(200)!.map((t) => `route ${t}`);
  const s = await decideTimes(router(fast), pool, CALLS.static);
  const u = await decideTimes(router(slow), pool, CALLS.useLite[200]!);
  const [s50, s99, u50, u99] = [percentile(s, 50), percentile(s, 99), percentile(u, 50), percentile(u, 99)];
  rows.push([
    `routing decision, 200 tokens, ${N_MODELS} models, cache miss`,
    ms(s50),
    ms(s99),
    ms(u50),
    ms(u99),
    ratio(u50, s50),
  ]);
  slow.dispose();
  return {
    title: "Static encoder vs USE-lite (embedding and routing decision)",
    markdown: [
      `Static: ${fast.id} (${fast.dim} dims). USE-lite: ${slow.id} on ${slow.backend}, its cache off. One new text per call ` +
        `(batch 1; no cache answers); ${CALLS.static} calls for the static encoder, 12-30 for USE-lite. The routing decision is ` +
        `\`IrtRouter.decide\` on a router cache miss: encode, the scorer's forward pass, ${N_MODELS} models scored, cost-aware policy ` +
        "(an untrained scorer of the default shape, its weights in a WebAssembly arena as a loaded scorer's: the same arithmetic and kernel as a trained one). " +
        "Wall-clock ms; the last column is USE-lite's p50 over " +
        `the static encoder's, measured in this process. Load average when the run started: ${load.toFixed(1)} on ${cpus().length} cores ` +
        "(a shared machine inflates both encoders' absolute times; the ratio is the figure to compare).",
      "",
      mdTable(
        ["", "static p50 ms", "static p99 ms", "USE-lite p50 ms", "USE-lite p99 ms", "USE-lite / static (p50)"],
        rows,
      ),
      "",
      `Targets (issue 24): the decision for a 200-token text at least 100x faster than with USE-lite: ${ratio(u50, s50)} ` +
        `(${u50 / s50 >= 100 ? "met" : "NOT met"}); under 0.5 ms at p50: ${ms(s50)} ms (${s50 < 0.5 ? "met" : "NOT met"}).`,
    ].join("\n"),
  };
}
