import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, unlink, type FileHandle } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { z } from "zod";
import { IrtRouterError, StoreError } from "../../src/errors.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import {
  parseStoreOptions,
  prepareFeedbackEvents,
  StoreLedger,
  storeOptionsSchema,
  toStrictJson,
  type AbilityStore,
  type AppendResult,
  type LoadResult,
} from "../../src/learning/store.js";
import { parseWith } from "../../src/util/validate.js";
import {
  decodeLine,
  decodeSnapshot,
  encodeRecord,
  encodeSnapshot,
  JOURNAL_FORMAT,
  JOURNAL_VERSION,
  journalHeader,
  READABLE_JOURNAL_VERSIONS,
  recordEvents,
  type JournalRecord,
} from "./format.js";
import { acquireStoreLock, type LockInfo, type StoreLock } from "./lock.js";

const fileStoreOptionsSchema = storeOptionsSchema.extend({
  /** Called with a human-readable note when opening repaired something (torn or damaged last line, stale lock). */
  onWarning: z.custom<(message: string) => void>((v) => typeof v === "function", "onWarning must be a function").optional(),
});

/** Options of {@link FileStore.open}. */
export type FileStoreOptions = z.input<typeof fileStoreOptionsSchema>;

/** What {@link FileStore.open} found and repaired. */
export interface FileStoreRecovery {
  /** A torn last journal line (no newline: the last append, partially written, never acknowledged) was cut off. */
  tornTail?: { line: number; bytes: number };
  /**
   * A complete (newline-terminated) last journal line that failed its checksum or record check was cut off. It may
   * be an unacknowledged append whose newline reached the disk before the rest of it, or an acknowledged append
   * damaged afterwards (then lost: restore from a backup).
   */
  damagedLastLine?: { line: number; bytes: number };
  /**
   * The journal was in an older format (version 1: one line per event, written by irt-router before batch records)
   * and was rewritten in the current one, with the same events. Older irt-router versions cannot open it any more.
   */
  upgradedJournal?: { fromVersion: number };
  /** A lock left by a dead process on this host was replaced. */
  staleLock?: LockInfo;
  /** Journal events already covered by the snapshot (a crash hit between snapshot and compaction); skipped on load. */
  coveredBySnapshot: number;
  /** Temporary files of an interrupted snapshot/compaction that were removed. */
  removedTempFiles: string[];
}

const JOURNAL = "journal.jsonl";
const SNAPSHOT = "snapshot.json";
const TEMP_MARK = ".tmp-";

const snapshotPayloadSchema = z.object({
  seq: z.number().int().min(0),
  eventIds: z.array(z.string()),
  state: z.unknown(),
});

/**
 * The embedded default {@link AbilityStore}: a directory holding an append-only, checksummed JSONL
 * event journal, the latest snapshot of the learner state, and an exclusive lock.
 *
 * Guarantees: `append` writes its events as one journal line and resolves only after it is fsynced; a
 * crash (even SIGKILL or power loss mid-write) can at worst damage that last line, which `open` detects
 * by its checksum and cuts off (it was never acknowledged; a complete last line failing its checksum is
 * cut off too and reported as `recovery.damagedLastLine`); a bad line anywhere else is a `StoreError`
 * naming file and line, never skipped, and so is a missing journal beside a snapshot. Snapshots are atomic (temp file + fsync + rename + directory fsync)
 * and compact the journal the same way. One process at a time: a second `open` of the same
 * directory gets `StoreLockedError` (code `STORE_LOCKED`) while the first is alive; a lock left by a
 * dead process is recovered automatically. See docs/stores.md for the on-disk format.
 *
 * @example
 * ```ts
 * import { FileStore } from "irt-router/adapters";
 * const store = await FileStore.open(".irt-router/abilities", { snapshotEvery: 500 });
 * const { snapshot, events, seq } = await store.load();
 * const r = await store.append([{ id: "d1:0", model: "gpt-4o", alpha: [...], beta: 0.1, y: 1, at: Date.now() }]);
 * if (r.snapshotDue) await store.snapshot(r.seq, learner.exportState());
 * await store.close();
 * ```
 */
export class FileStore implements AbilityStore {
  private closed = false;
  /**
   * Set when an I/O failure left this handle unsure of the file state (a failed rollback of an append, a failure once a
   * snapshot's journal compaction started); the disk itself stays valid. A snapshot that fails before does not set it.
   */
  private broken?: unknown;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    /** The store directory. */
    readonly dir: string,
    /** What opening found and repaired. */
    readonly recovery: FileStoreRecovery,
    private readonly lock: StoreLock,
    private readonly ledger: StoreLedger,
    private journal: FileHandle,
    private journalSize: number,
    /** Journal records of the events after the snapshot (a record the snapshot covers in part holds only the rest). */
    private pending: JournalRecord[],
    /** Ids the snapshot covers. */
    private snapshotIds: string[],
    /** Snapshot payload JSON text, when there is a snapshot. */
    private snapshotPayload: string | undefined,
  ) {}

  /**
   * Open (creating if needed) the store in `dir`: take its lock, verify the snapshot and the
   * journal, and repair a torn last line. Throws `StoreLockedError` when another live process holds
   * it, `StoreError` when a file is corrupted (with `file` and `line`).
   */
  static async open(dir: string, options: FileStoreOptions = {}): Promise<FileStore> {
    const { snapshotEvery, onWarning } = parseStoreOptions(fileStoreOptionsSchema, options, "FileStore options");
    parseWith(z.string().min(1, "dir must be a non-empty path"), dir, "dir");
    try {
      return await FileStore.openValidated(dir, snapshotEvery, onWarning);
    } catch (err) {
      if (err instanceof IrtRouterError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      throw new StoreError(
        `Could not open the store at ${dir}: ${(err as Error).message}${code ? ` (${code})` : ""}. It must be a directory this process can read and write.`,
        { file: dir, cause: err },
      );
    }
  }

  private static async openValidated(dir: string, snapshotEvery: number, onWarning: ((message: string) => void) | undefined): Promise<FileStore> {
    await makeDirectory(dir);
    const lock = await acquireStoreLock(dir);
    try {
      const recovery: FileStoreRecovery = { coveredBySnapshot: 0, removedTempFiles: [], staleLock: lock.replacedStale };
      if (lock.replacedStale) {
        onWarning?.(`Recovered a stale lock left by dead process ${lock.replacedStale.pid} (${lock.replacedStale.acquiredAt}).`);
      }
      const snap = await readSnapshot(dir);
      const journalPath = join(dir, JOURNAL);
      let text: Buffer;
      try {
        text = await readFile(journalPath);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
        if (snap) {
          // The journal is only ever replaced by rename, never deleted: a snapshot without it is outside damage,
          // and the events acknowledged after the snapshot were in the missing file.
          throw new StoreError(
            `${journalPath} is missing although ${join(dir, SNAPSHOT)} (covering events up to ${snap.seq}) exists. ` +
              `Events acknowledged after that snapshot were in the missing journal, so the store will not start a new one silently. ` +
              `Restore the journal from a backup; or, accepting the loss of those events, create it holding only this header line ` +
              `(and a newline):\n${journalHeader(snap.seq).trimEnd()}`,
            { file: journalPath, details: { headerLine: journalHeader(snap.seq) } },
          );
        }
        await atomicWrite(dir, JOURNAL, journalHeader(0));
        text = await readFile(journalPath);
      }
      const parsed = parseJournal(text, journalPath);
      const snapSeq = snap?.seq ?? 0;
      const lastSeq = parsed.base + countEvents(parsed.records);
      if (snapSeq > lastSeq) {
        throw new StoreError(
          `${join(dir, SNAPSHOT)} covers events up to ${snapSeq}, but ${journalPath} ends at ${lastSeq}: the journal was replaced or truncated from outside. ` +
            `Restore the journal from a backup, or move both files away to start empty.`,
          { file: journalPath },
        );
      }
      if (parsed.base > snapSeq) {
        throw new StoreError(
          `${journalPath} starts after event ${parsed.base}, but ${snap ? `the snapshot covers only up to ${snapSeq}` : "there is no snapshot"}: events ${snapSeq + 1}..${parsed.base} are missing. ` +
            `Restore ${SNAPSHOT} from a backup.`,
          { file: journalPath },
        );
      }
      const pending: JournalRecord[] = [];
      const ledger = new StoreLedger(snapshotEvery);
      for (const id of snap?.eventIds ?? []) ledger.ids.add(id);
      for (const r of parsed.records) {
        const rest = recordAfter(r, snapSeq);
        if (!rest) continue;
        pending.push(rest);
        for (const e of rest.events) {
          if (ledger.ids.has(e.id)) {
            throw new StoreError(`${journalPath} line ${r.lineNo}: event id "${e.id}" is stored twice.`, { file: journalPath, line: r.lineNo });
          }
          ledger.ids.add(e.id);
        }
      }
      recovery.coveredBySnapshot = lastSeq - parsed.base - countEvents(pending);
      ledger.seq = lastSeq;
      ledger.snapshotSeq = snapSeq;

      // Every check has passed: only now is anything on disk changed (a refused open changes nothing).
      recovery.removedTempFiles = await removeTempFiles(dir);
      let journalSize = parsed.validBytes;
      if (parsed.version !== JOURNAL_VERSION) {
        // Same header base and record lines, verbatim (a version-1 line is a one-event record of version 2), under
        // the new header, so that an older library refuses the file instead of misreading a batch record. A torn or
        // damaged last line is left out. The write position is the length of what was written: the new header need
        // not be as long as the old one.
        const upgraded = journalHeader(parsed.base) + parsed.records.map((r) => r.line).join("");
        await atomicWrite(dir, JOURNAL, upgraded);
        journalSize = Buffer.byteLength(upgraded, "utf8");
      }
      const handle = await open(journalPath, "r+");
      try {
        if (parsed.torn) {
          if (parsed.version === JOURNAL_VERSION) {
            await handle.truncate(parsed.validBytes);
            await handle.sync();
          }
          const { line, bytes, complete } = parsed.torn;
          if (complete) {
            recovery.damagedLastLine = { line, bytes };
            onWarning?.(
              `Cut the last line (line ${line}, ${bytes} bytes) from ${journalPath}: it is complete (newline-terminated) but fails its checksum or record check. ` +
                `Either a crash persisted its newline but not all of its bytes (an append that was never acknowledged), or the line was damaged ` +
                `after it was written, in which case that acknowledged event is lost: restore the journal from a backup if you have one.`,
            );
          } else {
            recovery.tornTail = { line, bytes };
            onWarning?.(
              `Cut a torn last line (line ${line}, ${bytes} bytes) from ${journalPath}: it has no newline, so it was being written when the writer stopped and was never acknowledged.`,
            );
          }
        }
        if (parsed.version !== JOURNAL_VERSION) {
          recovery.upgradedJournal = { fromVersion: parsed.version };
          onWarning?.(
            `Upgraded ${journalPath} from journal format ${parsed.version} to ${JOURNAL_VERSION} (same events; one line per append from now on). ` +
              `irt-router versions that read only format ${parsed.version} can no longer open this store.`,
          );
        }
        return new FileStore(dir, recovery, lock, ledger, handle, journalSize, pending, snap?.eventIds ?? [], snap?.payload);
      } catch (err) {
        await handle.close();
        throw err;
      }
    } catch (err) {
      await lock.release();
      throw err;
    }
  }

  async append(events: readonly FeedbackEvent[]): Promise<AppendResult> {
    this.ensureUsable();
    // Validated, deduped and written exactly as serialised (the JSON round trip of each event).
    const prepared = prepareFeedbackEvents(events);
    const eventJson = new Map<FeedbackEvent, string>(prepared.map((p) => [p.event, p.json]));
    return this.serial(async () => {
      this.ensureUsable();
      const { fresh, duplicates } = this.ledger.partition(prepared.map((p) => p.event));
      if (fresh.length === 0) return this.ledger.result(0, duplicates);
      await this.lock.verify();
      // One line for the whole batch: a crash can only damage this last line, never leave part of a batch
      // followed by intact lines (which open could not tell from corruption).
      const seq = this.ledger.seq + 1;
      const record: JournalRecord = { seq, events: fresh, line: encodeRecord(seq, fresh.map((e) => eventJson.get(e)!)) };
      const buf = Buffer.from(record.line, "utf8");
      try {
        await writeFully(this.journal, buf, this.journalSize);
        await this.journal.sync();
      } catch (err) {
        await this.rollbackJournal(err);
        throw new StoreError(
          `Could not write ${fresh.length} event(s) to ${join(this.dir, JOURNAL)}: ${(err as Error).message}. Nothing was acknowledged; the journal was rolled back.`,
          { file: join(this.dir, JOURNAL), cause: err },
        );
      }
      this.journalSize += buf.length;
      this.pending.push(record);
      this.ledger.commit(fresh);
      return this.ledger.result(fresh.length, duplicates);
    });
  }

  async load(): Promise<LoadResult> {
    this.ensureUsable();
    return this.serial(async () => {
      const snapshot = this.snapshotPayload
        ? { seq: this.ledger.snapshotSeq, state: (JSON.parse(this.snapshotPayload) as { state: unknown }).state }
        : undefined;
      // Fresh copies, parsed from the stored lines.
      const events = this.pending.flatMap((r) => recordEvents(JSON.parse(r.line.slice(17)))!.events);
      return { snapshot, events, seq: this.ledger.seq };
    });
  }

  async snapshot(seq: number, state: unknown): Promise<void> {
    this.ensureUsable();
    this.ledger.checkSnapshotSeq(seq);
    const stateJson = toStrictJson(state, "state");
    return this.serial(async () => {
      this.ensureUsable();
      this.ledger.checkSnapshotSeq(seq);
      await this.lock.verify();
      const covered = this.snapshotIds.concat(this.pending.flatMap((r) => r.events.filter((_, k) => r.seq + k <= seq).map((e) => e.id)));
      const head = JSON.stringify({ seq, createdAt: new Date().toISOString(), eventIds: covered });
      const payload = `${head.slice(0, -1)},"state":${stateJson}}`;
      const keep = this.pending.map((r) => recordAfter(r, seq)).filter((r) => r !== undefined);
      const journalText = journalHeader(seq) + keep.map((r) => r.line).join("");
      // Until the journal's rename starts, the journal file this handle appends to is still the store's: a failure
      // leaves the old snapshot or the new one beside the whole journal (the crash window open recovers from), and the
      // handle stays usable. Once it starts, the path may name the compacted file while the handle holds the old one.
      let compacting = false;
      try {
        await atomicWrite(this.dir, SNAPSHOT, encodeSnapshot(payload));
        const compacted = await writeTemp(this.dir, JOURNAL, journalText);
        compacting = true;
        await renameTemp(compacted, this.dir, JOURNAL);
        await fsyncDir(this.dir);
        const reopened = await open(join(this.dir, JOURNAL), "r+");
        await this.journal.close().catch(() => undefined);
        this.journal = reopened;
        this.journalSize = Buffer.byteLength(journalText, "utf8");
      } catch (err) {
        if (!compacting) {
          throw new StoreError(
            `Snapshot of ${this.dir} failed: ${(err as Error).message}. The journal was not compacted and still holds every event; ` +
              `this handle stays usable, and a later snapshot() retries.`,
            { file: this.dir, cause: err, details: { reopen: false } },
          );
        }
        // The files on disk are consistent at every step; only this handle's view of the journal is uncertain.
        this.broken = err;
        throw new StoreError(
          `Snapshot of ${this.dir} failed while compacting the journal: ${(err as Error).message}. The store on disk is intact, but this ` +
            `handle may no longer hold the journal file: close it and reopen the store (appends are refused until then).`,
          { file: this.dir, cause: err, details: { reopen: true } },
        );
      }
      this.snapshotIds = covered;
      this.snapshotPayload = payload;
      this.pending = keep;
      this.ledger.snapshotSeq = seq;
    });
  }

  /** Whether an event with this id has been stored (in the journal or covered by the snapshot). */
  has(id: string): boolean {
    return this.ledger.ids.has(id);
  }

  /** Sequence number of the last stored event. */
  get seq(): number {
    return this.ledger.seq;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.serial(async () => {
      if (this.closed) return;
      this.closed = true;
      await this.journal.close().catch(() => undefined);
      await this.lock.release();
    });
  }

  private ensureUsable(): void {
    if (this.closed) throw new StoreError(`The FileStore at ${this.dir} is closed; open it again with FileStore.open().`);
    if (this.broken !== undefined) {
      throw new StoreError(
        `The FileStore handle for ${this.dir} hit an I/O error earlier (${(this.broken as Error)?.message}); close it and reopen the store.`,
        { cause: this.broken },
      );
    }
  }

  /** Run store operations one at a time, in call order. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** After a failed append, cut the journal back to its last acknowledged byte. */
  private async rollbackJournal(cause: unknown): Promise<void> {
    try {
      await this.journal.truncate(this.journalSize);
      await this.journal.sync();
    } catch {
      // Could not restore: a partial tail may remain. It is the last line, so the next open cuts it
      // off as torn; this handle must not append after it.
      this.broken = cause;
    }
  }
}

async function writeFully(handle: FileHandle, buf: Buffer, position: number): Promise<void> {
  let offset = 0;
  while (offset < buf.length) {
    const { bytesWritten } = await handle.write(buf, offset, buf.length - offset, position + offset);
    if (bytesWritten <= 0) throw new Error("write made no progress");
    offset += bytesWritten;
  }
}

/** Number of events in these records. */
function countEvents(records: readonly JournalRecord[]): number {
  let n = 0;
  for (const r of records) n += r.events.length;
  return n;
}

/**
 * The part of a record after event `after`: the record itself when it starts later, undefined when `after` covers
 * it, else a new record of its remaining events (re-encoded from their JSON, which round-trips exactly).
 */
function recordAfter(r: JournalRecord, after: number): JournalRecord | undefined {
  if (r.seq > after) return r;
  const events = r.events.slice(after - r.seq + 1);
  if (events.length === 0) return undefined;
  return { seq: after + 1, events, line: encodeRecord(after + 1, events.map((e) => JSON.stringify(e))) };
}

/** Parse and verify a journal file. Throws StoreError on corruption other than a damaged last line. */
function parseJournal(
  buf: Buffer,
  file: string,
): {
  base: number;
  version: number;
  records: (JournalRecord & { lineNo: number })[];
  validBytes: number;
  torn?: { line: number; bytes: number; complete: boolean };
} {
  const segments: { start: number; end: number; complete: boolean }[] = [];
  let start = 0;
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] === 0x0a) {
      segments.push({ start, end: i, complete: true });
      start = i + 1;
    }
  }
  if (start < buf.length) segments.push({ start, end: buf.length, complete: false });
  if (segments.length === 0) {
    throw new StoreError(`${file} is empty: it has no header line. Move it away (or restore it) and reopen.`, { file, line: 1 });
  }
  const header = decodeLine(buf.toString("utf8", segments[0]!.start, segments[0]!.end));
  const h = header?.value as { format?: unknown; version?: unknown; base?: unknown } | undefined;
  if (!segments[0]!.complete || !h || h.format !== JOURNAL_FORMAT || typeof h.base !== "number" || !Number.isInteger(h.base)) {
    throw new StoreError(`${file} line 1 is not a valid irt-router journal header (bad checksum or format).`, { file, line: 1 });
  }
  if (typeof h.version !== "number" || !READABLE_JOURNAL_VERSIONS.includes(h.version)) {
    throw new StoreError(
      `${file} has journal format version ${String(h.version)}; this library reads versions ${READABLE_JOURNAL_VERSIONS.join(" and ")}. ` +
        `Open it with the irt-router version that wrote it.`,
      { file, line: 1 },
    );
  }
  const base = h.base;
  const version = h.version;
  const records: (JournalRecord & { lineNo: number })[] = [];
  let count = 0;
  let validBytes = segments[0]!.end + 1;
  for (let s = 1; s < segments.length; s++) {
    const seg = segments[s]!;
    const lineNo = s + 1;
    const text = buf.toString("utf8", seg.start, seg.end);
    const decoded = seg.complete ? decodeLine(text) : undefined;
    const record = decoded && recordEvents(decoded.value);
    if (!record) {
      if (s === segments.length - 1) {
        return { base, version, records, validBytes, torn: { line: lineNo, bytes: buf.length - seg.start, complete: seg.complete } };
      }
      throw new StoreError(
        `${file} line ${lineNo} is corrupted (${decoded ? "unexpected record shape" : "checksum or JSON mismatch"}) and is followed by ` +
          `${segments.length - 1 - s} more line(s), so it is not a torn write. The store will not skip it: restore the file from a backup, ` +
          `or repair/remove that line by hand if you accept losing its event(s).`,
        { file, line: lineNo },
      );
    }
    const expected = base + count + 1;
    if (record.seq !== expected) {
      throw new StoreError(`${file} line ${lineNo} has sequence number ${record.seq}, expected ${expected}: events are missing or out of order.`, {
        file,
        line: lineNo,
      });
    }
    records.push({ seq: expected, events: record.events, line: text + "\n", lineNo });
    count += record.events.length;
    validBytes = seg.end + 1;
  }
  return { base, version, records, validBytes };
}

async function readSnapshot(dir: string): Promise<{ seq: number; eventIds: string[]; payload: string } | undefined> {
  const file = join(dir, SNAPSHOT);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  const decoded = decodeSnapshot(text);
  if (typeof decoded === "string") {
    throw new StoreError(`${file} is invalid: ${decoded}. Snapshots are written atomically, so this is outside damage; restore it from a backup.`, {
      file,
    });
  }
  let parsed: z.infer<typeof snapshotPayloadSchema>;
  try {
    parsed = parseWith(snapshotPayloadSchema, JSON.parse(decoded.payload), "snapshot", file);
  } catch (err) {
    if (err instanceof IrtRouterError) throw new StoreError(err.message, { file, cause: err });
    throw new StoreError(`${file} payload is not valid JSON: ${(err as Error).message}`, { file, cause: err });
  }
  if (parsed.eventIds.length !== parsed.seq) {
    throw new StoreError(`${file} covers ${parsed.seq} events but lists ${parsed.eventIds.length} event ids.`, { file });
  }
  return { seq: parsed.seq, eventIds: parsed.eventIds, payload: decoded.payload };
}

/** Write `name` in `dir` atomically: temp file, fsync, rename over, fsync the directory. */
async function atomicWrite(dir: string, name: string, content: string): Promise<void> {
  await renameTemp(await writeTemp(dir, name, content), dir, name);
  await fsyncDir(dir);
}

/** Writes `content` to a new temp file for `name` in `dir` and fsyncs it; returns its path (removed again on failure). */
async function writeTemp(dir: string, name: string, content: string): Promise<string> {
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
async function renameTemp(tmp: string, dir: string, name: string): Promise<void> {
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
async function makeDirectory(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true });
  if (first === undefined) return;
  const top = dirname(resolve(first));
  for (let d = resolve(dir); d !== top && dirname(d) !== d; d = dirname(d)) await fsyncDir(dirname(d));
}

async function fsyncDir(dir: string): Promise<void> {
  if (process.platform === "win32") return; // directories cannot be opened for fsync on Windows
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function removeTempFiles(dir: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir)) {
    if ((name.startsWith(`${JOURNAL}${TEMP_MARK}`) || name.startsWith(`${SNAPSHOT}${TEMP_MARK}`))) {
      await unlink(join(dir, name)).catch(() => undefined);
      removed.push(name);
    }
  }
  return removed;
}
