import { randomUUID } from "node:crypto";
import { open, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { IrtRouterError, StoreError, StoreLockedError, ValidationError } from "../../src/errors.js";
import type { RunOutcomeLog, RunOutcomePage, SharedRunOutcome } from "../../src/runs/run-outcome-log.js";
import { parseWith } from "../../src/util/validate.js";
import { atomicWrite, makeDirectory, writeFully } from "./fs-atomic.js";
import { acquireStoreLock } from "./lock.js";
import { cursorOf, outcomeLines, positionOf, takeRecord } from "./run-outcome-format.js";

/** The log file in the directory. */
export const RUN_OUTCOMES_FILE = "run-outcomes.jsonl";
/** Format tag of the file's header line. */
const FORMAT = "irt-router/run-outcomes@1";
/** Longest record line (bytes, without its newline): a valid outcome's JSON is under half of it. */
export const MAX_RECORD_BYTES = 1 << 20;
const HEADER_MAX = 256;

const fileRunOutcomeLogOptionsSchema = z.strictObject({
  /** How long an append waits for the lock another process (or handle) holds, in ms (default 10000). */
  lockWaitMs: z.number().int().min(0).max(600_000).default(10_000),
});

/** Options of {@link FileRunOutcomeLog.open}. Unknown keys are refused. */
export interface FileRunOutcomeLogOptions {
  /** How long an append waits for the lock another process (or handle) holds, in ms (default 10000). */
  readonly lockWaitMs?: number;
}

/**
 * A {@link RunOutcomeLog} in a directory that the processes of one host (or of a shared file system with working
 * `O_EXCL`) share: `run-outcomes.jsonl`, a header line naming the log, then one JSON outcome per line. An append
 * takes the directory's lock (the `LOCK` file of the file store's locking: a lock left by a dead process is
 * recovered; a live holder is waited for up to `lockWaitMs`), writes its lines at the end and fsyncs before it
 * resolves. A reader's cursor is a byte offset after a complete line: a last line without its newline (being written,
 * or torn by a crash) is not read until it is complete, and the next append cuts a torn one (it was never
 * acknowledged). A file replaced or wiped has a new header, and cursors of the old one read the new file from its start.
 * Give the log a directory of its own (not a `FileStore`'s).
 *
 * @example
 * ```ts
 * import { FileRunOutcomeLog } from "irt-router/adapters";
 * const log = await FileRunOutcomeLog.open("/var/lib/my-agents/run-outcomes");
 * setInterval(() => void router.runs.sync(log).catch((e) => console.warn(e.message)), 30_000);
 * ```
 */
export class FileRunOutcomeLog implements RunOutcomeLog {
  private closed = false;

  private constructor(
    /** The log's directory. */
    readonly dir: string,
    private readonly lockWaitMs: number,
  ) {}

  /** The log file. */
  get file(): string {
    return join(this.dir, RUN_OUTCOMES_FILE);
  }

  /**
   * Opens (creating if needed) the log in `dir`. A file there that is not a run-outcome log is a `StoreError`; a
   * directory that cannot be created or written, too.
   */
  static async open(dir: string, options: FileRunOutcomeLogOptions = {}): Promise<FileRunOutcomeLog> {
    const { lockWaitMs } = parseWith(fileRunOutcomeLogOptionsSchema, options, "FileRunOutcomeLog options");
    parseWith(z.string().min(1, "dir must be a non-empty path"), dir, "dir");
    const log = new FileRunOutcomeLog(dir, lockWaitMs);
    await log.io("open the run-outcome log", async () => {
      await makeDirectory(dir);
      await log.locked(() => log.header(true));
    });
    return log;
  }

  /**
   * Appends one line per outcome under the lock and fsyncs them (a malformed outcome is a `ValidationError`, and
   * nothing is written). Waits up to `lockWaitMs` for another writer; then a `StoreLockedError`.
   */
  async append(outcomes: readonly SharedRunOutcome[]): Promise<void> {
    this.ensureOpen();
    const lines = outcomeLines(outcomes);
    lines.forEach((line, k) => {
      if (Buffer.byteLength(line) > MAX_RECORD_BYTES) {
        throw new ValidationError(`outcomes.${k} is over ${MAX_RECORD_BYTES} bytes as JSON.`, {
          path: `outcomes.${k}`,
        });
      }
    });
    if (lines.length === 0) return;
    const buf = Buffer.from(lines.join("\n") + "\n", "utf8");
    await this.io(`append ${lines.length} run outcome(s) to`, () =>
      this.locked(async () => {
        await this.header(true);
        const handle = await open(this.file, "r+");
        try {
          const end = await completeEnd(handle);
          if (end < (await handle.stat()).size) await handle.truncate(end); // a torn line: never acknowledged
          await writeFully(handle, buf, end);
          await handle.sync();
        } finally {
          await handle.close();
        }
      }),
    );
  }

  /**
   * The records after `after` (at most about 1 MiB of them), each parsed from its line; a line that is not JSON, or
   * is over 1 MiB, is given in `unreadable`. A missing file reads as an empty log.
   */
  async read(after?: string): Promise<RunOutcomePage> {
    this.ensureOpen();
    return this.io("read", async () => {
      let handle: FileHandle;
      try {
        handle = await open(this.file, "r");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return { outcomes: [], cursor: after ?? "none:0" };
        throw error;
      }
      try {
        const header = await readHeader(handle, this.file);
        const size = (await handle.stat()).size;
        let from = Math.max(positionOf(after, header.id), header.bytes);
        if (from > size) from = header.bytes; // cut from outside: read it again from the start (readers dedupe)
        return await readPage(handle, from, size, header.id);
      } finally {
        await handle.close();
      }
    });
  }

  /** Ends this handle (it holds no file or lock between calls): further calls throw a `StoreError`. */
  async close(): Promise<void> {
    this.closed = true;
  }

  /** The header's log id; with `create`, a missing or empty file gets a new header first (under the lock). */
  private async header(create: boolean): Promise<string> {
    let handle: FileHandle | undefined;
    try {
      handle = await open(this.file, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || !create) throw error;
    }
    if (handle) {
      try {
        if ((await handle.stat()).size > 0 || !create) return (await readHeader(handle, this.file)).id;
      } finally {
        await handle.close();
      }
    }
    const id = randomUUID();
    await atomicWrite(this.dir, RUN_OUTCOMES_FILE, JSON.stringify({ format: FORMAT, log: id }) + "\n");
    return id;
  }

  /** Runs `fn` holding the directory's lock, waiting up to `lockWaitMs` for it. */
  private async locked<T>(fn: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.lockWaitMs;
    for (let wait = 2; ; wait = Math.min(wait * 2, 100)) {
      let lock;
      try {
        lock = await acquireStoreLock(this.dir);
      } catch (error) {
        if (!(error instanceof StoreLockedError) || Date.now() >= deadline) throw error;
        await new Promise((r) => setTimeout(r, wait * (0.5 + Math.random())));
        continue;
      }
      try {
        return await fn();
      } finally {
        await lock.release();
      }
    }
  }

  /** Runs `fn`, turning an I/O failure into a `StoreError` naming the file and what was being done. */
  private async io<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof IrtRouterError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      throw new StoreError(
        `Could not ${what} ${this.file}: ${(error as Error).message}${code ? ` (${code})` : ""}. ` +
          `The directory must be one this process can read and write.`,
        { file: this.file, cause: error },
      );
    }
  }

  private ensureOpen(): void {
    if (this.closed) throw new StoreError("This FileRunOutcomeLog was closed; open it again (FileRunOutcomeLog.open).");
  }
}

/** The header line: the log's id and the bytes it takes (its newline included); a StoreError when it is none. */
async function readHeader(handle: FileHandle, file: string): Promise<{ id: string; bytes: number }> {
  const buf = Buffer.alloc(HEADER_MAX);
  const { bytesRead } = await handle.read(buf, 0, HEADER_MAX, 0);
  const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
  let header: { format?: unknown; log?: unknown } | undefined;
  try {
    header = nl > 0 ? (JSON.parse(buf.toString("utf8", 0, nl)) as typeof header) : undefined;
  } catch {
    header = undefined;
  }
  if (header?.format !== FORMAT || typeof header.log !== "string" || !/^[A-Za-z0-9-]{1,100}$/.test(header.log)) {
    throw new StoreError(
      `${file} line 1 is not the header of an irt-router run-outcome log (${FORMAT}). ` +
        `Give the log a directory of its own, or move this file away.`,
      { file, line: 1 },
    );
  }
  return { id: header.log, bytes: nl + 1 };
}

/** The length of the file up to the end of its last complete line. */
async function completeEnd(handle: FileHandle): Promise<number> {
  const size = (await handle.stat()).size;
  const chunk = Buffer.alloc(64 * 1024);
  for (let end = size; end > 0;) {
    const start = Math.max(0, end - chunk.length);
    const { bytesRead } = await handle.read(chunk, 0, end - start, start);
    const nl = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (nl >= 0) return start + nl + 1;
    end = start;
  }
  return 0;
}

/** The complete lines from `from` (up to about 1 MiB), parsed, and the cursor after them. */
async function readPage(handle: FileHandle, from: number, size: number, id: string): Promise<RunOutcomePage> {
  const buf = Buffer.alloc(Math.min(MAX_RECORD_BYTES + 1, size - from));
  const { bytesRead } = await handle.read(buf, 0, buf.length, from);
  const data = buf.subarray(0, bytesRead);
  const last = data.lastIndexOf(0x0a);
  if (last < 0) {
    if (from + bytesRead >= size) return { outcomes: [], cursor: cursorOf(id, from) }; // an incomplete last line
    const next = await nextNewline(handle, from + bytesRead, size);
    if (next < 0) return { outcomes: [], cursor: cursorOf(id, from) };
    const reason = `the record at byte ${from} is ${next - from} bytes long, over the ${MAX_RECORD_BYTES} a record may have`;
    return { outcomes: [], unreadable: [reason], cursor: cursorOf(id, next + 1) };
  }
  const outcomes: unknown[] = [];
  const unreadable: string[] = [];
  for (let start = 0; start <= last;) {
    const end = data.indexOf(0x0a, start);
    if (end > start) takeRecord(data.toString("utf8", start, end), `byte ${from + start}`, outcomes, unreadable);
    start = end + 1;
  }
  return { outcomes, ...(unreadable.length > 0 && { unreadable }), cursor: cursorOf(id, from + last + 1) };
}

/** The offset of the first newline at or after `from`, or -1 when the file has none there. */
async function nextNewline(handle: FileHandle, from: number, size: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024);
  for (let at = from; at < size;) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, size - at), at);
    if (bytesRead <= 0) break;
    const nl = chunk.subarray(0, bytesRead).indexOf(0x0a);
    if (nl >= 0) return at + nl;
    at += bytesRead;
  }
  return -1;
}
