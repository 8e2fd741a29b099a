/**
 * Reading the file store's journal: parse and verify every line (checksums, record shape, contiguous sequence numbers)
 * and classify a bad last line; and the record arithmetic the store shares with compaction.
 */
import { StoreError } from "../../src/errors.js";
import {
  decodeLine,
  encodeRecord,
  JOURNAL_FORMAT,
  READABLE_JOURNAL_VERSIONS,
  recordEvents,
  type JournalRecord,
} from "./format.js";

/** Number of events in these records. */
export function countEvents(records: readonly JournalRecord[]): number {
  let n = 0;
  for (const r of records) n += r.events.length;
  return n;
}

/**
 * The part of a record after event `after`: the record itself when it starts later, undefined when `after` covers
 * it, else a new record of its remaining events (re-encoded from their JSON, which round-trips exactly).
 */
export function recordAfter(r: JournalRecord, after: number): JournalRecord | undefined {
  if (r.seq > after) return r;
  const events = r.events.slice(after - r.seq + 1);
  if (events.length === 0) return undefined;
  return {
    seq: after + 1,
    events,
    line: encodeRecord(
      after + 1,
      events.map((e) => JSON.stringify(e)),
    ),
  };
}

/** A journal after parsing: its header, its intact records, and a bad last line, if any (see {@link JournalTail}). */
export interface ParsedJournal {
  base: number;
  version: number;
  records: (JournalRecord & { lineNo: number })[];
  /** Bytes up to the end of the last intact line. */
  validBytes: number;
  tail?: JournalTail;
}

/**
 * A last line that is not an intact record. Only a line without its newline and without zero bytes is a torn write
 * (`torn`): the append being written when the writer stopped, never acknowledged. A complete line that fails its
 * checksum, or a tail holding zero bytes (written over from outside, or zero-filled by a power loss), is damage that
 * cannot be told from the loss of acknowledged events: the store refuses it unless opened with `repairTail`.
 */
export interface JournalTail {
  line: number;
  bytes: number;
  /** Newline-terminated. */
  complete: boolean;
  /** How many of its bytes are zero. */
  zeroBytes: number;
  torn: boolean;
}

/** Parse and verify a journal file. Throws StoreError on corruption other than a bad last line. */
export function parseJournal(buf: Buffer, file: string): ParsedJournal {
  const segments = lineSegments(buf);
  if (segments.length === 0) {
    throw new StoreError(`${file} is empty: it has no header line. Move it away (or restore it) and reopen.`, {
      file,
      line: 1,
    });
  }
  const { base, version } = journalHeader(buf, segments[0]!, file);
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
        let zeroBytes = 0;
        for (let b = seg.start; b < buf.length; b++) if (buf[b] === 0) zeroBytes++;
        const bytes = buf.length - seg.start;
        const torn = !seg.complete && zeroBytes === 0;
        return {
          base,
          version,
          records,
          validBytes,
          tail: { line: lineNo, bytes, complete: seg.complete, zeroBytes, torn },
        };
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
      throw new StoreError(
        `${file} line ${lineNo} has sequence number ${record.seq}, expected ${expected}: events are missing or out of order.`,
        { file, line: lineNo },
      );
    }
    records.push({ seq: expected, events: record.events, line: text + "\n", lineNo });
    count += record.events.length;
    validBytes = seg.end + 1;
  }
  return { base, version, records, validBytes };
}

/** The byte ranges of the file's lines (without their newline); the last is incomplete when it has none. */
function lineSegments(buf: Buffer): { start: number; end: number; complete: boolean }[] {
  const segments: { start: number; end: number; complete: boolean }[] = [];
  let start = 0;
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] === 0x0a) {
      segments.push({ start, end: i, complete: true });
      start = i + 1;
    }
  }
  if (start < buf.length) segments.push({ start, end: buf.length, complete: false });
  return segments;
}

/** The journal's header line, checked: its base sequence number and format version; else a StoreError. */
function journalHeader(
  buf: Buffer,
  first: { start: number; end: number; complete: boolean },
  file: string,
): { base: number; version: number } {
  const header = decodeLine(buf.toString("utf8", first.start, first.end));
  const h = header?.value as { format?: unknown; version?: unknown; base?: unknown } | undefined;
  if (!first.complete || !h || h.format !== JOURNAL_FORMAT || typeof h.base !== "number" || !Number.isInteger(h.base)) {
    throw new StoreError(`${file} line 1 is not a valid irt-router journal header (bad checksum or format).`, {
      file,
      line: 1,
    });
  }
  if (typeof h.version !== "number" || !READABLE_JOURNAL_VERSIONS.includes(h.version)) {
    throw new StoreError(
      `${file} has journal format version ${String(h.version)}; this library reads versions ${READABLE_JOURNAL_VERSIONS.join(" and ")}. ` +
        `Open it with the irt-router version that wrote it.`,
      { file, line: 1 },
    );
  }
  return { base: h.base, version: h.version };
}
