import { readFile, rm, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileStore } from "../../adapters/stores/file.js";
import { StoreCorruptedError } from "../../src/errors.js";
import { rejectedWith } from "../errors.js";
import { numberedEvent as ev } from "./fixtures/events.js";
import { tempDirEachTest } from "./fixtures/temp-dir.js";

let dir: string;
tempDirEachTest("irt-recovery-", (d) => (dir = d));

const journal = () => join(dir, "journal.jsonl");

/** A store holding e1..e40, one append each, closed cleanly (every event acknowledged). */
async function seed(n = 40): Promise<void> {
  const store = await FileStore.open(dir);
  for (let i = 1; i <= n; i++) await store.append([ev(i)]);
  await store.close();
}

describe("FileStore recovery tells the truth about damage from outside", () => {
  it("a zeroed tail that spans acknowledged lines is refused, naming the events lost, and changes nothing", async () => {
    await seed();
    const buf = await readFile(journal());
    buf.fill(0, buf.length - 465);
    await writeFile(journal(), buf);
    const err = await rejectedWith(StoreCorruptedError, FileStore.open(dir));
    expect(err).toBeInstanceOf(StoreCorruptedError);
    expect(err.message).toMatch(/zero bytes/);
    expect(err.message).toMatch(/events \d+\.\.40 are lost/);
    expect(err.message).toMatch(/repairTail: true/);
    expect(err.details?.lost).toMatchObject({ to: 40 });
    expect(await readFile(journal())).toEqual(buf);
  });

  it("a truncation of N bytes inside acknowledged lines is refused, not cut as a torn line", async () => {
    await seed();
    const size = (await readFile(journal())).length;
    await truncate(journal(), size - 2187 > 0 ? size - 2187 : Math.floor(size / 2));
    const err = await rejectedWith(StoreCorruptedError, FileStore.open(dir));
    expect(err.message).toMatch(
      /acknowledged\.json records events up to 40 as acknowledged: events \d+\.\.40 are lost/,
    );
  });

  it("a truncation at a line boundary is detected by the acknowledged count, and repairTail reports the loss", async () => {
    await seed();
    const text = await readFile(journal(), "utf8");
    const lines = text.split("\n").slice(0, -1);
    await writeFile(journal(), lines.slice(0, 1 + 34).join("\n") + "\n"); // header + e1..e34
    const err = await rejectedWith(StoreCorruptedError, FileStore.open(dir));
    expect(err.details?.lost).toEqual({ from: 35, to: 40 });
    const warnings: string[] = [];
    const store = await FileStore.open(dir, { repairTail: true, onWarning: (w) => warnings.push(w) });
    expect(store.recovery.lostEvents).toEqual({ from: 35, to: 40 });
    expect(warnings.join("\n")).toMatch(/events 35\.\.40, acknowledged earlier, are not in .* and are lost/);
    expect((await store.load()).seq).toBe(34);
    await store.append([ev(41)]);
    await store.close();
    // The loss was accepted once: the mark now follows the journal, and the next open is clean.
    const again = await FileStore.open(dir);
    expect(again.recovery.lostEvents).toBeUndefined();
    expect((await again.load()).seq).toBe(35);
    await again.close();
  });

  it("a torn last line of a writer that died mid-append (no newline, no zero bytes) is still cut without asking", async () => {
    await seed(3);
    const store = await FileStore.open(dir);
    await store.append([ev(4)]);
    // no close: the process dies; its last append was acknowledged, then a further append tore
    const text = await readFile(journal(), "utf8");
    await writeFile(journal(), text + text.split("\n").at(-2)!.slice(0, 30));
    await rm(join(dir, "LOCK"));
    const reopened = await FileStore.open(dir);
    expect(reopened.recovery.tornTail).toEqual({ line: 6, bytes: 30 });
    expect((await reopened.load()).seq).toBe(4);
    await reopened.close();
  });
});
