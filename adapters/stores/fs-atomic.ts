/**
 * Durable file operations of the file store: atomic replacement (temp file, fsync, rename, directory fsync), full
 * positional writes, directory creation that survives a power loss, and removal of an interrupted write's temp files.
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, rename, unlink, type FileHandle } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { refusePseudoFilesystem } from "../out-dir.js";

/** Marks the temp file of an atomic write: `<name>.tmp-<pid>-<random>`. */
export const TEMP_MARK = ".tmp-";

/** Writes all of `buf` at `position` (a positional write may write less than asked). */
export async function writeFully(handle: FileHandle, buf: Buffer, position: number): Promise<void> {
  let offset = 0;
  while (offset < buf.length) {
    const { bytesWritten } = await handle.write(buf, offset, buf.length - offset, position + offset);
    if (bytesWritten <= 0) throw new Error("write made no progress");
    offset += bytesWritten;
  }
}

/** Write `name` in `dir` atomically: temp file, fsync, rename over, fsync the directory. */
export async function atomicWrite(dir: string, name: string, content: string): Promise<void> {
  await renameTemp(await writeTemp(dir, name, content), dir, name);
  await fsyncDir(dir);
}

/** Writes `content` to a new temp file for `name` in `dir` and fsyncs it; returns its path (removed again on failure). */
export async function writeTemp(dir: string, name: string, content: string): Promise<string> {
  const tmp = join(dir, `${name}${TEMP_MARK}${process.pid}-${randomBytes(4).toString("hex")}`);
  const handle = await open(tmp, "w");
  try {
    await handle.writeFile(content, "utf8");
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await handle.close();
  return tmp;
}

/** Renames the temp file `tmp` over `name` in `dir` (removing it if the rename fails); the caller fsyncs the directory. */
export async function renameTemp(tmp: string, dir: string, name: string): Promise<void> {
  try {
    await rename(tmp, join(dir, name));
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/**
 * Create `dir` (and missing parents). When something was created, fsync the parent of each new directory, deepest
 * first, so that the store directory itself survives a power loss (its own entries are synced by each write).
 */
export async function makeDirectory(dir: string): Promise<void> {
  await refusePseudoFilesystem(dir);
  const first = await mkdir(dir, { recursive: true });
  if (first === undefined) return;
  const top = dirname(resolve(first));
  for (let d = resolve(dir); d !== top && dirname(d) !== d; d = dirname(d)) await fsyncDir(dirname(d));
}

export async function fsyncDir(dir: string): Promise<void> {
  if (process.platform === "win32") return; // directories cannot be opened for fsync on Windows
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function removeTempFiles(dir: string, names: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir)) {
    if (names.some((n) => name.startsWith(`${n}${TEMP_MARK}`))) {
      await unlink(join(dir, name)).catch(() => undefined);
      removed.push(name);
    }
  }
  return removed;
}
