import { spawnSync } from "node:child_process";
import { appendFile, mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileStore } from "../../adapters/stores/file.js";
import { encodeLine, encodeRecord, journalHeader } from "../../adapters/stores/format.js";
import { StoreCorruptedError, StoreError, StoreLockedError } from "../../src/errors.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import { OnlineLearner, type LearnerState } from "../../src/learning/learner.js";
import { rejectedWith } from "../errors.js";
import { crashEvent, KNOWN, LEARNER_OPTIONS, numberedEvent as ev } from "./fixtures/events.js";
import { tempDirEachTest } from "./fixtures/temp-dir.js";
import { killAfterAcks } from "./fixtures/kill-after-acks.js";

const CHILD = join(import.meta.dirname, "fixtures", "store-child.ts");

let dir: string;
tempDirEachTest("irt-filestore-", (d) => (dir = d));

const journal = () => join(dir, "journal.jsonl");

/** A store holding e1..en, one append (one journal line) each: line k + 1 holds event k. */
async function seed(n: number): Promise<void> {
  const store = await FileStore.open(dir);
  for (let i = 1; i <= n; i++) await store.append([ev(i)]);
  await store.close();
}

/** The journal's lines (without the trailing empty string). */
async function journalLines(): Promise<string[]> {
  return (await readFile(journal(), "utf8")).split("\n").slice(0, -1);
}

/** Run the fixture child to completion and return its stdout. */
function runChild(...args: string[]): string {
  const r = spawnSync(process.execPath, ["--import", "tsx", CHILD, ...args], { encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) throw new Error(`child failed (${r.status}): ${r.stderr}`);
  return r.stdout.trim();
}

/** A pid that certainly belonged to a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(r.stdout);
}

describe("FileStore: torn and corrupted journals", () => {
  it("(b) a torn last line (no newline) is cut off and reported; the acknowledged events load", async () => {
    await seed(3);
    const sizeBefore = (await stat(journal())).size;
    await appendFile(journal(), encodeLine(JSON.stringify({ seq: 4, event: ev(4) })).slice(0, 25));
    const warnings: string[] = [];
    const store = await FileStore.open(dir, { onWarning: (w) => warnings.push(w) });
    expect(store.recovery.tornTail).toEqual({ line: 5, bytes: 25 });
    expect(warnings.join("\n")).toMatch(/torn last line \(line 5, 25 bytes\)/);
    expect((await store.load()).events.map((e) => e.id)).toEqual(["e1", "e2", "e3"]);
    expect((await stat(journal())).size).toBe(sizeBefore);
    // Appending after the repair yields a clean journal.
    await store.append([ev(4)]);
    await store.close();
    const again = await FileStore.open(dir);
    expect(again.recovery.tornTail).toBeUndefined();
    expect((await again.load()).events.map((e) => e.id)).toEqual(["e1", "e2", "e3", "e4"]);
    await again.close();
  });

  it("(b) a complete last line with a bad checksum is refused as corruption; repairTail cuts it and reports it", async () => {
    await seed(2);
    const line = encodeLine(JSON.stringify({ seq: 3, event: ev(3) }));
    await appendFile(journal(), line.replace('"y":1', '"y":0'));
    const before = await readFile(journal());
    const err = await rejectedWith(StoreCorruptedError, FileStore.open(dir));
    expect(err).toBeInstanceOf(StoreCorruptedError);
    expect(err.line).toBe(4);
    expect(err.message).toMatch(/line 4, .* complete \(newline-terminated\) but fails its checksum.*repairTail: true/);
    expect(await readFile(journal())).toEqual(before); // refused: nothing changed
    const warnings: string[] = [];
    const store = await FileStore.open(dir, { repairTail: true, onWarning: (w) => warnings.push(w) });
    expect(store.recovery.tornTail).toBeUndefined();
    expect(store.recovery.damagedTail).toEqual({ line: 4, bytes: Buffer.byteLength(line), zeroBytes: 0 });
    expect(warnings.join("\n")).toMatch(/repairTail: cut the damaged last line \(line 4, /);
    expect((await store.load()).seq).toBe(2);
    await store.close();
  });

  it("an append is one journal line, so a power loss that persists only part of an unacknowledged batch damages only the last line", async () => {
    await seed(1);
    const store = await FileStore.open(dir);
    await store.append([ev(2), ev(3), ev(4)]);
    await store.close();
    await rm(join(dir, "acknowledged.json")); // as if the process had died before close
    const lines = await journalLines();
    expect(lines).toHaveLength(3); // header, e1, the batch e2..e4
    // As if the batch had not been acknowledged: its first page never reached the disk (zeros), the rest and its
    // newline did. One line per event would leave intact lines after the zeros, indistinguishable from corruption.
    const last = Buffer.from(lines[2]!, "utf8");
    last.fill(0, 0, Math.floor(last.length / 2));
    await writeFile(
      journal(),
      Buffer.concat([Buffer.from(`${lines.slice(0, 2).join("\n")}\n`), last, Buffer.from("\n")]),
    );
    // A complete line that fails its checksum cannot be told from outside damage: refused until the loss is accepted.
    await rejectedWith(StoreCorruptedError, FileStore.open(dir));
    const reopened = await FileStore.open(dir, { repairTail: true });
    expect(reopened.recovery.damagedTail).toEqual({
      line: 3,
      bytes: last.length + 1,
      zeroBytes: Math.floor(last.length / 2),
    });
    expect(await reopened.load()).toEqual({ events: [ev(1)], seq: 1, snapshot: undefined });
    // The writer's retry of the unacknowledged batch is stored in full.
    expect(await reopened.append([ev(2), ev(3), ev(4)])).toMatchObject({ appended: 3, duplicates: [], seq: 4 });
    await reopened.close();
  });

  it("a batch torn before its newline (the writer died mid-append) is cut off whole as a torn tail", async () => {
    await seed(1);
    const store = await FileStore.open(dir);
    await store.append([ev(2), ev(3), ev(4)]);
    await store.close();
    await rm(join(dir, "acknowledged.json")); // as if the process had died before close: the batch is the unacknowledged append
    const text = await readFile(journal(), "utf8");
    const cut = text.length - 40; // 40 bytes before the end: inside the batch's line, which loses its newline
    await writeFile(journal(), text.slice(0, cut));
    const reopened = await FileStore.open(dir);
    expect(reopened.recovery.tornTail?.line).toBe(3);
    expect((await reopened.load()).events.map((e) => e.id)).toEqual(["e1"]);
    await reopened.close();
  });

  it("reads a version-1 journal (one line per event) and upgrades it to version 2 with the same lines", async () => {
    const v1Header = encodeLine(JSON.stringify({ format: "irt-router-journal", version: 1, base: 0 }));
    const v1Lines = [1, 2, 3].map((i) => encodeLine(JSON.stringify({ seq: i, event: ev(i) })));
    await writeFile(journal(), v1Header + v1Lines.join(""));
    const warnings: string[] = [];
    const store = await FileStore.open(dir, { onWarning: (w) => warnings.push(w) });
    expect(store.recovery.upgradedJournal).toEqual({ fromVersion: 1 });
    expect(warnings.join("\n")).toMatch(/Upgraded .*journal\.jsonl from journal format 1 to 2/);
    expect(await store.load()).toEqual({ events: [ev(1), ev(2), ev(3)], seq: 3, snapshot: undefined });
    expect(await journalLines()).toEqual([journalHeader(0).trimEnd(), ...v1Lines.map((l) => l.trimEnd())]);
    await store.append([ev(4), ev(5)]);
    await store.close();
    const again = await FileStore.open(dir);
    expect(again.recovery.upgradedJournal).toBeUndefined();
    expect((await again.load()).events.map((e) => e.id)).toEqual(["e1", "e2", "e3", "e4", "e5"]);
    await again.close();
    expect(await journalLines()).toHaveLength(5);
  });

  it("a journal that open refuses is left as it was: a format-1 journal is not upgraded, a torn tail not cut (only once every check has passed)", async () => {
    const v1 = (base: number, ...events: FeedbackEvent[]) =>
      encodeLine(JSON.stringify({ format: "irt-router-journal", version: 1, base })) +
      events.map((e, k) => encodeLine(JSON.stringify({ seq: base + k + 1, event: e }))).join("");
    const snapshotAt = async (n: number) => {
      const store = await FileStore.open(dir);
      for (let i = 1; i <= n; i++) await store.append([ev(i)]);
      await store.snapshot(n, { n });
      await store.close();
    };
    const cases: [string, () => Promise<string>, RegExp][] = [
      ["a duplicate id", async () => v1(0, ev(1), ev(1), ev(2)), /line 3: event id "e1" is stored twice/],
      ["a gap before its base", async () => v1(2, ev(3)), /starts after event 2, but there is no snapshot/],
      [
        "a snapshot past its end",
        async () => (await snapshotAt(3), v1(0, ev(1), ev(2))),
        /covers events up to 3, but .* ends at 2/,
      ],
      [
        "a format-2 duplicate id",
        async () =>
          journalHeader(0) + encodeRecord(1, [JSON.stringify(ev(1))]) + encodeRecord(2, [JSON.stringify(ev(1))]),
        /line 3: event id "e1" is stored twice/,
      ],
    ];
    for (const [what, write, message] of cases) {
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir);
      const text = await write();
      await writeFile(journal(), text + '{"seq":9,"ev'); // a torn tail as well: not cut either
      const error = await rejectedWith(
        StoreError,
        FileStore.open(dir, { onWarning: (w) => expect.fail(`${what}: warned ${w}`) }),
      );
      expect(error.message, what).toMatch(message);
      expect(await readFile(journal(), "utf8"), what).toBe(text + '{"seq":9,"ev');
    }
  });

  it("after upgrading a format-1 journal whose header is longer than the new one, appends go right after the last line", async () => {
    // a valid version-1 header written with spaces (the checksum is over the text as written): 3 bytes longer
    const header = encodeLine('{"format": "irt-router-journal", "version": 1, "base": 0}');
    await writeFile(journal(), header + encodeLine(JSON.stringify({ seq: 1, event: ev(1) })));
    const store = await FileStore.open(dir);
    expect(store.recovery.upgradedJournal).toEqual({ fromVersion: 1 });
    await store.append([ev(2)]);
    await store.close();
    expect(await journalLines()).toEqual(
      [journalHeader(0), encodeRecord(1, [JSON.stringify(ev(1))]), encodeRecord(2, [JSON.stringify(ev(2))])].map((l) =>
        l.trimEnd(),
      ),
    );
    const again = await FileStore.open(dir);
    expect((await again.load()).events).toEqual([ev(1), ev(2)]);
    await again.close();
  });

  it("a journal of a newer, unknown format version is a typed error naming the versions read", async () => {
    await writeFile(journal(), encodeLine(JSON.stringify({ format: "irt-router-journal", version: 3, base: 0 })));
    const err = await rejectedWith(StoreError, FileStore.open(dir));
    expect(err.message).toMatch(/journal format version 3; this library reads versions 1 and 2/);
    expect(err.line).toBe(1);
  });

  it("a snapshot inside a batch compacts the journal to the batch's remaining events", async () => {
    const store = await FileStore.open(dir);
    await store.append([ev(1), ev(2), ev(3), ev(4)]);
    await store.snapshot(2, { n: 2 });
    expect(await store.load()).toEqual({ snapshot: { seq: 2, state: { n: 2 } }, events: [ev(3), ev(4)], seq: 4 });
    await store.close();
    expect(await journalLines()).toEqual([
      journalHeader(2).trimEnd(),
      encodeRecord(3, [JSON.stringify(ev(3)), JSON.stringify(ev(4))]).trimEnd(),
    ]);
    const again = await FileStore.open(dir);
    expect(await again.load()).toEqual({ snapshot: { seq: 2, state: { n: 2 } }, events: [ev(3), ev(4)], seq: 4 });
    await again.close();
  });

  it("(c) a corrupted middle line is a typed StoreError naming file and line, and nothing is changed", async () => {
    await seed(4);
    const text = await readFile(journal(), "utf8");
    const lines = text.split("\n");
    lines[2] = lines[2]!.replace('"e2"', '"eX"'); // line 3 = event e2, checksum now wrong
    await writeFile(journal(), lines.join("\n"));
    const err = await FileStore.open(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe("STORE");
    expect((err as StoreError).file).toBe(journal());
    expect((err as StoreError).line).toBe(3);
    expect((err as Error).message).toMatch(/line 3 is corrupted .* followed by 2 more line/);
    expect(await readFile(journal(), "utf8")).toBe(lines.join("\n"));
    // The failed open released its lock: a later open reports the same error, not STORE_LOCKED.
    await expect(FileStore.open(dir)).rejects.toThrow(/line 3 is corrupted/);
  });

  it("a sequence gap (a line removed from the middle) is a typed error", async () => {
    await seed(4);
    const lines = (await readFile(journal(), "utf8")).split("\n");
    lines.splice(2, 1);
    await writeFile(journal(), lines.join("\n"));
    await expect(FileStore.open(dir)).rejects.toThrow(/line 3 has sequence number 3, expected 2/);
  });

  it("a damaged snapshot is a typed error, not silently ignored", async () => {
    const store = await FileStore.open(dir);
    await store.append([ev(1), ev(2)]);
    await store.snapshot(2, { n: 2 });
    await store.close();
    const snap = join(dir, "snapshot.json");
    await writeFile(snap, (await readFile(snap, "utf8")).replace('"n":2', '"n":3'));
    await expect(FileStore.open(dir)).rejects.toThrow(/snapshot\.json is invalid: payload checksum mismatch/);
  });

  it("a crash between snapshot and compaction is recovered: covered events are skipped, none lost", async () => {
    const store = await FileStore.open(dir);
    await store.append([ev(1), ev(2), ev(3)]);
    const journalBefore = await readFile(journal());
    await store.snapshot(2, { n: 2 });
    await store.close();
    // Put back the pre-compaction journal, as if the process died right after the snapshot rename.
    await writeFile(journal(), journalBefore);
    await writeFile(join(dir, "journal.jsonl.tmp-999-abcd"), "partial compaction output");
    const again = await FileStore.open(dir);
    expect(again.recovery.coveredBySnapshot).toBe(2);
    expect(again.recovery.removedTempFiles).toEqual(["journal.jsonl.tmp-999-abcd"]);
    expect(await again.load()).toEqual({ snapshot: { seq: 2, state: { n: 2 } }, events: [ev(3)], seq: 3 });
    expect(await again.append([ev(1), ev(4)])).toMatchObject({ appended: 1, duplicates: ["e1"], seq: 4 });
    await again.close();
    expect(await readdir(dir)).not.toContain("journal.jsonl.tmp-999-abcd");
  });
});

describe("FileStore: locking", () => {
  it("(d) a second handle in the same process gets STORE_LOCKED naming the holder", async () => {
    const first = await FileStore.open(dir);
    const err = await FileStore.open(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreLockedError);
    expect((err as StoreLockedError).code).toBe("STORE_LOCKED");
    expect((err as Error).message).toContain(`process ${process.pid} on host "${hostname()}"`);
    await first.close();
    const second = await FileStore.open(dir);
    await second.close();
  });

  it("(d) a second process gets STORE_LOCKED while the first holds the store, and opens once it is released", async () => {
    const first = await FileStore.open(dir);
    await first.append([ev(1)]);
    expect(runChild("open", dir)).toBe("error STORE_LOCKED");
    await first.close();
    expect(runChild("open", dir)).toBe("opened");
    const store = await FileStore.open(dir);
    expect((await store.load()).events.map((e) => e.id)).toEqual(["e1"]);
    await store.close();
  });

  it("(d) a lock left by a dead process on this host is recovered and reported", async () => {
    await seed(1);
    const pid = deadPid();
    await writeFile(
      join(dir, "LOCK"),
      JSON.stringify({ pid, hostname: hostname(), token: "old", acquiredAt: "2020-01-01T00:00:00Z" }),
    );
    const warnings: string[] = [];
    const store = await FileStore.open(dir, { onWarning: (w) => warnings.push(w) });
    expect(store.recovery.staleLock).toMatchObject({ pid, token: "old" });
    expect(warnings.join()).toMatch(new RegExp(`stale lock left by dead process ${pid}`));
    expect((await store.load()).seq).toBe(1);
    await store.close();
    expect(await readdir(dir)).not.toContain("LOCK");
  });

  it("(d) a lock held on another host is never broken automatically", async () => {
    await writeFile(
      join(dir, "LOCK"),
      JSON.stringify({ pid: 1, hostname: "some-other-host", token: "t", acquiredAt: "x" }),
    );
    await expect(FileStore.open(dir)).rejects.toThrow(/another host.*delete/);
  });

  it("a handle whose lock was removed from outside refuses to write", async () => {
    const store = await FileStore.open(dir);
    await store.append([ev(1)]);
    await rm(join(dir, "LOCK"));
    await expect(store.append([ev(2)])).rejects.toThrow(StoreLockedError);
    await expect(store.snapshot(1, {})).rejects.toThrow(/no longer held/);
    await store.close();
    const again = await FileStore.open(dir);
    expect((await again.load()).events.map((e) => e.id)).toEqual(["e1"]);
    await again.close();
  });

  it("(d) two concurrent opens racing to recover the same stale lock: exactly one wins", async () => {
    await seed(1);
    await writeFile(
      join(dir, "LOCK"),
      JSON.stringify({ pid: deadPid(), hostname: hostname(), token: "old", acquiredAt: "x" }),
    );
    const results = await Promise.allSettled([FileStore.open(dir), FileStore.open(dir), FileStore.open(dir)]);
    const opened = results.filter((r) => r.status === "fulfilled");
    expect(opened).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(StoreLockedError);
    const winner = (opened[0] as PromiseFulfilledResult<FileStore>).value;
    await winner.append([ev(2)]);
    await winner.close();
    const again = await FileStore.open(dir);
    expect((await again.load()).events.map((e) => e.id)).toEqual(["e1", "e2"]);
    await again.close();
  });

  it("a path that is not a directory is a typed StoreError", async () => {
    const file = join(dir, "plain-file");
    await writeFile(file, "x");
    const err = await FileStore.open(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as Error).message).toMatch(/must be a directory/);
  });

  it("rejects bad options with a ValidationError", async () => {
    await expect(FileStore.open(dir, { snapshotEvery: 0 })).rejects.toThrow(/FileStore options\.snapshotEvery/);
    await expect(FileStore.open("")).rejects.toThrow(/dir/);
  });
});

describe("FileStore: crash safety", () => {
  /**
   * (a) A writer child appends batches, prints each id after append() resolves, applies them to a
   * real OnlineLearner and snapshots its state periodically; it is killed with SIGKILL mid-stream
   * (appends and snapshots in flight). Every acknowledged id must survive, the store must reopen
   * (recovering the dead writer's lock), loading twice must agree, and the learner restored from
   * snapshot + journal must equal one rebuilt from scratch on the same events.
   */
  it.each([
    { batch: 1, snapshotEvery: 7, killAfter: 60 },
    { batch: 5, snapshotEvery: 20, killAfter: 120 },
  ])(
    "every acknowledged event survives SIGKILL and the posterior reloads (batch $batch, snapshot every $snapshotEvery)",
    async ({ batch, snapshotEvery, killAfter }) => {
      const acked = await runWriterUntilKilled(dir, batch, snapshotEvery, killAfter);
      expect(acked.length).toBeGreaterThanOrEqual(killAfter);

      const store = await FileStore.open(dir);
      expect(store.recovery.staleLock?.pid).toBeGreaterThan(0);
      const first = await store.load();
      await store.close();
      const reopened = await FileStore.open(dir);
      const second = await reopened.load();
      expect(second).toEqual(first);
      expect(first.snapshot).toBeDefined();

      // Restore as an application would: snapshot state, then the journal tail.
      const restored = OnlineLearner.fromState(first.snapshot!.state as LearnerState, LEARNER_OPTIONS);
      for (const e of first.events) expect(restored.observe(e)).toBe("applied");
      // Every stored event, in order, is exactly the writer's sequence evt-0 .. evt-(seq-1).
      const snapshotIds = (first.snapshot!.state as LearnerState).seenIds;
      expect(snapshotIds).toHaveLength(first.snapshot!.seq);
      const stored = [...snapshotIds, ...first.events.map((e) => e.id)];
      expect(stored).toEqual(Array.from({ length: first.seq }, (_, i) => `evt-${i}`));
      const have = new Set(stored);
      expect(acked.filter((id) => !have.has(id))).toEqual([]);
      for (const id of acked) expect(reopened.has(id)).toBe(true);

      // The same posterior as a learner fed the same events from scratch.
      const scratch = new OnlineLearner(KNOWN, LEARNER_OPTIONS);
      for (let i = 0; i < first.seq; i++) scratch.observe(crashEvent(i));
      expectClose(restored.exportState(), scratch.exportState(), "state");

      // The store keeps working after the crash; a replayed acknowledged event is a duplicate.
      expect(await reopened.append([crashEvent(0), crashEvent(first.seq)])).toMatchObject({
        appended: 1,
        duplicates: ["evt-0"],
        seq: first.seq + 1,
      });
      await reopened.close();
    },
  );
});

/** Deep equality with numbers compared to 1e-9 (relative). */
function expectClose(actual: unknown, expected: unknown, path: string): void {
  if (typeof expected === "number") {
    expect(typeof actual, path).toBe("number");
    expect(Math.abs((actual as number) - expected), path).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
  } else if (Array.isArray(expected)) {
    expect(Array.isArray(actual) && actual.length, path).toBe(expected.length);
    expected.forEach((v, i) => expectClose((actual as unknown[])[i], v, `${path}.${i}`));
  } else if (expected && typeof expected === "object") {
    expect(Object.keys(actual as object).sort(), path).toEqual(Object.keys(expected).sort());
    for (const [k, v] of Object.entries(expected))
      expectClose((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
  } else {
    expect(actual, path).toEqual(expected);
  }
}

function runWriterUntilKilled(
  storeDir: string,
  batch: number,
  snapshotEvery: number,
  killAfter: number,
): Promise<string[]> {
  return killAfterAcks(CHILD, ["write", storeDir, String(batch), String(snapshotEvery)], killAfter);
}
