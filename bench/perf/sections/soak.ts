/**
 * `npm run bench -- soak`: a router wired to a FileStore (snapshot every 1,000 events, the default) routes a call and
 * takes its outcome 50,000 times, in a child process of its own (`bench/perf/soak-child.ts`, with `--expose-gc`). Per
 * 10,000 events: the heap after a full GC, the bytes written (journal appends, snapshots, compactions) and the store's
 * size on disk. Flat is the target: the store's duplicate check and the learner's remembered ids are windows of the
 * last `dedupeWindow` (10,000) ids, so neither memory nor a snapshot grows with the events seen.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mdTable, type BenchSection } from "../section.js";

const CHILD = join(import.meta.dirname, "..", "soak-child.ts");
const EVENTS = 50_000;
const EVERY = 10_000;

interface Point {
  events: number;
  heapUsed: number;
  written: number;
  onDisk: number;
}

function soak(dir: string): Promise<Point[]> {
  return new Promise((resolve, reject) => {
    const args = ["--expose-gc", "--import", "tsx", CHILD, dir, String(EVENTS), String(EVERY)];
    const p = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.on("exit", (code) =>
      code === 0
        ? resolve(
            out
              .trim()
              .split("\n")
              .map((l) => JSON.parse(l) as Point),
          )
        : reject(new Error(`soak child exited ${code}`)),
    );
  });
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(2);

export async function run(): Promise<BenchSection> {
  const dir = await mkdtemp(join(tmpdir(), "irt-soak-"));
  try {
    const points = await soak(dir);
    const rows = points.slice(1).map((p, k) => {
      const before = points[k]!;
      return [
        `${before.events.toLocaleString("en-US")}-${p.events.toLocaleString("en-US")}`,
        mb(p.heapUsed),
        `${mb(p.heapUsed - before.heapUsed)}`,
        mb(p.written - before.written),
        mb(p.onDisk),
      ];
    });
    const table = mdTable(
      [
        "events",
        "heap after a full GC at the end (MB)",
        "heap change (MB)",
        "bytes written in these events (MB)",
        "store on disk at the end (MB)",
      ],
      rows,
    );
    return {
      title: "Soak: heap and writes over 50,000 feedback events",
      markdown:
        `A router (ToyScorer, three fake chat models) wired to a FileStore in a temporary folder routes a call and ` +
        `takes its outcome, ${EVENTS.toLocaleString("en-US")} times, one at a time, in a child process ` +
        `(\`bench/perf/soak-child.ts\`). Heap: \`heapUsed\` after \`gc()\`, ${mb(points[0]!.heapUsed)} MB before the ` +
        `first event. Bytes written: \`wchar\` of /proc/self/io (every write, including snapshots and compactions).\n\n${table}\n`,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
