import { MemoryBudgetLedger, type FeedbackBudgetLedger } from "../../src/learning/budget.js";
import { open, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { IrtRouterError, StoreError } from "../../src/errors.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import {
  parseStoreOptions,
  StoreEventRules,
  StoreLedger,
  storeOptionsSchema,
  toStrictJson,
  type AbilityStore,
  type AppendResult,
  type LoadResult,
} from "../../src/learning/store.js";
import { parseWith } from "../../src/util/validate.js";
import { ACK_MARK, writeAckMark } from "./ack-mark.js";
import {
  encodeRecord,
  encodeSnapshot,
  JOURNAL_VERSION,
  journalHeader,
  recordEvents,
  type JournalRecord,
} from "./format.js";
import {
  atomicWrite,
  fsyncDir,
  makeDirectory,
  removeTempFiles,
  renameTemp,
  writeFully,
  writeTemp,
} from "./fs-atomic.js";
import { parseJournal, recordAfter } from "./journal.js";
import { acquireStoreLock, type StoreLock } from "./lock.js";
import {
  checkSequence,
  checkTail,
  JOURNAL,
  readJournal,
  readSnapshot,
  reportTail,
  SNAPSHOT,
  type CheckedFiles,
  type FileStoreRecovery,
} from "./recovery.js";

export type { FileStoreRecovery } from "./recovery.js";

const fileStoreOptionsSchema = storeOptionsSchema.extend({
  /** Called with a human-readable note when opening repaired something (torn last line, stale lock). */
  onWarning: z
    .custom<(message: string) => void>((v) => typeof v === "function", "onWarning must be a function")
    .optional(),
  /**
   * Accept the loss of a damaged journal tail: cut a complete last line that fails its checksum or a tail holding zero
   * bytes, and open a journal shorter than the acknowledgement mark, reporting what was lost (`recovery.damagedTail`,
   * `recovery.lostEvents`). Off by default: `open` refuses such a journal with `StoreCorruptedError`.
   */
  repairTail: z.boolean().default(false),
});

/** Options of {@link FileStore.open}. */
export type FileStoreOptions = z.input<typeof fileStoreOptionsSchema>;
export type OpenSettings = z.output<typeof fileStoreOptionsSchema>;

/**
 * The embedded default {@link AbilityStore}: a directory holding an append-only, checksummed JSONL
 * event journal, the latest snapshot of the learner state, an acknowledgement mark, and an exclusive lock.
 *
 * Guarantees: `append` writes its events as one journal line and resolves only after it is fsynced; a
 * crash (even SIGKILL) mid-write can at worst leave that last line without its newline, which `open` cuts
 * off as torn (`recovery.tornTail`: it was never acknowledged). Anything more is corruption, refused with a
 * `StoreCorruptedError` naming what was lost and how to repair (`repairTail`, or a backup): a complete last line
 * failing its checksum, a tail of zero bytes, a journal shorter than the acknowledgement mark written at close and
 * at each snapshot; a bad line anywhere else, or a missing journal beside a snapshot, is a `StoreError` naming file
 * and line. Snapshots are atomic (temp file + fsync + rename + directory fsync) and compact the journal the same way.
 * One process at a time: a second `open` of the same directory gets `StoreLockedError` (code `STORE_LOCKED`) while
 * the first is alive; a lock left by a dead process, or by an earlier process that had this process's pid (a
 * restarted container), is recovered automatically. See docs/stores.md for the on-disk format.
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
  /**
   * Feedback budgets, reserved atomically in this process (the only one writing: the store's lock), kept in memory:
   * reopening the store starts them afresh.
   */
  readonly budget: FeedbackBudgetLedger = new MemoryBudgetLedger();
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
    private readonly rules: StoreEventRules,
    private journal: FileHandle,
    private journalSize: number,
    /** Journal records of the events after the snapshot (a record the snapshot covers in part holds only the rest). */
    private pending: JournalRecord[],
    /** Snapshot payload JSON text, when there is a snapshot. */
    private snapshotPayload: string | undefined,
  ) {}

  /**
   * Open (creating if needed) the store in `dir`: take its lock, verify the snapshot and the
   * journal, and cut a torn last line. Throws `StoreLockedError` when another live process holds
   * it, `StoreCorruptedError` when the journal lost acknowledged events, `StoreError` when a file is corrupted
   * (with `file` and `line`).
   */
  static async open(dir: string, options: FileStoreOptions = {}): Promise<FileStore> {
    const settings = parseStoreOptions(fileStoreOptionsSchema, options, "FileStore options");
    parseWith(z.string().min(1, "dir must be a non-empty path"), dir, "dir");
    try {
      return await FileStore.openValidated(dir, settings);
    } catch (err) {
      if (err instanceof IrtRouterError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      throw new StoreError(
        `Could not open the store at ${dir}: ${(err as Error).message}${code ? ` (${code})` : ""}. It must be a directory this process can read and write.`,
        { file: dir, cause: err },
      );
    }
  }

  /** Lock, read and check every file (changing nothing), then repair and open the journal. */
  private static async openValidated(dir: string, settings: OpenSettings): Promise<FileStore> {
    await makeDirectory(dir);
    const lock = await acquireStoreLock(dir);
    try {
      const recovery: FileStoreRecovery = { coveredBySnapshot: 0, removedTempFiles: [], staleLock: lock.replacedStale };
      if (lock.replacedStale) {
        const s = lock.replacedStale;
        settings.onWarning?.(
          `Recovered a stale lock left by ${s.pid === process.pid ? `an earlier process with this pid (${s.pid}), as after a restart` : `dead process ${s.pid}`} (${s.acquiredAt}).`,
        );
      }
      const snap = await readSnapshot(dir);
      const journalPath = join(dir, JOURNAL);
      const parsed = parseJournal(await readJournal(dir, journalPath, snap), journalPath);
      const checked = checkSequence(dir, journalPath, snap, parsed, settings.snapshotEvery, settings.dedupeWindow);
      await checkTail(dir, checked, settings, recovery);
      recovery.coveredBySnapshot =
        checked.ledger.seq - parsed.base - checked.pending.reduce((n, r) => n + r.events.length, 0);
      // Every check has passed: only now is anything on disk changed (a refused open changes nothing).
      return await FileStore.repairAndOpen(dir, lock, checked, settings, recovery);
    } catch (err) {
      await lock.release();
      throw err;
    }
  }

  /** Removes temp files, upgrades an old journal, cuts a bad tail, reports each, and opens the journal for appends. */
  private static async repairAndOpen(
    dir: string,
    lock: StoreLock,
    { snap, parsed, journalPath, ledger, pending }: CheckedFiles,
    { onWarning, ...rules }: OpenSettings,
    recovery: FileStoreRecovery,
  ): Promise<FileStore> {
    recovery.removedTempFiles = await removeTempFiles(dir, [JOURNAL, SNAPSHOT, ACK_MARK]);
    let journalSize = parsed.validBytes;
    if (parsed.version !== JOURNAL_VERSION) {
      // Same header base and record lines, verbatim (a version-1 line is a one-event record of version 2), under
      // the new header, so that an older library refuses the file instead of misreading a batch record. A cut tail
      // is left out. The write position is the length of what was written: the new header need not be as long.
      const upgraded = journalHeader(parsed.base) + parsed.records.map((r) => r.line).join("");
      await atomicWrite(dir, JOURNAL, upgraded);
      journalSize = Buffer.byteLength(upgraded, "utf8");
      recovery.upgradedJournal = { fromVersion: parsed.version };
      onWarning?.(
        `Upgraded ${journalPath} from journal format ${parsed.version} to ${JOURNAL_VERSION} (same events; one line per append from now on). ` +
          `irt-router versions that read only format ${parsed.version} can no longer open this store.`,
      );
    }
    const handle = await open(journalPath, "r+");
    try {
      if (parsed.tail && parsed.version === JOURNAL_VERSION) {
        await handle.truncate(parsed.validBytes);
        await handle.sync();
      }
      if (recovery.lostEvents || recovery.damagedTail) await writeAckMark(dir, ledger.seq);
      reportTail(journalPath, recovery, onWarning);
      const store = new FileStore(
        dir,
        recovery,
        lock,
        ledger,
        new StoreEventRules(rules),
        handle,
        journalSize,
        pending,
        snap?.payload,
      );
      return store;
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async append(events: readonly FeedbackEvent[]): Promise<AppendResult> {
    this.ensureUsable();
    // Validated, deduped and written exactly as serialised (the JSON round trip of each event).
    const prepared = this.rules.prepare(events);
    const eventJson = new Map<FeedbackEvent, string>(prepared.map((p) => [p.event, p.json]));
    return this.serial(async () => {
      this.ensureUsable();
      const { fresh, duplicates } = this.ledger.partition(prepared.map((p) => p.event));
      const given = this.rules.givenIds(duplicates, events, prepared);
      if (fresh.length === 0) return this.ledger.result(0, given);
      await this.lock.verify();
      // One line for the whole batch: a crash can only damage this last line, never leave part of a batch
      // followed by intact lines (which open could not tell from corruption).
      const seq = this.ledger.seq + 1;
      const record: JournalRecord = {
        seq,
        events: fresh,
        line: encodeRecord(
          seq,
          fresh.map((e) => eventJson.get(e)!),
        ),
      };
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
      return this.ledger.result(fresh.length, given);
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
    const stateJson = toStrictJson(this.rules.storedState(state), "state");
    return this.serial(async () => {
      this.ensureUsable();
      this.ledger.checkSnapshotSeq(seq);
      await this.lock.verify();
      // The duplicate window's ids up to seq (not every id ever stored: a snapshot's size does not grow with the events).
      const head = JSON.stringify({
        seq,
        createdAt: new Date().toISOString(),
        dedupeWindow: this.ledger.ids.limit,
        eventIds: this.ledger.idsUpTo(seq),
      });
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
      this.snapshotPayload = payload;
      this.pending = keep;
      this.ledger.snapshotSeq = seq;
      // A lower bound only (a stale mark weakens detection, never refuses a good journal): a failure is not the snapshot's.
      await writeAckMark(this.dir, this.ledger.seq).catch(() => undefined);
    });
  }

  /** Whether an event with this id is among the last `dedupeWindow` stored (in the journal or covered by the snapshot). */
  has(id: string): boolean {
    return this.ledger.ids.has(this.rules.storedId(id));
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
      if (this.broken === undefined) await writeAckMark(this.dir, this.ledger.seq).catch(() => undefined);
      await this.journal.close().catch(() => undefined);
      await this.lock.release();
    });
  }

  private ensureUsable(): void {
    if (this.closed)
      throw new StoreError(`The FileStore at ${this.dir} is closed; open it again with FileStore.open().`);
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
