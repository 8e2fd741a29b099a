/**
 * Replicas sharing run outcomes through a run-outcome log (`RunRouter.sync`): two routers as two replicas of a service
 * reach the same observations and decisions; a failed push loses nothing; nothing counts twice; a malformed or hostile
 * record is skipped and counted, never learnt.
 */
import { describe, expect, it } from "vitest";
import { StoreError, ValidationError } from "../../src/errors.js";
import { RunRouter, type RunOutcomeLog, type RunOutcomePage, type SharedRunOutcome } from "../../src/runs/index.js";
import { runPriorSchema } from "../../src/runs/run-prior.js";
import { TEXT_DIM } from "../../src/runs/text-prior.js";
import { MemoryRunOutcomeLog } from "../../adapters/stores/run-outcome-memory.js";
import { MODELS } from "./trained-router.js";
import { gatedLog } from "./gated-log.js";

/** Replica `r` of 2 feeds back its half of 30 tasks: strong passes 90%, middle 60%, weak 20%. */
function feedHalf(router: RunRouter, r: number): void {
  for (let t = r; t < 30; t += 2) {
    const task = {
      id: `t${t}`,
      text: `task alpha${t} about files${" and folders".repeat(t % 4)}`,
      ...(t % 3 === 0 && { hint: "files" }),
    };
    router.feedback(task, "strong", t % 10 !== 0);
    router.feedback(task, "middle", t % 10 < 6);
    router.feedback(task, "weak", t % 10 < 2, 0.5);
  }
}

/** A log over `inner` whose appends fail (`before`: nothing stored; `after`: stored, then the reply lost). */
function flaky(inner: RunOutcomeLog, mode: "before" | "after"): RunOutcomeLog & { failing: boolean } {
  return {
    failing: true,
    async append(outcomes) {
      if (this.failing && mode === "before") throw new Error("connection reset");
      await inner.append(outcomes);
      if (this.failing) throw new Error("no reply in time");
    },
    read: (after) => inner.read(after),
    close: () => inner.close(),
  };
}

/** A log holding exactly these records (as a hostile writer or damage may leave them). */
function holding(records: unknown[], unreadable: string[] = []): RunOutcomeLog {
  return {
    append: async () => undefined,
    read: async (after): Promise<RunOutcomePage> =>
      after === "end" ? { outcomes: [], cursor: "end" } : { outcomes: records, unreadable, cursor: "end" },
    close: async () => undefined,
  };
}

const valid = (id: string, over: Partial<SharedRunOutcome> = {}): SharedRunOutcome => ({
  id,
  task: "shared-task",
  vector: [[7, 1]],
  model: "middle",
  outcome: 1,
  weight: 1,
  ...over,
});

describe("RunRouter.sync through a run-outcome log", () => {
  it("two replicas that both sync have the same outcomes and make the same decision on a new task", async () => {
    const log = new MemoryRunOutcomeLog();
    const a = new RunRouter({ models: MODELS, costWeight: 0.1 });
    const b = new RunRouter({ models: MODELS, costWeight: 0.1 });
    feedHalf(a, 0);
    feedHalf(b, 1);
    expect(await a.sync(log)).toMatchObject({ pushed: 45, pulled: 0, duplicates: 0, skipped: 0 });
    expect(await b.sync(log)).toMatchObject({ pushed: 45, pulled: 45, duplicates: 0, skipped: 0 });
    expect(await a.sync(log)).toMatchObject({ pushed: 0, pulled: 45, duplicates: 0, skipped: 0 });
    expect(await b.sync(log)).toMatchObject({ pushed: 0, pulled: 0 }); // its own records are not counted again
    expect(a.feedbackCount).toBe(90);
    expect(b.feedbackCount).toBe(90);
    expect(log.size).toBe(90);

    // One router fed every outcome: what both replicas learnt.
    const one = new RunRouter({ models: MODELS, costWeight: 0.1 });
    feedHalf(one, 0);
    feedHalf(one, 1);
    // Its words are nearer some past tasks than others.
    const task = { id: "new", text: "a new task about files and folders, like alpha3 or alpha8", hint: "files" };
    const [da, db, done] = [a.route(task), b.route(task), one.route(task)];
    expect(db.chosen).toBe(da.chosen);
    expect(done.chosen).toBe(da.chosen);
    for (const c of da.candidates) {
      expect(db.candidates.find((x) => x.modelId === c.modelId)!.p).toBeCloseTo(c.p, 6);
      expect(done.candidates.find((x) => x.modelId === c.modelId)!.p).toBeCloseTo(c.p, 6);
    }
    // Learning from the other half moved the decision: a replica alone rates the models otherwise.
    const alone = new RunRouter({ models: MODELS, costWeight: 0.1 });
    feedHalf(alone, 0);
    const p = (d: typeof da, id: string) => d.candidates.find((c) => c.modelId === id)!.p;
    expect(Math.abs(p(alone.route(task), "middle") - p(da, "middle"))).toBeGreaterThan(1e-3);
    // A past task's own outcomes move its difficulty on both replicas alike.
    expect(b.route({ id: "t4", text: "task alpha4 about files" }).reason).toContain("after 3 outcome(s)");
  });

  it("a push that fails leaves the outcomes pending; a later sync pushes them, and routing goes on meanwhile", async () => {
    const inner = new MemoryRunOutcomeLog();
    const log = flaky(inner, "before");
    const a = new RunRouter({ models: MODELS });
    const b = new RunRouter({ models: MODELS });
    feedHalf(a, 0);
    const failed = await a.sync(log).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(StoreError);
    expect((failed as StoreError).message).toMatch(/could not append 45 run outcome\(s\).*connection reset.*pending/);
    expect((failed as StoreError).details).toMatchObject({ pushed: 0, pending: 45 });
    expect(inner.size).toBe(0);
    expect(a.route("another task").chosen).toBeDefined(); // the router keeps routing on what it has
    a.feedback({ id: "late", text: "a task fed back after the failure" }, "weak", true);
    log.failing = false;
    expect(await a.sync(log)).toMatchObject({ pushed: 46, pulled: 0 });
    expect(await b.sync(inner)).toMatchObject({ pushed: 0, pulled: 46 });
    expect(b.feedbackCount).toBe(46);
  });

  it("a retried push that had reached the log, and a log read again from its start, never count twice", async () => {
    const inner = new MemoryRunOutcomeLog();
    const log = flaky(inner, "after");
    const a = new RunRouter({ models: MODELS });
    const b = new RunRouter({ models: MODELS });
    feedHalf(a, 0);
    await expect(a.sync(log)).rejects.toThrow(StoreError);
    log.failing = false;
    expect(await a.sync(log)).toMatchObject({ pushed: 45, pulled: 0, duplicates: 0 }); // same ids again
    expect(inner.size).toBe(90);
    expect(await b.sync(inner)).toMatchObject({ pulled: 45, duplicates: 45 });
    expect(b.feedbackCount).toBe(45);
    // Another log object over the same records: no cursor in it yet, so read from the start; nothing new.
    const again: RunOutcomeLog = { append: (o) => inner.append(o), read: (c) => inner.read(c), close: async () => {} };
    expect(await b.sync(again)).toMatchObject({ pulled: 0, duplicates: 90 });
    expect(b.feedbackCount).toBe(45);
    // A cursor of another log reads that log from its start.
    const other = new MemoryRunOutcomeLog();
    await other.append([valid("x1")]);
    const page = await other.read((await inner.read()).cursor);
    expect(page.outcomes).toHaveLength(1);
  });

  it("outcomes fed back while a sync waits on the log are pushed by the next sync, not lost or taken for pulled", async () => {
    const inner = new MemoryRunOutcomeLog();
    const { log: slow, release } = gatedLog(inner);
    const b = new RunRouter({ models: MODELS });
    b.feedback({ id: "b1", text: "b one" }, "strong", true);
    await b.sync(inner);
    const a = new RunRouter({ models: MODELS });
    a.feedback({ id: "a1", text: "a one" }, "weak", false);
    const first = a.sync(slow);
    await new Promise((r) => setTimeout(r, 10));
    a.feedback({ id: "a2", text: "a two" }, "weak", true); // while the append waits
    release();
    expect(await first).toMatchObject({ pushed: 1, pulled: 1 });
    expect(await a.sync(slow)).toMatchObject({ pushed: 1, pulled: 0 });
    expect(await b.sync(inner)).toMatchObject({ pulled: 2 });
    expect(a.feedbackCount).toBe(3);
    expect(b.feedbackCount).toBe(3);
  });

  it("skips and counts malformed or hostile records, with a reason each, and learns nothing from them", async () => {
    const huge = Array.from({ length: TEXT_DIM + 1 }, (_, k) => [k % TEXT_DIM, 0.001]);
    const records: unknown[] = [
      valid("ok-1"),
      valid("nan", { outcome: NaN }),
      valid("big", { outcome: 2 }),
      valid("unknown-model", { model: "gpt-9" }),
      valid("__proto__"),
      valid("proto-task", { task: "__proto__" }),
      valid("proto-hint", { hint: "__proto__" }),
      valid("huge", { vector: huge as [number, number][] }),
      valid("index", { vector: [[TEXT_DIM, 1]] }),
      valid("negative-index", { vector: [[-1, 1]] }),
      valid("not-unit", {
        vector: [
          [1, 1],
          [2, 1],
        ],
      }),
      valid("weight", { weight: Infinity }),
      valid("zero-weight", { weight: 0 }),
      { ...valid("no-model"), model: undefined },
      "not an object",
      null,
      [1, 2],
      JSON.parse('{"__proto__": {"polluted": true}, "id": "pollute"}'),
      valid("ok-2", { model: "weak", outcome: 0 }),
      valid("ok-1"), // a repeat of a counted record
    ];
    const router = new RunRouter({ models: MODELS });
    const result = await router.sync(holding(records, ["line 3: not JSON"]));
    expect(result.pulled).toBe(2);
    expect(result.duplicates).toBe(1);
    expect(result.skipped).toBe(records.length - 3 + 1);
    expect(result.skips).toHaveLength(result.skipped);
    const reason = (id: string) => result.skips.find((s) => s.id === id)?.reason;
    expect(reason("nan")).toMatch(/outcome/);
    expect(reason("big")).toMatch(/outcome/);
    expect(reason("unknown-model")).toBe('model "gpt-9" is not one of this router\'s models');
    expect(reason("__proto__")).toMatch(/id: "__proto__" cannot be an outcome id/);
    expect(reason("proto-task")).toMatch(/task/);
    expect(reason("proto-hint")).toMatch(/hint/);
    expect(reason("huge")).toMatch(/vector/);
    expect(reason("index")).toMatch(/vector\.0\.0/);
    expect(reason("negative-index")).toMatch(/vector\.0\.0/);
    expect(reason("not-unit")).toMatch(/unit vector/);
    expect(reason("weight")).toMatch(/weight/);
    expect(reason("zero-weight")).toMatch(/weight/);
    expect(reason("no-model")).toMatch(/model/);
    expect(result.skips.some((s) => s.id === undefined && s.reason === "line 3: not JSON")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(router.feedbackCount).toBe(2);
    // The router is whole: it routes, and its prior is a valid one.
    expect(router.route({ id: "shared-task", text: "anything" }).reason).toContain("after 2 outcome(s)");
    expect(() => runPriorSchema.parse(router.toPrior())).not.toThrow();
  });

  it("shares a task's id, hint and word vector, never its text; a task without an id by a fingerprint", async () => {
    const log = new MemoryRunOutcomeLog();
    const a = new RunRouter({ models: MODELS });
    const secret = "Recover the lost commit from customer repository zebracorn-internal";
    a.feedback(secret, "strong", true);
    a.feedback({ id: "named", text: secret, hint: "git" }, "weak", false);
    await a.sync(log);
    const { outcomes } = await log.read();
    const text = JSON.stringify(outcomes);
    expect(text).not.toContain("zebracorn");
    expect(text).not.toContain("Recover");
    const [anonymous, named] = outcomes as SharedRunOutcome[];
    expect(anonymous!.task).toMatch(/^#\d+\./);
    expect(named).toMatchObject({ task: "named", hint: "git", model: "weak", outcome: 0, weight: 1 });
    expect(named!.vector.length).toBeGreaterThan(3);
    // A replica that routes the same text without an id finds its outcome (same fingerprint).
    const b = new RunRouter({ models: MODELS });
    await b.sync(log);
    expect(b.route(secret).reason).toContain("after 1 outcome(s) on this task");
  });

  it("an outcome of this router that cannot be shared is counted as skipped, and the rest go out", async () => {
    const log = new MemoryRunOutcomeLog();
    const a = new RunRouter({ models: MODELS });
    a.feedback({ id: "heavy", text: "a heavy outcome" }, "strong", true, 1e7);
    a.feedback({ id: "light", text: "a light outcome" }, "strong", true);
    const result = await a.sync(log);
    expect(result).toMatchObject({ pushed: 1, skipped: 1 });
    expect(result.skips[0]!.reason).toMatch(
      /^this router.s outcome of model "strong" on task "heavy" cannot be shared: weight/,
    );
    expect(await a.sync(log)).toMatchObject({ pushed: 0, skipped: 0 });
  });

  it("refuses what is no log, and a read that fails rejects with a StoreError naming it", async () => {
    const router = new RunRouter({ models: MODELS });
    await expect(router.sync({} as RunOutcomeLog)).rejects.toThrow(ValidationError);
    const broken: RunOutcomeLog = {
      append: async () => {},
      read: async () => {
        throw new Error("server went away");
      },
      close: async () => {},
    };
    router.feedback("one", "weak", true);
    const error = await router.sync(broken).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(
      /appended 1 run outcome\(s\) but could not read the log \(server went away\)/,
    );
    const garbage = { ...broken, read: async () => ({ nope: true }) } as unknown as RunOutcomeLog;
    await expect(router.sync(garbage)).rejects.toThrow(/no \{ outcomes/);
  });
});

describe("MemoryRunOutcomeLog", () => {
  it("refuses a malformed outcome naming the field, writing nothing; a bad cursor; use after close", async () => {
    const log = new MemoryRunOutcomeLog();
    const bad = await log.append([valid("a"), valid("b", { outcome: NaN })]).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).path).toBe("outcomes.1.outcome");
    expect(log.size).toBe(0);
    await expect(log.read("not a cursor")).rejects.toThrow(ValidationError);
    await log.append([valid("a")]);
    const copy = valid("c");
    await log.append([copy]);
    (copy as { outcome: number }).outcome = 0; // the log keeps a copy
    const page = await log.read();
    expect(page.outcomes).toEqual([valid("a"), valid("c")]);
    expect(await log.read(page.cursor)).toEqual({ outcomes: [], cursor: page.cursor });
    await log.close();
    await expect(log.read()).rejects.toThrow(StoreError);
  });
});

describe("sync with a bound on the outcomes kept (maxOutcomes)", () => {
  const feedMany = (router: RunRouter, from: number, n: number) => {
    for (let t = from; t < from + n; t++) {
      router.feedback({ id: `t${t}`, text: `task ${t} about files` }, "strong", t % 4 !== 0);
    }
  };

  it("shares a router's own outcomes folded away between two syncs, and never re-shares the others'", async () => {
    const log = new MemoryRunOutcomeLog();
    const a = new RunRouter({ models: MODELS, maxOutcomes: 100 });
    const b = new RunRouter({ models: MODELS, maxOutcomes: 100 });
    await a.sync(log); // sharing starts
    feedMany(a, 0, 300);
    a.route("a task that makes it fold"); // 300 kept outcomes > 100: the oldest are folded now
    expect((await a.sync(log)).pushed).toBe(300);
    expect((await b.sync(log)).pulled).toBe(300);
    b.route("a task that makes b fold the pulled outcomes");
    feedMany(b, 300, 5);
    const again = await b.sync(log);
    expect(again.pushed).toBe(5); // its own five, not the 300 it pulled (with new ids they would count twice)
    expect(log.size).toBe(305);
    expect((await a.sync(log)).pulled).toBe(5);
  });
});

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

describe("outcome ids, and what a replica keeps of the ids it read", () => {
  it("numbers a replica's outcomes from 0 in the order appended: a retried batch keeps its ids, a skip takes none", async () => {
    const inner = new MemoryRunOutcomeLog();
    const log = flaky(inner, "after");
    const a = new RunRouter({ models: MODELS });
    feedHalf(a, 0);
    a.feedback({ id: "heavy", text: "a heavy outcome" }, "strong", true, 1e7); // cannot be shared
    await expect(a.sync(log)).rejects.toThrow(StoreError);
    log.failing = false;
    a.feedback({ id: "late", text: "after the failure" }, "weak", true);
    await a.sync(log);
    const ids = (await recordsOf(inner)).map((o) => o.id);
    const replica = ids[0]!.split(".")[0]!;
    expect(replica).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const numbers = ids.map((id) => (id.startsWith(`${replica}.`) ? Number(id.slice(replica.length + 1)) : -1));
    const first = Array.from({ length: 45 }, (_, n) => n);
    expect(numbers).toEqual([...first, ...first, 45]); // the batch stored before the lost reply, again, then the late one
  });

  it("a record skipped for a model this router lacks is read again as a repeat, not skipped twice", async () => {
    const log = new MemoryRunOutcomeLog();
    const a = new RunRouter({ models: { ...MODELS, extra: { runCost: 1 } } });
    a.feedback({ id: "t1", text: "a task" }, "extra", true);
    a.feedback({ id: "t1", text: "a task" }, "strong", true);
    await a.sync(log);
    const b = new RunRouter({ models: MODELS });
    expect(await b.sync(log)).toMatchObject({ pulled: 1, skipped: 1, duplicates: 0 });
    const again: RunOutcomeLog = { append: (o) => log.append(o), read: (c) => log.read(c), close: async () => {} };
    expect(await b.sync(again)).toMatchObject({ pulled: 0, skipped: 0, duplicates: 2 });
  });
});

describe("sync while the log is down for long (at most 10 x maxOutcomes outcomes wait)", () => {
  const feedRange = (router: RunRouter, from: number, to: number) => {
    for (let t = from; t < to; t++) router.feedback({ id: `t${t}`, text: `task ${t} of many` }, "strong", t % 3 > 0);
  };

  it("drops the oldest outcomes past the bound, says how many at the next sync, and shares the rest", async () => {
    const inner = new MemoryRunOutcomeLog();
    const log = flaky(inner, "before");
    const a = new RunRouter({ models: MODELS, maxOutcomes: 100 }); // 1,000 may wait
    await a.sync(inner); // sharing starts
    feedRange(a, 0, 600);
    await expect(a.sync(log)).rejects.toThrow(/could not append 600 run outcome/);
    feedRange(a, 600, 1200);
    const failed = (await a.sync(log).catch((e: unknown) => e)) as StoreError;
    expect(failed.message).toMatch(/could not append 1000 run outcome.*the oldest dropped past 10 x maxOutcomes/);
    log.failing = false;
    expect(await a.sync(log)).toMatchObject({ pushed: 1000, dropped: 200 });
    // the batch the first failed append took (t0..t499) keeps its place; the oldest after it (t500..t699) go
    const tasks = (await recordsOf(inner)).map((o) => o.task);
    expect(tasks).toEqual(Array.from({ length: 1000 }, (_, k) => `t${k < 500 ? k : k + 200}`));
    expect(await a.sync(log)).toMatchObject({ pushed: 0, dropped: 0 });
    expect(a.feedbackCount).toBe(1200); // the router itself learnt them all
  });

  it("never drops a batch an append took and may have stored: it goes out again with the same ids", async () => {
    const inner = new MemoryRunOutcomeLog();
    const log = flaky(inner, "after");
    const a = new RunRouter({ models: MODELS, maxOutcomes: 100 });
    await a.sync(inner);
    feedRange(a, 0, 1000);
    await expect(a.sync(log)).rejects.toThrow(StoreError); // its first 500 stored, the reply lost
    feedRange(a, 1000, 1700);
    await expect(a.sync(log)).rejects.toThrow(StoreError); // the same 500 stored again, the reply lost again
    log.failing = false;
    expect(await a.sync(log)).toMatchObject({ pushed: 1000, dropped: 700 });
    const b = new RunRouter({ models: MODELS, maxOutcomes: 100 });
    expect(await b.sync(inner)).toMatchObject({ pulled: 1000, duplicates: 1000 });
    const tasks = new Set((await recordsOf(inner)).map((o) => o.task));
    expect(tasks.has("t499") && tasks.has("t1200") && tasks.has("t1699")).toBe(true);
    expect(tasks.has("t500") || tasks.has("t1199")).toBe(false);
  });
});

describe("sync that fails after skipping records", () => {
  it("lists the skipped records at the next sync (they are not read again, and were not reported)", async () => {
    const inner = new MemoryRunOutcomeLog();
    const a = new RunRouter({ models: MODELS });
    a.feedback({ id: "t1", text: "a task" }, "strong", true);
    await a.sync(inner);
    // a record no replica could count, then a page the reader fails on
    await inner.append([{ id: "bad", task: "t2", vector: [[1, 1]], model: "no-such-model", outcome: 1, weight: 1 }]);
    let reads = 0;
    const failing: RunOutcomeLog = {
      append: (o) => inner.append(o),
      read: async (after) => {
        if (++reads === 2) throw new Error("connection reset");
        return inner.read(after);
      },
      close: () => inner.close(),
    };
    const b = new RunRouter({ models: MODELS });
    await expect(b.sync(failing)).rejects.toBeInstanceOf(StoreError);
    const next = await b.sync(failing);
    expect(next.skipped).toBe(1);
    expect(next.skips[0]).toMatchObject({ id: "bad" });
  });
});
