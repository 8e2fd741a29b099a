import { randomUUID } from "node:crypto";
import { open, readFile, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { StoreLockedError } from "../../src/errors.js";

/** Contents of a store's LOCK file. */
export interface LockInfo {
  pid: number;
  hostname: string;
  /** Random per-acquisition token: lets a holder check the lock is still its own. */
  token: string;
  acquiredAt: string;
}

/** An acquired lock. */
export interface StoreLock {
  readonly path: string;
  readonly info: LockInfo;
  /** The stale lock this acquisition replaced (its holder was dead), if any. */
  readonly replacedStale?: LockInfo;
  /** Throw STORE_LOCKED unless the LOCK file still holds this acquisition's token. */
  verify(): Promise<void>;
  /** Remove the LOCK file if it is still ours. */
  release(): Promise<void>;
}

/**
 * Tokens of the locks this process holds, shared by every copy of this module loaded in the process (a global
 * symbol). A LOCK naming this process's pid with a token not in it was left by an earlier process that had the same
 * pid: after a container restart the application is often pid 1 again, so a pid check alone would take the old lock
 * for a live one forever.
 */
const heldTokens: Set<string> = ((globalThis as Record<symbol, unknown>)[Symbol.for("irt-router.store-lock-tokens")] ??=
  new Set<string>()) as Set<string>;

/** A LOCK file that is not valid JSON and older than this is treated as debris of a crash during creation. */
const UNREADABLE_LOCK_GRACE_MS = 10_000;

/**
 * Take the exclusive lock of the store in `dir`: a `LOCK` file created with O_EXCL holding
 * `{ pid, hostname, token }`. If it exists and its holder is a dead process on this host (or this process's own pid
 * with a token no handle of this process holds: an earlier process with the same pid, as after a container restart), the
 * stale lock is removed (under a `LOCK.break` guard so two recoverers cannot both win) and the
 * acquisition retried; a live holder, or a holder on another host, gives `StoreLockedError`.
 */
export async function acquireStoreLock(dir: string): Promise<StoreLock> {
  const path = join(dir, "LOCK");
  let replacedStale: LockInfo | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    const info: LockInfo = {
      pid: process.pid,
      hostname: hostname(),
      token: randomUUID(),
      acquiredAt: new Date().toISOString(),
    };
    // Held from before the file exists: another acquirer of this process that reads the new LOCK before this one
    // returns must see a live holder, not an earlier process's lock (it broke it, and both wrote: outcomes were lost).
    heldTokens.add(info.token);
    let created = false;
    try {
      created = await createExclusive(path, JSON.stringify(info) + "\n");
    } finally {
      if (!created) heldTokens.delete(info.token);
    }
    if (created) return makeLock(path, info, replacedStale);
    const holder = await readLock(path);
    if (holder === "missing") continue; // released between our attempts: retry
    if (holder === "unreadable") {
      if (!(await olderThan(path, UNREADABLE_LOCK_GRACE_MS))) throw lockedError(path, undefined);
      await breakLock(path, "unreadable");
      continue;
    }
    if (!isStale(holder)) throw lockedError(path, holder);
    await breakLock(path, holder);
    replacedStale = holder;
  }
  throw new StoreLockedError(
    `Could not take the lock ${path}: it kept changing hands. Another process is opening this store; retry.`,
    {
      file: path,
    },
  );
}

function makeLock(path: string, info: LockInfo, replacedStale: LockInfo | undefined): StoreLock {
  return {
    path,
    info,
    replacedStale,
    async verify() {
      const now = await readLock(path);
      if (typeof now === "string" || now.token !== info.token) {
        throw new StoreLockedError(
          `This store's lock ${path} is no longer held by this handle (it was ${now === "missing" ? "deleted" : "replaced"} from outside). ` +
            `Nothing was written. Close this handle and reopen the store; make sure only one process writes to it.`,
          { file: path, details: { holder: typeof now === "string" ? undefined : now } },
        );
      }
    },
    async release() {
      const now = await readLock(path);
      if (typeof now !== "string" && now.token === info.token) await unlinkIfExists(path);
      heldTokens.delete(info.token);
    },
  };
}

/**
 * True when the holder ran on this host and its process no longer exists, or when it names this process's pid but no
 * handle of this process holds it (an earlier process with the same pid: a restarted container's pid 1).
 */
function isStale(holder: LockInfo): boolean {
  if (holder.hostname !== hostname()) return false;
  if (holder.pid === process.pid) return !heldTokens.has(holder.token);
  return !pidAlive(holder.pid);
}

/** Whether a process with this pid exists (EPERM: exists but belongs to another user). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Remove a stale LOCK. `LOCK.break` (O_EXCL) serialises recoverers; the LOCK is removed only if
 * it still holds what was judged stale, so a fresh lock taken meanwhile is never deleted.
 */
async function breakLock(path: string, observed: LockInfo | "unreadable"): Promise<void> {
  const guard = `${path}.break`;
  const token = randomUUID();
  const mine = JSON.stringify({ pid: process.pid, hostname: hostname(), token });
  heldTokens.add(token);
  try {
    await takeGuard(path, guard, mine);
  } catch (err) {
    heldTokens.delete(token);
    throw err;
  }
  try {
    const now = await readLock(path);
    const same =
      observed === "unreadable" ? now === "unreadable" : typeof now !== "string" && now.token === observed.token;
    if (same) await unlinkIfExists(path);
  } finally {
    await unlinkIfExists(guard);
    heldTokens.delete(token);
  }
}

/** Creates the `LOCK.break` guard, replacing one left by a dead recoverer; STORE_LOCKED while a live one holds it. */
async function takeGuard(path: string, guard: string, mine: string): Promise<void> {
  if (!(await createExclusive(guard, mine))) {
    const other = await readLock(guard);
    const guardStale =
      other === "missing" ||
      (other === "unreadable" && (await olderThan(guard, UNREADABLE_LOCK_GRACE_MS))) ||
      (typeof other !== "string" && isStale(other));
    if (!guardStale)
      throw lockedError(path, typeof other === "string" ? undefined : other, "is recovering a stale lock of");
    await unlinkIfExists(guard);
    if (!(await createExclusive(guard, mine))) throw lockedError(path, undefined, "is recovering a stale lock of");
  }
}

function lockedError(path: string, holder: LockInfo | undefined, verb = "holds"): StoreLockedError {
  const who = holder
    ? `process ${holder.pid} on host "${holder.hostname}" (since ${holder.acquiredAt})`
    : "another process";
  const remote = holder && holder.hostname !== hostname();
  return new StoreLockedError(
    `The store is locked: ${who} ${verb} ${path}. Only one process may write to a store at a time. ` +
      (remote
        ? `The holder is on another host, so its liveness cannot be checked here; if it is certainly gone, delete ${path}.`
        : `Close the other process (or its store handle) and retry; a lock left by a dead process is recovered automatically.`),
    { file: path, details: { holder } },
  );
}

async function createExclusive(path: string, content: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, "wx");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

async function readLock(path: string): Promise<LockInfo | "missing" | "unreadable"> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "missing";
    throw err;
  }
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    if (typeof v.pid === "number" && typeof v.hostname === "string") {
      return {
        pid: v.pid,
        hostname: v.hostname,
        token: String(v.token ?? ""),
        acquiredAt: String(v.acquiredAt ?? "?"),
      };
    }
  } catch {
    // fall through
  }
  return "unreadable";
}

async function olderThan(path: string, ms: number): Promise<boolean> {
  try {
    return Date.now() - (await stat(path)).mtimeMs > ms;
  } catch {
    return true;
  }
}

async function unlinkIfExists(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}
