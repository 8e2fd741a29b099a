/**
 * `npm run bench -- encoder`: UseLiteEncoder latency, throughput, cold load, memory and cache,
 * beside the reference @energetic-ai/embeddings (same weights, its own tfjs) measured in a child
 * process on the same texts in the same run.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { UseLiteEncoder } from "../../../adapters/encoders/use-lite.js";
import { getTf } from "../../../adapters/tf.js";
import { mdTable, percentile, type BenchSection } from "../section.js";

const here = dirname(fileURLToPath(import.meta.url));
const BATCH = 32;
const SIZES = { short: 20, medium: 200, long: 1000 } as const;
type Size = keyof typeof SIZES;
const LATENCY_CALLS: Record<Size, number> = { short: 30, medium: 20, long: 12 };
const THROUGHPUT_TEXTS: Record<Size, number> = { short: 64, medium: 64, long: 32 };

const WORDS = (
  "the model router question answer which following best describes function cell energy protein " +
  "market price demand supply policy court law contract evidence theorem proof integer prime function " +
  "derivative integral matrix vector probability distribution sample mean variance history empire war " +
  "treaty century language grammar verb noun poem novel author character chemical reaction acid base " +
  "electron atom molecule bond planet orbit gravity force mass velocity energy temperature pressure volume " +
  "computer program algorithm data structure list tree graph search sort complexity memory network " +
  "patient disease symptom treatment drug dose heart blood brain nerve muscle bone gene mutation species " +
  "is are was were has have had will would could should may might must can do does did not and or but if " +
  "then because while when where how why what who whose whom this that these those a an of in on at by " +
  "for with from to into over under between among through during before after above below"
).split(" ");

/** Deterministic English-like text of about `tokens` USE-lite tokens. */
export function makeText(
  encoder: { readonly tokenizer: { encode(text: string): number[] } },
  tokens: number,
  seed: number,
): string {
  let state = seed * 2654435761;
  const words: string[] = [];
  let text = "";
  while (encoder.tokenizer.encode(text).length < tokens) {
    for (let i = 0; i < 8; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      words.push(WORDS[state % WORDS.length]!);
    }
    text = words.join(" ");
  }
  while (words.length > 1 && encoder.tokenizer.encode(words.join(" ")).length > tokens) words.pop();
  return `${words.join(" ")}?`;
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

interface Latency {
  wall: number[];
  cpu: number[];
}
interface Throughput {
  wallMs: number;
  cpuMs: number;
  texts: number;
}
interface Measured {
  loadMs: number;
  rssGrowthMb: number;
  latency: Record<string, Latency>;
  throughput: Record<string, Throughput>;
}

function runReference(latency: Record<string, string[]>, throughput: Record<string, string[]>): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, "..", "encoder-reference.mjs")], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(JSON.parse(out) as Measured)
        : reject(new Error(`reference exited ${code}: ${err.slice(-1500)}`)),
    );
    child.stdin.end(JSON.stringify({ latency, throughput, batch: BATCH }));
  });
}

async function measureOurs(
  encoder: UseLiteEncoder,
  latency: Record<string, string[]>,
  throughput: Record<string, string[]>,
): Promise<Omit<Measured, "loadMs" | "rssGrowthMb">> {
  const lat: Record<string, Latency> = {};
  for (const [name, texts] of Object.entries(latency)) {
    for (const text of texts.slice(0, 2)) await encoder.embed([text]);
    const wall: number[] = [];
    const cpu: number[] = [];
    for (const text of texts) {
      const c = process.cpuUsage();
      const t = performance.now();
      await encoder.embed([text]);
      wall.push(performance.now() - t);
      cpu.push(cpuMs(c));
    }
    lat[name] = { wall, cpu };
  }
  const thr: Record<string, Throughput> = {};
  for (const [name, texts] of Object.entries(throughput)) {
    const c = process.cpuUsage();
    const t = performance.now();
    await encoder.embed(texts); // the encoder batches by BATCH itself
    thr[name] = { wallMs: performance.now() - t, cpuMs: cpuMs(c), texts: texts.length };
  }
  return { latency: lat, throughput: thr };
}

export async function run(): Promise<BenchSection> {
  const rss0 = process.memoryUsage().rss;
  const tfStart = performance.now();
  const runtime = await getTf();
  const tfInitMs = performance.now() - tfStart; // ~0 if another section already initialised tfjs
  const loadStart = performance.now();
  const probe = await UseLiteEncoder.load({ cacheSize: 0, maxBatch: BATCH });
  await probe.embed(["warm up"]);
  const loadMs = performance.now() - loadStart;

  const latencyTexts: Record<string, string[]> = {};
  const throughputTexts: Record<string, string[]> = {};
  for (const size of Object.keys(SIZES) as Size[]) {
    latencyTexts[size] = Array.from({ length: LATENCY_CALLS[size] + 2 }, (_, i) =>
      makeText(probe, SIZES[size], 1000 * i + 1),
    );
    throughputTexts[size] = Array.from({ length: THROUGHPUT_TEXTS[size] }, (_, i) =>
      makeText(probe, SIZES[size], 7 + 31 * i),
    );
  }
  const meanTokens = (texts: string[]) =>
    Math.round(texts.reduce((s, t) => s + probe.tokenize(t).tokens, 0) / texts.length);

  // Where the time goes: tokenizer alone, per text.
  const tokenizerMs: Record<string, number> = {};
  for (const [name, texts] of Object.entries(latencyTexts)) {
    const t = performance.now();
    for (let r = 0; r < 5; r++) for (const text of texts) probe.tokenizer.encode(text);
    tokenizerMs[name] = (performance.now() - t) / (5 * texts.length);
  }

  // Cost vs input length at batch 1 (why the cap is the model's own 128).
  const lengthRows: (string | number)[][] = [];
  for (const tokens of [1, 16, 32, 64, 128]) {
    const texts = Array.from({ length: 8 }, (_, i) =>
      tokens === 1 ? `${WORDS[i]}` : makeText(probe, tokens, 555 + i),
    );
    for (const text of texts.slice(0, 2)) await probe.embed([text]);
    const wall: number[] = [];
    const cpu: number[] = [];
    for (const text of texts) {
      const c = process.cpuUsage();
      const t = performance.now();
      await probe.embed([text]);
      wall.push(performance.now() - t);
      cpu.push(cpuMs(c));
    }
    lengthRows.push([tokens, percentile(wall, 50).toFixed(1), percentile(cpu, 50).toFixed(1)]);
  }

  // Length-sorting within a call: 32 texts alternating ~16 and ~128 tokens, batches of 8.
  // Sorted = one embed call (the encoder sorts, so short texts share batches); input order =
  // one embed call per consecutive 8 texts (every batch pads to 128 tokens).
  const sorter = await UseLiteEncoder.load({ cacheSize: 0, maxBatch: 8 });
  const mixed = Array.from({ length: 32 }, (_, i) => makeText(probe, i % 2 === 0 ? 16 : 128, 9000 + i));
  await sorter.embed(mixed.slice(0, 8));
  const sortCost = async (fn: () => Promise<unknown>) => {
    const c = process.cpuUsage();
    const t = performance.now();
    await fn();
    return { wall: performance.now() - t, cpu: cpuMs(c) };
  };
  const inOrder = await sortCost(async () => {
    for (let i = 0; i < mixed.length; i += 8) await sorter.embed(mixed.slice(i, i + 8));
  });
  const sorted = await sortCost(() => sorter.embed(mixed));
  sorter.dispose();

  // Cached repeat: the model must not run.
  const cached = await UseLiteEncoder.load({ cacheSize: 100 });
  const repeatText = latencyTexts.medium![0]!;
  await cached.embed([repeatText]);
  const repeat: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t = performance.now();
    await cached.embed([repeatText]);
    repeat.push(performance.now() - t);
  }
  const cacheHits = cached.cacheStats.hits;
  cached.dispose();

  const reference = await runReference(latencyTexts, throughputTexts);
  const measured = await measureOurs(probe, latencyTexts, throughputTexts);
  const ours: Measured = { ...measured, loadMs, rssGrowthMb: (process.memoryUsage().rss - rss0) / 2 ** 20 };
  probe.dispose();

  const f = (x: number, d = 1) => x.toFixed(d);
  const ratio = (ref: number, our: number) => `${(ref / our).toFixed(2)}x`;
  const rows: (string | number)[][] = [];
  for (const size of Object.keys(SIZES) as Size[]) {
    const o = ours.latency[size]!;
    const r = reference.latency[size]!;
    const target = size === "medium" ? "<= 25" : "";
    const met = size === "medium" ? (percentile(o.wall, 50) <= 25 ? "yes" : "no") : "";
    rows.push([
      `batch 1, ${size} (${meanTokens(latencyTexts[size]!)} tokens; model reads <= 128): p50 / p99 wall ms`,
      `${f(percentile(o.wall, 50))} / ${f(percentile(o.wall, 99))}`,
      `${f(percentile(r.wall, 50))} / ${f(percentile(r.wall, 99))}`,
      ratio(percentile(r.wall, 50), percentile(o.wall, 50)),
      `${target} ${met}`.trim(),
    ]);
    rows.push([
      `batch 1, ${size}: p50 CPU ms (this process only)`,
      f(percentile(o.cpu, 50)),
      f(percentile(r.cpu, 50)),
      ratio(percentile(r.cpu, 50), percentile(o.cpu, 50)),
      "",
    ]);
  }
  for (const size of Object.keys(SIZES) as Size[]) {
    const o = ours.throughput[size]!;
    const r = reference.throughput[size]!;
    const oRate = (o.texts / o.wallMs) * 1000;
    const rRate = (r.texts / r.wallMs) * 1000;
    rows.push([
      `batch ${BATCH}, ${size}: texts/s wall (CPU ms per text)`,
      `${f(oRate)} (${f(o.cpuMs / o.texts)})`,
      `${f(rRate)} (${f(r.cpuMs / r.texts)})`,
      ratio(oRate, rRate),
      size === "medium" ? `>= 100 ${oRate >= 100 ? "yes" : "no"}` : "",
    ]);
  }
  rows.push([
    "cold start to first vector, ms (tfjs runtime init + weights + first embed; ours in the bench process, reference in a fresh one)",
    `${f(tfInitMs + ours.loadMs, 0)} (${f(tfInitMs, 0)} + ${f(ours.loadMs, 0)})`,
    f(reference.loadMs, 0),
    ratio(reference.loadMs, tfInitMs + ours.loadMs),
    "",
  ]);
  rows.push([
    "RSS growth from before loading to the end of the run, MiB",
    f(ours.rssGrowthMb, 0),
    f(reference.rssGrowthMb, 0),
    "",
    "",
  ]);
  rows.push([
    `cached repeat (medium text), p50 / p99 ms (${cacheHits} hits)`,
    `${percentile(repeat, 50).toFixed(4)} / ${percentile(repeat, 99).toFixed(4)}`,
    "no cache",
    "",
    `< 0.05 ${percentile(repeat, 50) < 0.05 ? "yes" : "no"}`,
  ]);

  const tokRows = (Object.keys(SIZES) as Size[]).map((size) => [
    size,
    f(tokenizerMs[size]!, 3),
    f(percentile(ours.latency[size]!.cpu, 50), 1),
    `${((tokenizerMs[size]! / percentile(ours.latency[size]!.cpu, 50)) * 100).toFixed(1)}%`,
  ]);

  const markdown = [
    `Ours: \`UseLiteEncoder\` on \`@tensorflow/tfjs\` 4.22, backend **${runtime.backend}**. Baseline: the reference ` +
      "`@energetic-ai/embeddings` 0.2.0 (bundled tfjs-core 4.5, same weights) in a child process, on the same texts, " +
      "measured just before ours in the same run. Ratio > 1 means ours is faster. Wall times depend on how busy the " +
      "machine is (other processes share the cores); CPU ms count only the measuring process and are steadier. " +
      "Cache disabled except in the cached-repeat row.",
    "",
    mdTable(["measure", "ours", "reference", "ratio", "target (2 cores)"], rows),
    "",
    "Cost vs input length (ours, batch 1, p50 of 8 texts). USE-lite's graph itself ignores tokens past 128, so the input cap is 128 tokens. " +
      "The 1-token row is the fixed cost of one graph execution (about 250 kernel dispatches through the tfjs graph executor):",
    "",
    mdTable(["tokens", "wall ms", "CPU ms"], lengthRows),
    "",
    "Sorting by length within a call (32 texts alternating about 16 and 128 tokens, batches of 8):",
    "",
    mdTable(
      ["batches", "wall ms", "CPU ms"],
      [
        ["input order (each batch pads to 128)", f(inOrder.wall, 0), f(inOrder.cpu, 0)],
        ["sorted by length (default)", f(sorted.wall, 0), f(sorted.cpu, 0)],
      ],
    ),
    "",
    "Where the time goes (batch 1): the tokenizer alone vs the whole embed call:",
    "",
    mdTable(["size", "tokenizer ms/text", "embed CPU ms/text", "tokenizer share"], tokRows),
  ].join("\n");
  return { title: "Query encoder (USE-lite)", markdown };
}
