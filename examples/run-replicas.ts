/**
 * Run-level replicas: two run-level routers (standing for two processes of one service) learn from each other's run
 * outcomes through one run-outcome log in a directory. Replica A escalates a few tasks (a cheap model first, a
 * stronger one when the run fails); replica B, which ran none of them, syncs and then routes a similar task knowing
 * what A learned.
 *
 *   npx tsx examples/run-replicas.ts
 *
 * Offline: the "agent runs" are functions that pass or fail by model. Across hosts use `RedisRunOutcomeLog` instead.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileRunOutcomeLog } from "../adapters/index.js";
import { RunRouter } from "../src/runs/index.js";

const models = {
  "big-model": { price: { inputPer1M: 5, outputPer1M: 25 } },
  "small-model": { price: { inputPer1M: 0.5, outputPer1M: 3 } },
};
/** The agent run: on these tasks only the big model gets it right. */
const runAgent = async (modelId: string) => ({ passed: modelId === "big-model" });

const dir = await mkdtemp(join(tmpdir(), "run-replicas-"));
try {
  const [logA, logB] = [await FileRunOutcomeLog.open(dir), await FileRunOutcomeLog.open(dir)];
  const a = new RunRouter({ models, costWeight: 0.25, tracing: false });
  const b = new RunRouter({ models, costWeight: 0.25, tracing: false });
  await a.sync(logA); // at start: learn what the log holds (nothing yet)
  await b.sync(logB);

  const task = (k: number) => ({ id: `migrate-${k}`, text: `Migrate the database schema of service ${k} to v2.` });
  const before = b.route(task(99));
  console.log(`B before: ${before.chosen} (p big ${p(before, "big-model")}, p small ${p(before, "small-model")})`);

  for (let k = 0; k < 6; k++) {
    const result = await a.escalate(task(k), runAgent, (out) => out.passed, { maxAttempts: 2 });
    console.log(
      `A ${task(k).id}: ${result.attempts.map((x) => `${x.modelId} ${x.passed ? "passed" : "failed"}`).join(", ")}`,
    );
  }
  const pushed = await a.sync(logA);
  const pulled = await b.sync(logB);
  console.log(`A shared ${pushed.pushed} run outcome(s); B learned ${pulled.pulled}`);

  const after = b.route(task(99));
  console.log(`B after: ${after.chosen} (p big ${p(after, "big-model")}, p small ${p(after, "small-model")})`);
  await Promise.all([logA.close(), logB.close()]);
} finally {
  await rm(dir, { recursive: true, force: true });
}

function p(d: ReturnType<RunRouter["route"]>, modelId: string): string {
  return d.candidates.find((c) => c.modelId === modelId)!.p.toFixed(2);
}
