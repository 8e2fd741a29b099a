import { readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileStore } from "../../adapters/stores/file.js";
import { StoreLockedError } from "../../src/errors.js";
import { rejectedWith } from "../errors.js";
import { tempDirEachTest } from "./fixtures/temp-dir.js";

let dir: string;
tempDirEachTest("irt-lock-reuse-", (d) => (dir = d));

/** The LOCK an earlier process with this very pid left when it was killed (a container restarted as pid 1 again). */
async function lockOfEarlierProcessWithMyPid(): Promise<void> {
  const info = {
    pid: process.pid,
    hostname: hostname(),
    token: "token-of-the-killed-process",
    acquiredAt: "2026-12-04T20:00:00.000Z",
  };
  await writeFile(join(dir, "LOCK"), `${JSON.stringify(info)}\n`);
}

describe("FileStore lock after a restart that reuses the pid", () => {
  it("a lock naming this process's pid with another token is recovered and reported, not taken for a live holder", async () => {
    const first = await FileStore.open(dir);
    await first.append([{ id: "e1", model: "m", alpha: [0.5, -1], beta: 0.2, y: 1, at: 1 }]);
    await first.close();
    await lockOfEarlierProcessWithMyPid(); // SIGKILL: the lock stayed
    const warnings: string[] = [];
    const store = await FileStore.open(dir, { onWarning: (w) => warnings.push(w) });
    expect(store.recovery.staleLock).toMatchObject({ pid: process.pid, token: "token-of-the-killed-process" });
    expect(warnings.join("\n")).toMatch(/earlier process with this pid .* after a restart/);
    expect((await store.load()).seq).toBe(1);
    const lock = JSON.parse(await readFile(join(dir, "LOCK"), "utf8")) as { token: string };
    expect(lock.token).not.toBe("token-of-the-killed-process");
    await store.close();
  });

  it("a lock held by a live handle of this same process is still refused", async () => {
    const store = await FileStore.open(dir);
    const err = await rejectedWith(StoreLockedError, FileStore.open(dir));
    expect(err).toBeInstanceOf(StoreLockedError);
    expect(err.message).toMatch(new RegExp(`process ${process.pid}`));
    await store.close();
  });
});

describe("the lock under concurrent acquirers of one process", () => {
  it("is held by one at a time (a fresh lock was taken for an earlier process's and broken)", async () => {
    const { acquireStoreLock } = await import("../../adapters/stores/lock.js");
    let holders = 0;
    let most = 0;
    let taken = 0;
    const worker = async () => {
      for (let k = 0; k < 15; k++) {
        for (;;) {
          try {
            const lock = await acquireStoreLock(dir);
            holders++;
            most = Math.max(most, holders);
            taken++;
            await new Promise((r) => setImmediate(r));
            holders--;
            await lock.release();
            break;
          } catch (error) {
            if (!(error instanceof StoreLockedError)) throw error;
            await new Promise((r) => setImmediate(r));
          }
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(taken).toBe(120);
    expect(most).toBe(1);
  });
});
