import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { FileStore } from "../../adapters/stores/file.js";
import { StoreError } from "../../src/errors.js";
import { rejectedWith } from "../errors.js";
import { snapshotNeedsReopen } from "../../src/learning/store.js";
import { numberedEvent as ev } from "./fixtures/events.js";
import { tempDirEachTest } from "./fixtures/temp-dir.js";

/** Injected failures of node:fs/promises: `open` of a temp file whose name starts with a prefix, `rename` onto a name. */
const failing = vi.hoisted(() => ({
  openTemp: undefined as string | undefined,
  renameTo: undefined as string | undefined,
}));

vi.mock("node:fs/promises", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs/promises")>();
  const injected = (what: string) => Object.assign(new Error(`injected ${what} failure`), { code: "EIO" });
  const open: typeof fs.open = async (path, flags, mode) => {
    if (failing.openTemp !== undefined && basename(String(path)).startsWith(`${failing.openTemp}.tmp-`))
      throw injected("open");
    return fs.open(path, flags, mode);
  };
  const rename: typeof fs.rename = async (from, to) => {
    if (failing.renameTo !== undefined && basename(String(to)) === failing.renameTo) throw injected("rename");
    return fs.rename(from, to);
  };
  return { ...fs, open, rename };
});

let dir: string;
tempDirEachTest("irt-snapfail-", (d) => (dir = d));
beforeEach(() => {
  failing.openTemp = undefined;
  failing.renameTo = undefined;
});

/** A store holding e1..e3, snapshot due after every event. */
async function seeded(): Promise<FileStore> {
  const store = await FileStore.open(dir, { snapshotEvery: 1 });
  for (let i = 1; i <= 3; i++) await store.append([ev(i)]);
  return store;
}

/** Reopens the store and returns what a restart would load, and what open found. */
async function reopened(): Promise<{ snapshotSeq?: number; ids: string[]; seq: number; covered: number }> {
  const store = await FileStore.open(dir);
  try {
    const loaded = await store.load();
    return {
      snapshotSeq: loaded.snapshot?.seq,
      ids: loaded.events.map((e) => e.id),
      seq: loaded.seq,
      covered: store.recovery.coveredBySnapshot,
    };
  } finally {
    await store.close();
  }
}

describe("FileStore: a failed snapshot before the journal is compacted leaves the handle usable", () => {
  it("snapshot.json cannot be replaced (a directory in its place): the journal keeps every event, appends go on, a later snapshot succeeds", async () => {
    const store = await seeded();
    await mkdir(join(dir, "snapshot.json"));
    await writeFile(join(dir, "snapshot.json", "x"), "x");
    const error = await rejectedWith(StoreError, store.snapshot(3, { n: 3 }));
    expect(error.message).toMatch(/not compacted.*stays usable/);
    expect(error.details).toMatchObject({ reopen: false });
    expect(snapshotNeedsReopen(error)).toBe(false); // what the router and irt-router calibrate --store read
    const r = await store.append([ev(4)]);
    expect(r).toMatchObject({ appended: 1, seq: 4, snapshotDue: true });
    expect((await store.load()).events.map((e) => e.id)).toEqual(["e1", "e2", "e3", "e4"]);
    expect((await readdir(dir)).filter((name) => name.includes(".tmp-"))).toEqual([]); // the temp file was removed

    await rm(join(dir, "snapshot.json"), { recursive: true });
    await store.snapshot(4, { n: 4 });
    await store.append([ev(5)]);
    await store.close();
    expect(await reopened()).toEqual({ snapshotSeq: 4, ids: ["e5"], seq: 5, covered: 0 });
  });

  it("the compacted journal cannot be written after the new snapshot is in place: usable, and a reopen skips what the snapshot covers", async () => {
    const store = await seeded();
    failing.openTemp = "journal.jsonl";
    const error = await rejectedWith(StoreError, store.snapshot(2, { n: 2 }));
    expect(error.message).toMatch(/injected open failure.*stays usable/);
    failing.openTemp = undefined;
    await store.append([ev(4)]);
    expect((await store.load()).events.map((e) => e.id)).toEqual(["e1", "e2", "e3", "e4"]);
    await store.close();
    // On disk: the new snapshot beside the whole journal, the crash window open recovers from.
    expect(await reopened()).toEqual({ snapshotSeq: 2, ids: ["e3", "e4"], seq: 4, covered: 2 });
  });
});

describe("FileStore: a snapshot that fails once the journal's replacement started", () => {
  it("refuses appends until the store is reopened, and the reopened store has every acknowledged event", async () => {
    const store = await seeded();
    failing.renameTo = "journal.jsonl";
    const error = await rejectedWith(StoreError, store.snapshot(3, { n: 3 }));
    expect(error.message).toMatch(/compacting the journal.*close it and reopen/);
    expect(error.details).toMatchObject({ reopen: true });
    expect(snapshotNeedsReopen(error)).toBe(true);
    failing.renameTo = undefined;
    await expect(store.append([ev(4)])).rejects.toThrow(/hit an I\/O error earlier.*reopen/);
    await store.close();
    expect(await reopened()).toEqual({ snapshotSeq: 3, ids: [], seq: 3, covered: 3 });
    expect((await readFile(join(dir, "journal.jsonl"), "utf8")).split("\n")).toHaveLength(5); // header, 3 events, ""
  });
});
