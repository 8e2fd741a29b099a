import { readdir, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileStore } from "../../adapters/stores/file.js";
import { MemoryStore } from "../../adapters/stores/memory.js";
import { FeedbackError, StoreError, ValidationError } from "../../src/errors.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import { OnlineLearner } from "../../src/learning/learner.js";
import type { AbilityStore } from "../../src/learning/store.js";
import { rejectedWith, thrownBy } from "../errors.js";
import { tempDirEachTest } from "./fixtures/temp-dir.js";

let dir: string;
tempDirEachTest("irt-store-robust-", (d) => (dir = d));

const ev = (i: number, patch: Record<string, unknown> = {}): FeedbackEvent =>
  ({
    id: `e${i}`,
    model: "a",
    alpha: [0.5, -1, 0.2, 0.1],
    beta: 0.25,
    y: i % 2,
    at: 1000 + i,
    ...patch,
  }) as FeedbackEvent;

const stores: [string, () => Promise<AbilityStore>, (s: AbilityStore) => Promise<AbilityStore>][] = [
  ["MemoryStore", async () => new MemoryStore(), async (s) => s],
  [
    "FileStore",
    () => FileStore.open(dir),
    async (s) => {
      await s.close();
      return FileStore.open(dir);
    },
  ],
];

describe("FileStore: a missing journal beside a snapshot", () => {
  it("is a StoreError naming the journal, not a silent drop of the events acknowledged after the snapshot", async () => {
    const store = await FileStore.open(dir);
    await store.append([ev(1), ev(2)]);
    await store.snapshot(2, { n: 2 });
    await store.append([ev(3)]); // acknowledged, only in the journal
    await store.close();
    await unlink(join(dir, "journal.jsonl"));
    const err = await rejectedWith(StoreError, FileStore.open(dir));
    expect(err).toBeInstanceOf(StoreError);
    expect(err.file).toBe(join(dir, "journal.jsonl"));
    expect(err.message).toMatch(/journal\.jsonl is missing although .*snapshot\.json.* exists/);
    // Nothing was created or changed, and the lock was released (a second open reports the same problem).
    expect((await readdir(dir)).sort()).toEqual(["acknowledged.json", "snapshot.json"]);
    await expect(FileStore.open(dir)).rejects.toThrow(/is missing although/);
    // The repair the message gives, pasted as printed (its last line), opens the store at the snapshot.
    await writeFile(join(dir, "journal.jsonl"), `${err.message.split("\n").at(-1)}\n`);
    await expect(FileStore.open(dir)).rejects.toThrow(/events 3\.\.3 are lost/); // the acknowledged count knows of event 3
    const repaired = await FileStore.open(dir, { repairTail: true });
    expect(repaired.recovery.lostEvents).toEqual({ from: 3, to: 3 });
    expect((await repaired.load()).seq).toBe(2);
    await repaired.close();
  });

  it("a fresh directory still starts an empty journal", async () => {
    const store = await FileStore.open(dir);
    expect((await store.load()).seq).toBe(0);
    await store.close();
  });
});

describe("store options are strict", () => {
  it("MemoryStore and FileStore reject an unknown key with a ValidationError naming it", async () => {
    const mem = thrownBy(ValidationError, () => new MemoryStore({ snapshotEvry: 5 } as never));
    expect(mem.path).toBe("MemoryStore options.snapshotEvry");
    expect(mem.message).toMatch(/"snapshotEvry"/);
    const file = await rejectedWith(
      ValidationError,
      FileStore.open(join(dir, "s"), { snapshotEvery: 10, onWarn: () => undefined } as never),
    );
    expect(file).toBeInstanceOf(ValidationError);
    expect(file.path).toBe("FileStore options.onWarn");
    expect(await readdir(dir)).toEqual([]); // nothing was created
    // Known keys still work, including an explicit undefined.
    expect(() => new MemoryStore({ snapshotEvery: undefined })).not.toThrow();
  });
});

describe.each(stores)("%s validates exactly what it writes", (_name, create, reopen) => {
  it("an event whose toJSON changes its shape is validated in the stored shape", async () => {
    let store = await create();
    const sneaky = { ...ev(1), toJSON: () => ({ id: "e1", model: "a" }) };
    const err = await rejectedWith(FeedbackError, store.append([sneaky as FeedbackEvent]));
    expect(err).toBeInstanceOf(FeedbackError);
    expect(err.path).toBe("events.0.alpha");
    expect(err.message).toMatch(/as it would be stored/);
    // An alpha array whose own toJSON would write something else.
    const alpha = Object.assign([0.5, -1, 0.2, 0.1], { toJSON: () => "not numbers" });
    await expect(store.append([{ ...ev(2), alpha } as FeedbackEvent])).rejects.toThrow(/events\.0\.alpha/);
    expect((await store.load()).seq).toBe(0);
    // A toJSON giving a valid event: the stored (and deduped) event is the serialised one.
    const renamed = { ...ev(3), toJSON: () => ev(4) };
    expect((await store.append([renamed as FeedbackEvent])).appended).toBe(1);
    expect((await store.append([ev(4)])).duplicates).toEqual(["e4"]);
    expect((await store.append([ev(3)])).appended).toBe(1);
    store = await reopen(store);
    expect((await store.load()).events.map((e) => e.id)).toEqual(["e4", "e3"]);
    await store.close();
  });

  it("agrees with the learner on whitespace ids and models and on the item-parameter bound", async () => {
    const store = await create();
    const learner = new OnlineLearner([
      { id: "a", ability: [0.1, 0.2, 0.3, 0.4] },
      { id: "b", ability: [0.4, 0.3, 0.2, 0.1] },
    ]);
    const cases: [Record<string, unknown>, string | undefined][] = [
      [{ id: "   " }, "id"],
      [{ model: "\t " }, "model"],
      [{ alpha: [0.5, -1, 1e200, 0.1] }, "alpha"],
      [{ alpha: [0.5, -1, 9.95, 0.1] }, "alpha"], // |alpha| = 10.01, above DEFAULT_ITEM_BOUNDS.alphaNorm (10)
      [{ alpha: [0.5, -1, 9.8, 0.1] }, undefined],
      [{ beta: -8 }, undefined],
      [{ beta: 8.01 }, "beta"],
      [{ id: " padded " }, undefined],
    ];
    let k = 10;
    for (const [patch, field] of cases) {
      const e = ev(k++, patch);
      const storeErr = await store.append([e]).then(
        () => undefined,
        (err: unknown) => err,
      );
      const learnerErr = (() => {
        try {
          learner.observe(e);
        } catch (err) {
          return err;
        }
      })();
      if (field === undefined) {
        expect(storeErr, JSON.stringify(patch)).toBeUndefined();
        expect(learnerErr, JSON.stringify(patch)).toBeUndefined();
      } else {
        expect(storeErr, JSON.stringify(patch)).toBeInstanceOf(FeedbackError);
        expect((storeErr as FeedbackError).path).toBe(`events.0.${field}`);
        expect(learnerErr, JSON.stringify(patch)).toBeInstanceOf(FeedbackError);
        expect((learnerErr as FeedbackError).path).toBe(`event.${field}`);
      }
    }
    await store.close();
  });
});

describe("FileStore journal lines", () => {
  it("the written line is the JSON round trip that was validated", async () => {
    const store = await FileStore.open(dir);
    const withDate = { ...ev(1), seenAt: new Date(0) };
    await store.append([withDate as FeedbackEvent]);
    await store.close();
    const line = (await readFile(join(dir, "journal.jsonl"), "utf8")).split("\n")[1]!;
    expect(JSON.parse(line.slice(17)).event).toEqual({ ...ev(1), seenAt: "1970-01-01T00:00:00.000Z" });
  });
});
