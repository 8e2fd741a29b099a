/**
 * `npx tsx bench/dev/run-sync-restart.ts` (about 2 min)
 *
 * What a replica's restart costs with a run-outcome log of N outcomes (`RunRouter.sync`): from scratch (no prior: its
 * first sync reads and folds the whole log) against from the checkpoint of its saved prior (`toPrior()`, which it
 * reads on from). Four writers append N outcomes (distinct tasks, three models in turn); a replica syncs them all,
 * learns 20 outcomes of its own and saves its prior as JSON; the writers append 1,000 more; then, in the same process,
 * a fresh router syncs the log (from scratch) and a router started from the saved JSON (parsed and checked, as
 * `loadRunPrior` does) syncs it (from the checkpoint), 3 times each, interleaved. Both keep the default bound on
 * outcomes (`maxOutcomes` 10,000). Checked each time: the one from scratch counts every outcome of the log, the one
 * from the checkpoint only the 1,000 appended after it (and appends the replica's 20 pending outcomes). Reported per
 * log (`MemoryRunOutcomeLog`, `FileRunOutcomeLog` in a temporary directory): the median times, their ratio and the
 * prior's size.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileRunOutcomeLog } from "../../adapters/stores/run-outcome-file.js";
import { MemoryRunOutcomeLog } from "../../adapters/stores/run-outcome-memory.js";
import type { RunOutcomeLog, SharedRunOutcome } from "../../src/runs/run-outcome-log.js";
import { runPriorSchema, type RunPrior } from "../../src/runs/run-prior.js";
import { RunRouter } from "../../src/runs/run-router.js";
import { textVector } from "../../src/runs/text-prior.js";

const models = { big: { runCost: 2 }, mid: { runCost: 0.6 }, small: { runCost: 0.2 } };
const names = Object.keys(models);
const writers = Array.from({ length: 4 }, () => ({ id: randomUUID(), next: 0 }));
const AFTER = 1000;
const OWN = 20;
const ROUNDS = 3;

/** Outcomes k in [from, to) as the writers share them (writer k % 4, task k). */
function outcomes(from: number, to: number): SharedRunOutcome[] {
  const out: SharedRunOutcome[] = [];
  for (let k = from; k < to; k++) {
    const w = writers[k % writers.length]!;
    const vector = [...textVector(`task ${k} about files and ${k % 97} folders`)];
    out.push({
      id: `${w.id}.${w.next++}`,
      task: `t${k}`,
      vector,
      model: names[k % 3]!,
      outcome: k % 4 > 0 ? 1 : 0,
      weight: 1,
    });
  }
  return out;
}

async function append(log: RunOutcomeLog, from: number, to: number): Promise<void> {
  for (let k = from; k < to; k += 5000) await log.append(outcomes(k, Math.min(to, k + 5000)));
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const result = await fn();
  return [(performance.now() - start) / 1000, result];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Restart times (s) from scratch and from the checkpoint for a log of `n` outcomes, and the prior's size. */
async function measure(log: RunOutcomeLog, n: number) {
  for (const w of writers) w.next = 0;
  await append(log, 0, n);
  const replica = new RunRouter({ models, tracing: false });
  await replica.sync(log);
  for (let k = 0; k < OWN; k++) replica.feedback({ id: `own${k}`, text: `own task ${k}` }, "mid", k % 2 === 0);
  const saved = JSON.stringify(replica.toPrior());
  await append(log, n, n + AFTER);
  const scratch: number[] = [];
  const resumed: number[] = [];
  const loading: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const [s, fresh] = await timed(async () => {
      const r = new RunRouter({ models, tracing: false });
      await r.sync(log);
      return r;
    });
    const [c, from] = await timed(async () => {
      const [load, r] = await timed(async () => {
        const prior = runPriorSchema.parse(JSON.parse(saved));
        return new RunRouter({ models, tracing: false, prior });
      });
      return { router: r, load, result: await r.sync(log) };
    });
    // the replica's pending outcomes are in the log once the first router resumed from its checkpoint appended them
    const total = n + AFTER + (round > 0 ? OWN : 0);
    if (fresh.feedbackCount !== total) throw new Error(`from scratch: counted ${fresh.feedbackCount} of ${total}`);
    if (from.router.feedbackCount !== AFTER || from.result.pushed !== OWN) {
      throw new Error(`from the checkpoint: counted ${from.router.feedbackCount}, pushed ${from.result.pushed}`);
    }
    scratch.push(s);
    resumed.push(c);
    loading.push(from.load);
  }
  const checkpointKb = Buffer.byteLength(JSON.stringify((JSON.parse(saved) as RunPrior).sync)) / 1024;
  return {
    scratch: median(scratch),
    resumed: median(resumed),
    loading: median(loading),
    checkpointKb,
    priorKb: Buffer.byteLength(saved) / 1024,
  };
}

const dir = await mkdtemp(join(tmpdir(), "irt-run-restart-"));
try {
  await measure(new MemoryRunOutcomeLog(), 5000); // warm-up: the compiler's first rounds would count
  console.log(
    "| log | outcomes in the log | from scratch (s) | from the checkpoint (s) | of which loading the prior (s) | " +
      "ratio | checkpoint (KB) | prior (KB) |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  const logs: [string, () => Promise<RunOutcomeLog>][] = [
    ["MemoryRunOutcomeLog", async () => new MemoryRunOutcomeLog()],
    ["FileRunOutcomeLog", () => FileRunOutcomeLog.open(join(dir, "log"))],
  ];
  for (const n of [100_000, 300_000]) {
    for (const [name, open] of logs) {
      await rm(join(dir, "log"), { recursive: true, force: true });
      const m = await measure(await open(), n);
      const cells = [
        m.scratch.toFixed(2),
        m.resumed.toFixed(3),
        m.loading.toFixed(3),
        (m.resumed / m.scratch).toFixed(3),
      ];
      console.log(
        `| ${name} | ${n + AFTER} | ${cells.join(" | ")} | ${m.checkpointKb.toFixed(1)} | ${m.priorKb.toFixed(0)} |`,
      );
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
