/**
 * Resuming from a prior's sync checkpoint (`RunPrior.sync`): a replica restarted from `toPrior()` reads the log on from
 * its cursor and counts every outcome exactly once (as a router that read the whole log would); the outcomes pending
 * at the checkpoint go out once, whoever resumes from it; a cursor of another or a wiped log reads from the start,
 * still counting once; a prior saved before its router's first sync; an older shared prior without a checkpoint.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import {
  RunRouter,
  type RunObservation,
  type RunOutcomeLog,
  type RunPrior,
  type SharedRunOutcome,
} from "../../src/runs/index.js";
import { MemoryRunOutcomeLog } from "../../adapters/stores/run-outcome-memory.js";
import { FileRunOutcomeLog, RUN_OUTCOMES_FILE } from "../../adapters/stores/run-outcome-file.js";
import { loadRunPrior, saveRunPrior } from "../../adapters/artifact/run-prior-file.js";
import { tempDirEachTest } from "../stores/fixtures/temp-dir.js";
import { MODELS } from "./trained-router.js";
import { gatedLog } from "./gated-log.js";

let dir: string;
tempDirEachTest("irt-run-ckpt-", (d) => (dir = d));

/** `n` tasks `<who><t>` from `from` on, each run by the three models. */
function feed(router: RunRouter, who: string, from: number, n: number): void {
  for (let t = from; t < from + n; t++) {
    const task = { id: `${who}${t}`, text: `${who} task ${t} about ${["builds", "files", "tests"][t % 3]}` };
    router.feedback({ ...task, ...(t % 4 === 0 && { hint: "ops" }) }, "strong", t % 7 !== 0);
    router.feedback(task, "middle", t % 2 === 0);
    router.feedback(task, "weak", t % 5 === 0, 0.5);
  }
}

/** What a router keeps as outcomes, one text each (not part of its API: read to compare what was counted). */
const kept = (router: RunRouter) =>
  (router as unknown as { observations: RunObservation[] }).observations
    .map((o) => `${o.task}|${o.model}|${o.outcome}|${o.weight}|${o.hint ?? ""}`)
    .sort();

/** The prior as a file holds it (saved and loaded again). */
const roundTrip = (prior: RunPrior): RunPrior => JSON.parse(JSON.stringify(prior)) as RunPrior;

/** Every record of `log`, from its start. */
async function recordsOf(log: RunOutcomeLog): Promise<SharedRunOutcome[]> {
  const all: SharedRunOutcome[] = [];
  for (let cursor: string | undefined; ;) {
    const page = await log.read(cursor);
    if (page.outcomes.length === 0) return all;
    all.push(...(page.outcomes as SharedRunOutcome[]));
    cursor = page.cursor;
  }
}

const distinct = async (log: RunOutcomeLog) => new Set((await recordsOf(log)).map((o) => o.id)).size;

const logs: [string, () => Promise<RunOutcomeLog>][] = [
  ["MemoryRunOutcomeLog", async () => new MemoryRunOutcomeLog()],
  ["FileRunOutcomeLog", () => FileRunOutcomeLog.open(join(dir, "log"))],
];

describe.each(logs)("a replica restarted from its checkpoint (%s)", (_, open) => {
  it("reads on from its cursor and counts every outcome once, as a router that read the whole log", async () => {
    const log = await open();
    const a = new RunRouter({ models: MODELS });
    const b = new RunRouter({ models: MODELS });
    feed(a, "a", 0, 10);
    feed(b, "b", 0, 10);
    await a.sync(log);
    await b.sync(log);
    await a.sync(log); // a has b's first 30
    feed(a, "a", 10, 5); // 15 of a's not in the log yet
    const prior = roundTrip(a.toPrior());
    expect(prior.shared).toBe(true);
    expect(prior.sync!.pending).toHaveLength(15);
    expect(prior.sync!.cursor).toBeDefined();
    expect(Object.keys(prior.sync!.writers)).toHaveLength(2); // a's own and b's
    const inPrior = a.feedbackCount; // 75: a's 45 and b's 30
    feed(b, "b", 10, 10); // b goes on: 30 more after the checkpoint
    await b.sync(log);

    const resumed = new RunRouter({ models: MODELS, prior });
    // a's 15 pending go out once (read back as repeats); b's 30 new are all it counts
    expect(await resumed.sync(log)).toMatchObject({ pushed: 15, pulled: 30, duplicates: 15, skipped: 0 });
    const direct = new RunRouter({ models: MODELS });
    feed(direct, "b", 10, 10);
    expect(kept(resumed)).toEqual(kept(direct));
    // with what the prior holds, every outcome of the log once: what a router reading the whole log counts
    const whole = new RunRouter({ models: MODELS });
    expect((await whole.sync(log)).pulled).toBe(await distinct(log));
    expect(inPrior + resumed.feedbackCount).toBe(whole.feedbackCount);
    expect(whole.feedbackCount).toBe(105);
    // it decides as the prior fed b's new outcomes directly would
    const fed = new RunRouter({ models: MODELS, prior });
    feed(fed, "b", 10, 10);
    const task = { id: "new", text: "a new task about builds and files" };
    const [dr, df] = [resumed.route(task), fed.route(task)];
    for (const c of df.candidates) expect(dr.candidates.find((x) => x.modelId === c.modelId)!.p).toBeCloseTo(c.p, 9);
    // the others learn a's pending outcomes once; the resumed router's own go out under its new writer id
    expect(await b.sync(log)).toMatchObject({ pulled: 15, duplicates: 0 });
    feed(resumed, "r", 0, 2);
    expect(await resumed.sync(log)).toMatchObject({ pushed: 6, pulled: 0 });
    expect(await b.sync(log)).toMatchObject({ pulled: 6 });
    const writers = new Set((await recordsOf(log)).map((o) => o.id.split(".")[0]));
    expect(writers.size).toBe(3);
  });

  it("outcomes pending at the checkpoint count once though two routers resume from it and the saver goes on", async () => {
    const log = await open();
    const a = new RunRouter({ models: MODELS });
    await a.sync(log);
    feed(a, "a", 0, 5);
    const prior = roundTrip(a.toPrior());
    const [r1, r2] = [0, 1].map(() => new RunRouter({ models: MODELS, prior }));
    expect(await r1!.sync(log)).toMatchObject({ pushed: 15, pulled: 0, duplicates: 15 });
    expect(await r2!.sync(log)).toMatchObject({ pushed: 15, pulled: 0, duplicates: 30 });
    expect(await a.sync(log)).toMatchObject({ pushed: 15, pulled: 0 }); // the same ids: its own, read past
    const records = await recordsOf(log);
    expect(records).toHaveLength(45);
    expect(await distinct(log)).toBe(15);
    const reader = new RunRouter({ models: MODELS });
    expect(await reader.sync(log)).toMatchObject({ pulled: 15, duplicates: 30 });
    // each goes on under a writer id of its own
    for (const [k, r] of [a, r1!, r2!].entries()) feed(r, `w${k}`, 0, 1);
    for (const r of [a, r1!, r2!]) await r.sync(log);
    expect(await reader.sync(log)).toMatchObject({ pulled: 9, duplicates: 0 });
    expect((await a.sync(log)).pulled).toBe(6);
  });

  it("a checkpoint taken while a sync waits on the log holds the batch in flight, counted once", async () => {
    const inner = await open();
    const { log: slow, release } = gatedLog(inner);
    const a = new RunRouter({ models: MODELS });
    feed(a, "a", 0, 4);
    const first = a.sync(slow);
    await new Promise((r) => setTimeout(r, 10));
    const prior = roundTrip(a.toPrior()); // the append has the batch, its reply not yet back
    expect(prior.sync!.pending).toHaveLength(12);
    release();
    await first;
    const resumed = new RunRouter({ models: MODELS, prior });
    // no page read before the checkpoint: from the start, a's 12 and its own 12 again are repeats
    expect(await resumed.sync(inner)).toMatchObject({ pushed: 12, pulled: 0, duplicates: 24 });
    expect(await distinct(inner)).toBe(12);
  });
});

describe("a checkpoint whose cursor another log made, or a log wiped since", () => {
  /** A router that synced `log` (with b's 30 outcomes in it) and has 15 of its own pending; its prior. */
  async function checkpointed(log: RunOutcomeLog) {
    const b = new RunRouter({ models: MODELS });
    feed(b, "b", 0, 10);
    await b.sync(log);
    const a = new RunRouter({ models: MODELS });
    await a.sync(log);
    feed(a, "a", 0, 5);
    return { a, b, prior: roundTrip(a.toPrior()) };
  }

  it("a copy of the log under another log id: read from its start, only the new outcomes counted", async () => {
    const first = new MemoryRunOutcomeLog();
    const { b, prior } = await checkpointed(first);
    const copy = await FileRunOutcomeLog.open(join(dir, "copy")); // another kind of log: the cursor is foreign
    await copy.append(await recordsOf(first));
    feed(b, "b", 10, 2);
    await b.sync(copy);
    const resumed = new RunRouter({ models: MODELS, prior });
    expect(await resumed.sync(copy)).toMatchObject({ pushed: 15, pulled: 6, duplicates: 45 });
    expect(resumed.feedbackCount).toBe(6);
  });

  it("a file log wiped and made again: read from its start, only what the prior lacks counted", async () => {
    const log = await FileRunOutcomeLog.open(join(dir, "log"));
    const { b, prior } = await checkpointed(log);
    await rm(join(dir, "log", RUN_OUTCOMES_FILE));
    feed(b, "b", 10, 3);
    await b.sync(log); // the new file: b's 9 new ones (its earlier 30 went with the old file)
    const resumed = new RunRouter({ models: MODELS, prior });
    expect(await resumed.sync(log)).toMatchObject({ pushed: 15, pulled: 9, duplicates: 15 });
    expect(resumed.feedbackCount).toBe(9);
  });

  it("a cursor this kind of log cannot read (another log's format): read from its start", async () => {
    const log = new MemoryRunOutcomeLog();
    const { prior } = await checkpointed(log);
    const odd = { ...prior, sync: { ...prior.sync!, cursor: "page-7" } };
    await expect(log.read("page-7")).rejects.toBeInstanceOf(ValidationError);
    const resumed = new RunRouter({ models: MODELS, prior: odd });
    expect(await resumed.sync(log)).toMatchObject({ pushed: 15, pulled: 0, duplicates: 45 });
    expect(resumed.toPrior().sync!.cursor).toMatch(/^[0-9a-f-]{36}:45$/);
  });
});

describe("a prior saved before its router's first sync", () => {
  it("numbers the router's outcomes it holds: the router's first sync appends them so, and a resumer skips them", async () => {
    const log = new MemoryRunOutcomeLog();
    const a = new RunRouter({ models: MODELS });
    feed(a, "a", 0, 10);
    const prior = roundTrip(a.toPrior());
    expect(prior.shared).toBeUndefined(); // no log holds its outcomes yet
    const [writer] = Object.keys(prior.sync!.writers);
    expect(prior.sync).toEqual({ writers: { [writer!]: { next: 30 } } }); // no outcome, no cursor
    feed(a, "a", 10, 5);
    expect(await a.sync(log)).toMatchObject({ pushed: 45 });
    const ids = (await recordsOf(log)).map((o) => o.id);
    expect(ids).toEqual(Array.from({ length: 45 }, (_, n) => `${writer}.${n}`));
    // was: pulled 45, the prior's 30 counted twice
    const b = new RunRouter({ models: MODELS, prior });
    expect(await b.sync(log)).toMatchObject({ pulled: 15, duplicates: 30 });
    const direct = new RunRouter({ models: MODELS });
    feed(direct, "a", 10, 5);
    expect(kept(b)).toEqual(kept(direct)); // the 15 after the save, and only they
  });

  it("a prior's outcomes folded away before that sync are never appended, and their numbers leave no harm", async () => {
    const log = new MemoryRunOutcomeLog();
    const a = new RunRouter({ models: MODELS, maxOutcomes: 100 });
    feed(a, "a", 0, 30); // 90 outcomes
    const prior = roundTrip(a.toPrior());
    feed(a, "a", 30, 5); // 105: the oldest tasks are folded, numbered but never appended
    const { pushed } = await a.sync(log);
    expect(pushed).toBeLessThan(105);
    const numbers = (await recordsOf(log)).map((o) => Number(o.id.split(".")[1]));
    const fromPrior = numbers.filter((n) => n < 90).length;
    expect(fromPrior).toBeGreaterThan(0);
    expect(fromPrior).toBeLessThan(90);
    const b = new RunRouter({ models: MODELS, prior });
    expect(await b.sync(log)).toMatchObject({ pulled: pushed - fromPrior, duplicates: fromPrior });
    const c = new RunRouter({ models: MODELS });
    expect((await c.sync(log)).pulled).toBe(pushed);
  });
});

describe("resuming, further cases", () => {
  it("a router resumed and saved again before it synced carries the pending outcomes on, with its own", async () => {
    const log = new MemoryRunOutcomeLog();
    const a = new RunRouter({ models: MODELS });
    await a.sync(log);
    feed(a, "a", 0, 5);
    const first = new RunRouter({ models: MODELS, prior: roundTrip(a.toPrior()) });
    feed(first, "r", 0, 3);
    const second = roundTrip(first.toPrior());
    expect(second.shared).toBe(true);
    expect(second.sync!.pending).toHaveLength(24);
    const resumed = new RunRouter({ models: MODELS, prior: second });
    expect(await resumed.sync(log)).toMatchObject({ pushed: 24, pulled: 0, duplicates: 24 });
    // the same 24 again, read back twice: a's 15 as repeats, its own 9 read past
    expect(await first.sync(log)).toMatchObject({ pushed: 24, pulled: 0, duplicates: 30 });
    const reader = new RunRouter({ models: MODELS });
    expect(await reader.sync(log)).toMatchObject({ pulled: 24, duplicates: 24 });
  });

  it("keeps to the resumed router's bound on pending outcomes (the oldest dropped, and said)", async () => {
    const log = new MemoryRunOutcomeLog();
    const a = new RunRouter({ models: MODELS, maxOutcomes: 200 }); // 2,000 may wait
    await a.sync(log);
    for (let t = 0; t < 1500; t++) a.feedback({ id: `t${t}`, text: `task ${t} of many` }, "strong", t % 3 > 0);
    const prior = roundTrip(a.toPrior());
    expect(prior.sync!.pending).toHaveLength(1500);
    const resumed = new RunRouter({ models: MODELS, maxOutcomes: 100, prior }); // 1,000 may wait
    expect(await resumed.sync(log)).toMatchObject({ pushed: 1000, dropped: 500 });
    expect((await recordsOf(log))[0]!.task).toBe("t500");
  });

  it("an older shared prior, without a checkpoint, is still refused; its router's prior stays so", async () => {
    const log = new MemoryRunOutcomeLog();
    const a = new RunRouter({ models: MODELS });
    await a.sync(log);
    feed(a, "a", 0, 4);
    const { sync: _, ...older } = roundTrip(a.toPrior());
    const restarted = new RunRouter({ models: MODELS, prior: older });
    const error = await restarted.sync(log).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe("options.prior.shared");
    feed(restarted, "r", 0, 1);
    const again = restarted.toPrior();
    expect(again.shared).toBe(true);
    expect(again.sync).toBeUndefined();
  });

  it("checks a checkpoint as it loads, naming the field; an older prior loads unchanged; a file keeps it", async () => {
    const a = new RunRouter({ models: MODELS });
    await a.sync(new MemoryRunOutcomeLog());
    feed(a, "a", 0, 2);
    const prior = roundTrip(a.toPrior());
    const bad = (sync: unknown, path: RegExp) => {
      let error: unknown;
      try {
        new RunRouter({ models: MODELS, prior: { ...prior, sync } as RunPrior });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).path).toMatch(path);
    };
    const pending = prior.sync!.pending!;
    bad({ ...prior.sync, writers: { "not-a-writer": { next: 1 } } }, /^options\.prior\.sync\.writers/);
    bad({ ...prior.sync, writers: { [Object.keys(prior.sync!.writers)[0]!]: { next: -1 } } }, /sync\.writers\..*next/);
    bad({ ...prior.sync, pending: [{ ...pending[0], weight: 0 }] }, /^options\.prior\.sync\.pending\.0\.weight$/);
    bad({ ...prior.sync, cursor: "" }, /^options\.prior\.sync\.cursor$/);
    bad({ ...prior.sync, extra: 1 }, /^options\.prior\.sync/);
    const { sync: _, shared: __, ...older } = prior;
    const path = await saveRunPrior(join(dir, "older"), older);
    expect(await loadRunPrior(path)).toEqual(older);
    expect(await loadRunPrior(await saveRunPrior(join(dir, "now"), prior))).toEqual(prior);
  });
});

describe("checkpoints at the edges", () => {
  it("a router whose first sync failed before it had outcomes saves a prior that can still sync", async () => {
    const down: RunOutcomeLog = {
      append: async () => {
        throw new Error("log down");
      },
      read: async () => {
        throw new Error("log down");
      },
      close: async () => undefined,
    };
    const a = new RunRouter({ models: MODELS });
    await a.sync(down).catch(() => undefined);
    const prior = a.toPrior();
    expect(prior.shared).toBe(true);
    expect(prior.sync).toEqual({ writers: {} }); // was absent: the prior was refused as an older one
    const log = new MemoryRunOutcomeLog();
    const other = new RunRouter({ models: MODELS });
    feed(other, "o", 0, 3);
    await other.sync(log);
    const b = new RunRouter({ models: MODELS, prior });
    await expect(b.sync(log)).resolves.toMatchObject({ pulled: 9 });
    expect(b.toPrior().sync).toBeDefined();
  });

  it("a cursor too long for the prior is left out, and the resumed router reads from the start counting once", async () => {
    const inner = new MemoryRunOutcomeLog();
    const pad = "x".repeat(1200);
    const long: RunOutcomeLog = {
      append: (outcomes) => inner.append(outcomes),
      read: async (cursor?: string) => {
        const page = await inner.read(cursor?.startsWith(pad) ? cursor.slice(pad.length) : cursor);
        return { ...page, cursor: `${pad}${page.cursor}` };
      },
      close: () => inner.close(),
    };
    const other = new RunRouter({ models: MODELS });
    feed(other, "o", 0, 4);
    await other.sync(long);
    const a = new RunRouter({ models: MODELS });
    await a.sync(long);
    const prior = a.toPrior();
    expect(prior.sync?.cursor).toBeUndefined();
    const b = new RunRouter({ models: MODELS, prior }); // threw "options.prior.sync.cursor: Too big"
    await expect(b.sync(long)).resolves.toMatchObject({ pulled: 0, duplicates: 12 });
  });
});
