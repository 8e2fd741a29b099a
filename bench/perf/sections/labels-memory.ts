/**
 * `npm run bench -- labels-memory`: peak memory of loading a your-own-data folder whose labels.csv is about 200 MB
 * (generated here in a temporary folder), beside a child process that only imports the loader (the baseline, same run).
 * Each figure comes from a child process of its own (`bench/perf/labels-child.ts`): its peak resident set size
 * (`process.resourceUsage().maxRSS`), so nothing of one load is left in the next.
 */
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { mdTable, type BenchSection } from "../section.js";

const CHILD = join(import.meta.dirname, "..", "labels-child.ts");
const MODELS = 40;
const TARGET_BYTES = 200 * 2 ** 20;

interface ChildFigures {
  maxRssBytes: number;
  heapUsed: number;
  ms: number;
  labels: number;
}

function child(folder: string): Promise<ChildFigures> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--import", "tsx", CHILD, folder], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out.trim()) as ChildFigures) : reject(new Error(`labels child exited ${code}`)),
    );
  });
}

/** Writes items.csv and a labels.csv of about `TARGET_BYTES` (every item answered by every model, with a cost). */
async function generate(dir: string): Promise<{ items: number; labelBytes: number }> {
  const row = (i: number, m: number) =>
    `item-${String(i).padStart(7, "0")},provider/model-${String(m).padStart(2, "0")},${(i * 7 + m) % 3 === 0 ? 0 : 1},0.000${(i + m) % 1000}\n`;
  const items = Math.ceil(TARGET_BYTES / (row(0, 0).length * MODELS));
  const out = createWriteStream(join(dir, "labels.csv"));
  out.write("item_id,model,correct,cost_usd\n");
  for (let i = 0; i < items; i++) {
    let chunk = "";
    for (let m = 0; m < MODELS; m++) chunk += row(i, m);
    if (!out.write(chunk)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  const itemRows = Array.from({ length: items }, (_, i) => `item-${String(i).padStart(7, "0")},question number ${i}`);
  await writeFile(join(dir, "items.csv"), `item_id,text\n${itemRows.join("\n")}\n`);
  return { items, labelBytes: (await stat(join(dir, "labels.csv"))).size };
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

export async function run(): Promise<BenchSection> {
  const dir = await mkdtemp(join(tmpdir(), "irt-labels-memory-"));
  try {
    const { items, labelBytes } = await generate(dir);
    const base = await child("-");
    const load = await child(dir);
    const table = mdTable(
      ["figure", "measured"],
      [
        ["labels.csv size (MB)", mb(labelBytes)],
        ["labels (rows) / items / models", `${load.labels} / ${items} / ${MODELS}`],
        ["peak RSS of a process that only imports the loader (MB, baseline)", mb(base.maxRssBytes)],
        ["peak RSS of a process that loads the folder (MB)", mb(load.maxRssBytes)],
        [
          "added by the load (MB), and as a multiple of the labels file",
          `${mb(load.maxRssBytes - base.maxRssBytes)} (${((load.maxRssBytes - base.maxRssBytes) / labelBytes).toFixed(2)}x)`,
        ],
        ["heap used after the load (MB)", mb(load.heapUsed)],
        ["load time (s)", (load.ms / 1000).toFixed(1)],
      ],
    );
    return {
      title: "Loading a large labels file",
      markdown:
        `A your-own-data folder generated in a temporary folder: ${items} items, each answered by ${MODELS} models ` +
        `(item_id, model, correct, cost_usd). Each figure from a child process of its own (\`bench/perf/labels-child.ts\`), ` +
        `its peak resident set size. The labels are what the dataset keeps (12 bytes per label with costs, in typed ` +
        `arrays); the file is read as a stream, so its size does not bound the memory.\n\n${table}\n`,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
