import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileStore } from "../../adapters/stores/file.js";
import { MemoryStore } from "../../adapters/stores/memory.js";
import { ValidationError } from "../../src/errors.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import { OnlineLearner } from "../../src/learning/learner.js";
import { capErrorText, MAX_ERROR_TEXT } from "../../src/core/contracts/error-text.js";
import { thrownBy } from "../errors.js";
import { tempDirEachTest } from "./fixtures/temp-dir.js";

let dir: string;
tempDirEachTest("irt-privacy-", (d) => (dir = d));

const EMAIL = "alice@example.com";
const known = [
  { id: "a", ability: [0.1, 0.2] },
  { id: "b", ability: [0.3, -0.1] },
];
const ev = (i: number): FeedbackEvent => ({
  id: `${EMAIL}:d${i}`,
  model: "a",
  alpha: [0.5, -1],
  beta: 0.25,
  y: i % 2,
  runId: EMAIL,
  source: EMAIL,
  decisionId: `d${i}`,
  at: 1000 + i,
});

async function filesText(): Promise<string> {
  const names = await readdir(dir);
  return (await Promise.all(names.map((n) => readFile(join(dir, n), "utf8").catch(() => "")))).join("\n");
}

describe("hashRunIds: run ids never reach the disk as given", () => {
  for (const option of [true, "a-secret-key-of-32-characters!!!"] as const) {
    it(`FileStore with hashRunIds ${typeof option === "string" ? "(a key)" : "true"} keeps pseudonyms in the journal and the snapshot`, async () => {
      const store = await FileStore.open(dir, { hashRunIds: option, snapshotEvery: 2 });
      const learner = new OnlineLearner(known);
      const r = await store.append([ev(1), ev(2)]);
      for (const e of [ev(1), ev(2)]) learner.observe(e);
      await store.snapshot(r.seq, learner.exportState());
      await store.append([ev(3)]);
      expect(store.has(ev(3).id)).toBe(true); // looked up by the id as given
      expect((await store.append([ev(3)])).duplicates).toEqual([ev(3).id]); // reported as given
      await store.close();
      const text = await filesText();
      expect(text).not.toContain(EMAIL);
      expect(text).toMatch(/"runId":"h:[0-9a-f]{32}"/);
      const reopened = await FileStore.open(dir, { hashRunIds: option });
      const loaded = await reopened.load();
      expect(loaded.events.map((e) => e.decisionId)).toEqual(["d3"]);
      // The restored learner and the journal name events alike: a retried event stays a duplicate.
      const restored = OnlineLearner.restore(loaded, known);
      expect(restored.hasSeen(loaded.events[0]!.id)).toBe(true);
      await reopened.close();
    });
  }

  it("MemoryStore takes the same option; a short key is a ValidationError naming it", async () => {
    const store = new MemoryStore({ hashRunIds: true });
    await store.append([ev(1)]);
    const { events } = await store.load();
    expect(JSON.stringify(events)).not.toContain(EMAIL);
    expect(store.has(ev(1).id)).toBe(true);
    const err = thrownBy(ValidationError, () => new MemoryStore({ hashRunIds: "short" }));
    expect(err.path).toBe("MemoryStore options.hashRunIds");
  });

  it("without hashRunIds the run id is stored as given (documented default)", async () => {
    const store = await FileStore.open(dir);
    await store.append([ev(1)]);
    await store.close();
    expect(await filesText()).toContain(EMAIL);
  });
});

describe("stored error text is capped", () => {
  it("cuts provider error text to MAX_ERROR_TEXT characters and says how much was cut", () => {
    const long = `BadRequestError (400): prompt was: ${"secret ".repeat(200)}`;
    const cut = capErrorText(long);
    expect(cut.length).toBeLessThan(MAX_ERROR_TEXT + 30);
    expect(cut).toMatch(/\.\.\. \[cut \d+ chars\]$/);
    expect(capErrorText("short")).toBe("short");
  });
});
