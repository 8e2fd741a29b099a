/**
 * FileRunOutcomeLog: one directory shared by several handles and processes, torn and damaged lines, reopening, a
 * replaced file, the lock; and two run-level routers syncing through it.
 */
import { appendFile, readFile, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StoreError, StoreLockedError, ValidationError } from "../../src/errors.js";
import { RunRouter, type SharedRunOutcome } from "../../src/runs/index.js";
import { FileRunOutcomeLog, RUN_OUTCOMES_FILE } from "../../adapters/stores/run-outcome-file.js";
import { tempDirEachTest } from "./fixtures/temp-dir.js";
import { outcome } from "./fixtures/run-outcome.js";
import { killAfterAcks } from "./fixtures/kill-after-acks.js";

let dir: string;
tempDirEachTest("irt-run-log-", (d) => (dir = d));

const CHILD = join(import.meta.dirname, "fixtures", "run-outcome-child.ts");
const MODELS = { strong: { runCost: 3 }, weak: { runCost: 0.1 } };

/** Every record of the log, read page by page, and the reasons of the unreadable ones. */
async function readAll(log: FileRunOutcomeLog, after?: string) {
  const outcomes: unknown[] = [];
  const unreadable: string[] = [];
  let cursor = after;
  for (;;) {
    const page = await log.read(cursor);
    outcomes.push(...page.outcomes);
    unreadable.push(...(page.unreadable ?? []));
    if (page.cursor === cursor || (page.outcomes.length === 0 && !page.unreadable))
      return { outcomes, unreadable, cursor: page.cursor };
    cursor = page.cursor;
  }
}

describe("FileRunOutcomeLog", () => {
  it("two handles on one directory: concurrent appends all land, whole and in one order both read", async () => {
    const a = await FileRunOutcomeLog.open(dir);
    const b = await FileRunOutcomeLog.open(dir);
    await Promise.all(
      Array.from({ length: 20 }, (_, k) => (k % 2 ? a : b).append([outcome(`${k}-x`), outcome(`${k}-y`)])),
    );
    const fromA = await readAll(a);
    const fromB = await readAll(b);
    expect(fromA.outcomes).toHaveLength(40);
    expect(fromA.unreadable).toEqual([]);
    expect(fromB.outcomes).toEqual(fromA.outcomes);
    const ids = (fromA.outcomes as SharedRunOutcome[]).map((o) => o.id);
    expect(new Set(ids).size).toBe(40);
    for (let k = 0; k < 20; k++) expect(ids.indexOf(`${k}-y`)).toBe(ids.indexOf(`${k}-x`) + 1); // a batch stays together
    // A cursor read on: only what came after it.
    await b.append([outcome("late")]);
    expect((await a.read(fromA.cursor)).outcomes).toEqual([outcome("late")]);
  });

  it("two routers syncing through their own handles on one directory learn each other's outcomes", async () => {
    const [logA, logB] = [await FileRunOutcomeLog.open(dir), await FileRunOutcomeLog.open(dir)];
    const a = new RunRouter({ models: MODELS });
    const b = new RunRouter({ models: MODELS });
    for (let t = 0; t < 5; t++) a.feedback({ id: `a${t}`, text: `alpha task ${t}` }, "weak", false);
    for (let t = 0; t < 4; t++) b.feedback({ id: `b${t}`, text: `beta task ${t}` }, "strong", true);
    expect(await a.sync(logA)).toMatchObject({ pushed: 5, pulled: 0 });
    expect(await b.sync(logB)).toMatchObject({ pushed: 4, pulled: 5 });
    expect(await a.sync(logA)).toMatchObject({ pushed: 0, pulled: 4 });
    expect([a.feedbackCount, b.feedbackCount]).toEqual([9, 9]);
    expect(a.route("gamma task").chosen).toBe(b.route("gamma task").chosen);
  });

  it("a torn last line is not read until complete, and the next append cuts a torn one", async () => {
    const log = await FileRunOutcomeLog.open(dir);
    await log.append([outcome("one")]);
    const first = await log.read();
    const line = JSON.stringify(outcome("two"));
    await appendFile(join(dir, RUN_OUTCOMES_FILE), line.slice(0, 25)); // a writer still writing (or dead)
    expect(await log.read(first.cursor)).toEqual({ outcomes: [], cursor: first.cursor });
    await appendFile(join(dir, RUN_OUTCOMES_FILE), line.slice(25) + "\n"); // it completes the line
    expect((await log.read(first.cursor)).outcomes).toEqual([outcome("two")]);

    // A crashed writer's line, longer than the next append's.
    const long = outcome("torn", { vector: Array.from({ length: 300 }, (_, k) => [k, 0.05] as [number, number]) });
    await appendFile(join(dir, RUN_OUTCOMES_FILE), JSON.stringify(long).slice(0, -5));
    await log.append([outcome("three")]);
    const text = await readFile(join(dir, RUN_OUTCOMES_FILE), "utf8");
    expect(text.endsWith(JSON.stringify(outcome("three")) + "\n")).toBe(true); // the torn line's rest is gone
    const all = await readAll(log);
    expect((all.outcomes as SharedRunOutcome[]).map((o) => o.id)).toEqual(["one", "two", "three"]);
    expect(all.unreadable).toEqual([]);
  });

  it("a complete line that is not JSON, or over 1 MiB, is reported unreadable and read past; a router skips it", async () => {
    const log = await FileRunOutcomeLog.open(dir);
    await log.append([outcome("one")]);
    await appendFile(join(dir, RUN_OUTCOMES_FILE), "{not json\n" + "x".repeat(1.5 * 2 ** 20) + "\n");
    await log.append([outcome("two")]);
    const all = await readAll(log);
    expect((all.outcomes as SharedRunOutcome[]).map((o) => o.id)).toEqual(["one", "two"]);
    expect(all.unreadable).toHaveLength(2);
    expect(all.unreadable[0]).toMatch(/not JSON/);
    expect(all.unreadable[1]).toMatch(/is 1572864 bytes long, over the 1048576/);
    const router = new RunRouter({ models: MODELS });
    expect(await router.sync(log)).toMatchObject({ pulled: 2, skipped: 2 });
  });

  it("reopened, it reads on from an earlier cursor; a router reading it again from the start counts nothing twice", async () => {
    let log = await FileRunOutcomeLog.open(dir);
    await log.append([outcome("one"), outcome("two")]);
    const { cursor } = await log.read();
    const router = new RunRouter({ models: MODELS });
    expect(await router.sync(log)).toMatchObject({ pulled: 2 });
    await log.close();
    await expect(log.read()).rejects.toThrow(StoreError);
    log = await FileRunOutcomeLog.open(dir);
    await log.append([outcome("three")]);
    const text = await readFile(join(dir, RUN_OUTCOMES_FILE), "utf8");
    expect(text.endsWith(JSON.stringify(outcome("three")) + "\n")).toBe(true); // the torn line's rest is gone
    expect((await log.read(cursor)).outcomes).toEqual([outcome("three")]);
    expect(await router.sync(log)).toMatchObject({ pulled: 1, duplicates: 2 });
    expect(router.feedbackCount).toBe(3);
  });

  it("a file cut, removed or replaced: old cursors read it from its start", async () => {
    const log = await FileRunOutcomeLog.open(dir);
    await log.append([outcome("one")]);
    const { cursor } = await log.read();
    // Cut from outside to its header: the cursor is past the end, so the file is read from its start.
    const text = await readFile(join(dir, RUN_OUTCOMES_FILE), "utf8");
    await writeFile(join(dir, RUN_OUTCOMES_FILE), text.slice(0, text.indexOf("\n") + 1));
    expect(await log.read(cursor)).toMatchObject({ outcomes: [] });
    await rm(join(dir, RUN_OUTCOMES_FILE));
    expect(await log.read(cursor)).toMatchObject({ outcomes: [] });
    await log.append([outcome("after-wipe")]);
    expect((await log.read(cursor)).outcomes).toEqual([outcome("after-wipe")]);
  });

  it("refuses a file that is no run-outcome log, bad options, malformed outcomes and a bad cursor", async () => {
    await writeFile(join(dir, RUN_OUTCOMES_FILE), '{"format":"something else"}\n');
    await expect(FileRunOutcomeLog.open(dir)).rejects.toThrow(
      /line 1 is not the header of an irt-router run-outcome log/,
    );
    await rm(join(dir, RUN_OUTCOMES_FILE));
    await expect(FileRunOutcomeLog.open(dir, { lockWaitMS: 5 } as never)).rejects.toThrow(/did you mean "lockWaitMs"/);
    const log = await FileRunOutcomeLog.open(dir);
    const bad = await log.append([outcome("a"), outcome("b", { vector: [[1 << 14, 1]] })]).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).path).toBe("outcomes.1.vector.0.0");
    expect((await log.read()).outcomes).toEqual([]);
    await expect(log.read("12")).rejects.toThrow(ValidationError);
  });

  it("waits for a live holder of the lock up to lockWaitMs, then StoreLockedError; a dead holder's lock is taken", async () => {
    const log = await FileRunOutcomeLog.open(dir, { lockWaitMs: 200 });
    const lock = (pid: number) =>
      JSON.stringify({
        pid,
        hostname: hostname(),
        token: "t",
        acquiredAt: "x",
      });
    await writeFile(join(dir, "LOCK"), lock(process.ppid)); // a live process: the test runner's parent
    const started = Date.now();
    await expect(log.append([outcome("blocked")])).rejects.toThrow(StoreLockedError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    await writeFile(join(dir, "LOCK"), lock(2 ** 22 + 12345)); // no such process
    await log.append([outcome("after")]);
    expect((await log.read()).outcomes).toEqual([outcome("after")]);
    expect(await readFile(join(dir, "LOCK"), "utf8").catch(() => "gone")).toBe("gone");
  });

  it("two writer processes killed mid-append: every acknowledged outcome is there, every complete line whole", async () => {
    const acked = await Promise.all(["p", "q"].map((tag) => writeUntilKilled(tag, 90)));
    const log = await FileRunOutcomeLog.open(dir);
    await log.append([outcome("after-crash")]); // takes a dead writer's lock, cuts a torn line
    const all = await readAll(log);
    expect(all.unreadable).toEqual([]);
    const ids = (all.outcomes as SharedRunOutcome[]).map((o) => o.id);
    for (const id of acked.flat()) expect(ids).toContain(id);
    expect(ids.at(-1)).toBe("after-crash");
    expect(new Set(ids).size).toBe(ids.length);
  });
});

/** Runs a writer child until it has acknowledged `killAfter` outcomes, then SIGKILLs it; its acknowledged ids. */
function writeUntilKilled(tag: string, killAfter: number): Promise<string[]> {
  return killAfterAcks(CHILD, ["write", dir, tag], killAfter);
}
