/**
 * Ability store costs: FileStore append latency (fsync per acknowledged call) and throughput,
 * snapshot + compaction time, and reopen + load time, each beside MemoryStore (no I/O) measured
 * in the same process as the baseline.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileStore } from "../../../adapters/stores/file.js";
import { MemoryStore } from "../../../adapters/stores/memory.js";
import type { FeedbackEvent } from "../../../src/learning/events.js";
import type { AbilityStore } from "../../../src/learning/store.js";
import { redisReplicasSection } from "../redis-replicas.js";
import { mdTable, percentile, type BenchSection } from "../section.js";

const D = 64;
let counter = 0;
function event(): FeedbackEvent {
  const i = counter++;
  return {
    id: `bench-${i}`,
    model: `model-${i % 20}`,
    alpha: Array.from({ length: D }, (_, j) => Math.sin(i + j)),
    beta: Math.cos(i),
    y: i % 2,
    at: 1_764_700_000_000 + i,
  };
}

/** A learner-sized state: 30 models, d = 64, mean + full covariance. */
function learnerState(): unknown {
  const models: Record<string, { mean: number[]; cov: number[] }> = {};
  for (let m = 0; m < 30; m++) {
    models[`model-${m}`] = {
      mean: Array.from({ length: D }, (_, j) => Math.sin(m * j)),
      cov: Array.from({ length: D * D }, (_, j) => Math.cos(m + j) / 100),
    };
  }
  return { models };
}

async function appendTimes(store: AbilityStore, calls: number, batch: number): Promise<number[]> {
  const out: number[] = [];
  for (let c = 0; c < calls; c++) {
    const events = Array.from({ length: batch }, event);
    const t0 = performance.now();
    await store.append(events);
    out.push(performance.now() - t0);
  }
  return out;
}

const ms = (v: number) => v.toFixed(v < 1 ? 3 : 1);

export async function run(): Promise<BenchSection> {
  const dir = await mkdtemp(join(tmpdir(), "irt-bench-store-"));
  try {
    const file = await FileStore.open(dir, { snapshotEvery: 1_000_000 });
    const memory = new MemoryStore({ snapshotEvery: 1_000_000 });
    await appendTimes(file, 5, 1); // warm-up
    await appendTimes(memory, 5, 1);

    const single = { file: await appendTimes(file, 200, 1), memory: await appendTimes(memory, 200, 1) };
    const batched = { file: await appendTimes(file, 50, 32), memory: await appendTimes(memory, 50, 32) };
    // Fill to 10,000 events for the snapshot/reopen figures.
    const fill = async (s: AbilityStore) => {
      let seq = 0;
      while (seq < 10_000) seq = (await s.append(Array.from({ length: 500 }, event))).seq;
    };
    counter = 1_000_000;
    await fill(file);
    counter = 1_000_000;
    await fill(memory);

    const state = learnerState();
    const stateBytes = JSON.stringify(state).length;
    const fileSeq = (await file.load()).seq;
    let t0 = performance.now();
    await file.snapshot(fileSeq - 1000, state);
    const snapFile = performance.now() - t0;
    t0 = performance.now();
    await memory.snapshot((await memory.load()).seq - 1000, state);
    const snapMemory = performance.now() - t0;
    await file.close();

    t0 = performance.now();
    const reopened = await FileStore.open(dir);
    const loaded = await reopened.load();
    const reopenFile = performance.now() - t0;
    await reopened.close();
    t0 = performance.now();
    await memory.load();
    const loadMemory = performance.now() - t0;

    const rate = (times: number[], batch: number) =>
      Math.round((times.length * batch) / (times.reduce((a, b) => a + b, 0) / 1000));
    const table = mdTable(
      ["operation", "FileStore", "MemoryStore (baseline, no I/O)"],
      [
        [
          "append 1 event (d = 64): p50 / p99 ms",
          `${ms(percentile(single.file, 50))} / ${ms(percentile(single.file, 99))}`,
          `${ms(percentile(single.memory, 50))} / ${ms(percentile(single.memory, 99))}`,
        ],
        ["append 32 events per call: p50 ms", ms(percentile(batched.file, 50)), ms(percentile(batched.memory, 50))],
        ["append throughput, 1 event per call (events/s)", rate(single.file, 1), rate(single.memory, 1)],
        ["append throughput, 32 per call (events/s)", rate(batched.file, 32), rate(batched.memory, 32)],
        [
          `snapshot (${(stateBytes / 1e6).toFixed(1)} MB state, 30 models × d = 64 full covariance) + compaction of a ${fileSeq}-event journal, ms`,
          ms(snapFile),
          ms(snapMemory),
        ],
        [
          `reopen + load (snapshot + ${loaded.events.length} journal events), ms`,
          ms(reopenFile),
          `${ms(loadMemory)} (load only)`,
        ],
      ],
    );
    const redis = await redisReplicasSection();
    return {
      title: "Ability store (FileStore, RedisStore vs MemoryStore)",
      markdown:
        `${table}\n\n` +
        `Every FileStore append is acknowledged only after fsync, so its latency is the disk's fsync latency; ` +
        `batching amortises it. Temporary directory under \`${tmpdir()}\`; the shared machine's disk load varies, so treat ` +
        `FileStore figures as indicative.\n\n${redis}`,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
