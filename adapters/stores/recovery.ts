/**
 * Opening a file store, the reading and checking part: read the snapshot and the journal, check their sequence
 * numbers against each other and against the acknowledgement mark, and classify the journal's tail. Nothing here
 * changes the disk except creating the journal of a new store; the repairs run once every check has passed.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { IrtRouterError, StoreCorruptedError, StoreError } from "../../src/errors.js";
import { StoreLedger } from "../../src/learning/store.js";
import { parseWith } from "../../src/util/validate.js";
import { ACK_MARK, readAckMark } from "./ack-mark.js";
import { decodeSnapshot, journalHeader, type JournalRecord } from "./format.js";
import { atomicWrite } from "./fs-atomic.js";
import { countEvents, recordAfter, type ParsedJournal } from "./journal.js";
import type { LockInfo } from "./lock.js";

/** Settings of an open that the checks read. */
export interface CheckSettings {
  snapshotEvery: number;
  repairTail: boolean;
  onWarning?: (message: string) => void;
}

/** What {@link FileStore.open} found and repaired. */
export interface FileStoreRecovery {
  /** A torn last journal line (no newline, no zero bytes: the last append, partially written, never acknowledged) was cut off. */
  tornTail?: { line: number; bytes: number };
  /**
   * With `repairTail`: a damaged last line (complete but failing its checksum or record check, or holding zero bytes)
   * that was cut off. It may have held acknowledged events.
   */
  damagedTail?: { line: number; bytes: number; zeroBytes: number };
  /** With `repairTail`: events the acknowledgement mark counts that the journal no longer holds (lost). */
  lostEvents?: { from: number; to: number };
  /**
   * The journal was in an older format (version 1: one line per event, written by irt-router before batch records)
   * and was rewritten in the current one, with the same events. Older irt-router versions cannot open it any more.
   */
  upgradedJournal?: { fromVersion: number };
  /** A lock left by a dead process (or by an earlier process with this process's pid, after a restart) was replaced. */
  staleLock?: LockInfo;
  /** Journal events already covered by the snapshot (a crash hit between snapshot and compaction); skipped on load. */
  coveredBySnapshot: number;
  /** Temporary files of an interrupted snapshot/compaction that were removed. */
  removedTempFiles: string[];
}

export const JOURNAL = "journal.jsonl";
export const SNAPSHOT = "snapshot.json";

const snapshotPayloadSchema = z.object({
  seq: z.number().int().min(0),
  eventIds: z.array(z.string()),
  state: z.unknown(),
});

/** A snapshot read: its sequence number, the ids of the events it covers (all of them in version 1), its payload text. */
export type Snapshot = { seq: number; eventIds: string[]; payload: string };

/** What {@link FileStore.open} read and checked, before anything on disk is changed. */
export interface CheckedFiles {
  snap?: Snapshot;
  parsed: ParsedJournal;
  journalPath: string;
  ledger: StoreLedger;
  pending: JournalRecord[];
}

/** The journal's bytes; a store without one gets a fresh journal, unless a snapshot shows one existed (then StoreError). */
export async function readJournal(dir: string, journalPath: string, snap: Snapshot | undefined): Promise<Buffer> {
  try {
    return await readFile(journalPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  if (snap) {
    // The journal is only ever replaced by rename, never deleted: a snapshot without it is outside damage,
    // and the events acknowledged after the snapshot were in the missing file.
    throw new StoreError(
      `${journalPath} is missing although ${join(dir, SNAPSHOT)} (covering events up to ${snap.seq}) exists. ` +
        `Events acknowledged after that snapshot were in the missing journal, so the store will not start a new one silently. ` +
        `Restore the journal from a backup; or, accepting the loss of those events, create it holding only this header line ` +
        `(and a newline), then open the store once with { repairTail: true }:\n${journalHeader(snap.seq).trimEnd()}`,
      { file: journalPath, details: { headerLine: journalHeader(snap.seq) } },
    );
  }
  await atomicWrite(dir, JOURNAL, journalHeader(0));
  return readFile(journalPath);
}

/** Checks the journal's sequence numbers against the snapshot's and indexes the events after the snapshot. */
export function checkSequence(
  dir: string,
  journalPath: string,
  snap: Snapshot | undefined,
  parsed: ParsedJournal,
  snapshotEvery: number,
  dedupeWindow: number,
): CheckedFiles {
  const snapSeq = snap?.seq ?? 0;
  const lastSeq = parsed.base + countEvents(parsed.records);
  if (snapSeq > lastSeq) {
    throw new StoreCorruptedError(
      `${join(dir, SNAPSHOT)} covers events up to ${snapSeq}, but ${journalPath} ends at ${lastSeq}: the journal was replaced or truncated from outside. ` +
        `Restore the journal from a backup, or move both files away to start empty.`,
      { file: journalPath, details: { lost: { from: lastSeq + 1, to: snapSeq } } },
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
  const ledger = new StoreLedger(snapshotEvery, dedupeWindow);
  // The window as the writer held it: the snapshot's ids, then the journal's (an id repeated beyond the window was
  // stored again by design; one repeated within it is corruption).
  for (const id of snap?.eventIds ?? []) ledger.ids.add(id);
  for (const r of parsed.records) {
    const rest = recordAfter(r, snapSeq);
    if (!rest) continue;
    pending.push(rest);
    for (const e of rest.events) {
      if (ledger.ids.has(e.id)) {
        throw new StoreError(
          `${journalPath} line ${r.lineNo}: event id "${e.id}" is stored twice within the duplicate window.`,
          {
            file: journalPath,
            line: r.lineNo,
          },
        );
      }
      ledger.ids.add(e.id);
    }
  }
  ledger.seq = lastSeq;
  ledger.snapshotSeq = snapSeq;
  return { snap, parsed, journalPath, ledger, pending };
}

/**
 * Refuses a journal that lost acknowledged events (a damaged last line, a tail of zero bytes, an end before the
 * acknowledgement mark), unless `repairTail` accepts the loss (then recorded in `recovery`). A torn last line passes.
 */
export async function checkTail(
  dir: string,
  { parsed, journalPath, ledger }: CheckedFiles,
  settings: CheckSettings,
  recovery: FileStoreRecovery,
): Promise<void> {
  const tail = parsed.tail;
  const mark = await readAckMark(dir);
  if (mark === "unreadable")
    settings.onWarning?.(`${join(dir, ACK_MARK)} fails its checksum; it is ignored and rewritten at the next close.`);
  const acknowledged = typeof mark === "number" ? mark : 0;
  const lost = acknowledged > ledger.seq ? { from: ledger.seq + 1, to: acknowledged } : undefined;
  const damaged = tail && !tail.torn ? tail : undefined;
  if ((lost || damaged) && !settings.repairTail) {
    const what = [
      damaged &&
        `its last line (line ${damaged.line}, ${damaged.bytes} bytes) is ${damaged.complete ? "complete (newline-terminated) but fails its checksum or record check" : `not terminated and holds ${damaged.zeroBytes} zero bytes`}, ` +
          `which a crash of the writer does not produce`,
      lost &&
        `it ends at event ${ledger.seq}, but ${ACK_MARK} records events up to ${acknowledged} as acknowledged: events ${lost.from}..${lost.to} are lost`,
    ].filter(Boolean);
    throw new StoreCorruptedError(
      `${journalPath} was damaged from outside: ${what.join("; and ")}. The store will not cut acknowledged events silently. ` +
        `Restore the journal from a backup; or, accepting the loss, open the store once with { repairTail: true } ` +
        `which cuts the damaged tail and reports what was lost.`,
      { file: journalPath, line: damaged?.line, details: { damagedLine: damaged, lost } },
    );
  }
  if (damaged) recovery.damagedTail = { line: damaged.line, bytes: damaged.bytes, zeroBytes: damaged.zeroBytes };
  else if (tail) recovery.tornTail = { line: tail.line, bytes: tail.bytes };
  if (lost) recovery.lostEvents = lost;
}

/** Tells `onWarning` what was cut from the journal's tail. */
export function reportTail(
  journalPath: string,
  recovery: FileStoreRecovery,
  onWarning: ((message: string) => void) | undefined,
): void {
  const { tornTail: torn, damagedTail: damaged, lostEvents: lost } = recovery;
  if (torn) {
    onWarning?.(
      `Cut a torn last line (line ${torn.line}, ${torn.bytes} bytes) from ${journalPath}: it has no newline, so it was being written when the writer stopped and was never acknowledged.`,
    );
  }
  if (damaged) {
    onWarning?.(
      `repairTail: cut the damaged last line (line ${damaged.line}, ${damaged.bytes} bytes) from ${journalPath}; its events, if it held acknowledged ones, are lost.`,
    );
  }
  if (lost)
    onWarning?.(
      `repairTail: events ${lost.from}..${lost.to}, acknowledged earlier, are not in ${journalPath} and are lost.`,
    );
}

export async function readSnapshot(dir: string): Promise<Snapshot | undefined> {
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
    throw new StoreError(
      `${file} is invalid: ${decoded}. Snapshots are written atomically, so this is outside damage; restore it from a backup.`,
      {
        file,
      },
    );
  }
  let parsed: z.infer<typeof snapshotPayloadSchema>;
  try {
    parsed = parseWith(snapshotPayloadSchema, JSON.parse(decoded.payload), "snapshot", file);
  } catch (err) {
    if (err instanceof IrtRouterError) throw new StoreError(err.message, { file, cause: err });
    throw new StoreError(`${file} payload is not valid JSON: ${(err as Error).message}`, { file, cause: err });
  }
  // Version 1 lists every covered id; version 2 the window's (at most seq).
  if (decoded.version === 1 ? parsed.eventIds.length !== parsed.seq : parsed.eventIds.length > parsed.seq) {
    throw new StoreError(`${file} covers ${parsed.seq} events but lists ${parsed.eventIds.length} event ids.`, {
      file,
    });
  }
  return { seq: parsed.seq, eventIds: parsed.eventIds, payload: decoded.payload };
}
