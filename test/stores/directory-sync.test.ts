import { join } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { FileStore } from "../../adapters/stores/file.js";
import { tempDirEachTest } from "./fixtures/temp-dir.js";

/** Directories fsynced through node:fs/promises (FileStore opens a directory read-only and syncs it). */
const synced = vi.hoisted(() => [] as string[]);

vi.mock("node:fs/promises", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs/promises")>();
  const open: typeof fs.open = async (path, flags, mode) => {
    const handle = await fs.open(path, flags, mode);
    if ((await handle.stat()).isDirectory()) {
      const sync = handle.sync.bind(handle);
      handle.sync = async () => {
        synced.push(String(path));
        return sync();
      };
    }
    return handle;
  };
  return { ...fs, open };
});

let root: string;
tempDirEachTest("irt-store-dirsync-", (d) => (root = d));
beforeEach(() => {
  synced.length = 0;
});

describe.skipIf(process.platform === "win32")("FileStore: directory creation is durable", () => {
  it("fsyncs the parent of every directory it creates, so the new store directory survives a power loss", async () => {
    const dir = join(root, "a", "b");
    const store = await FileStore.open(dir);
    await store.close();
    expect(synced).toContain(root); // holds the new entry "a"
    expect(synced).toContain(join(root, "a")); // holds the new entry "b"
    expect(synced).toContain(dir); // holds the new journal
  });

  it("does not touch the parent when the directory already exists", async () => {
    const store = await FileStore.open(root);
    await store.close();
    synced.length = 0;
    const again = await FileStore.open(root);
    await again.close();
    expect(synced).not.toContain(join(root, ".."));
    expect(synced.every((d) => d === root)).toBe(true);
  });
});
