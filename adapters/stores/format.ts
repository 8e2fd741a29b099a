import { createHash } from "node:crypto";
import type { FeedbackEvent } from "../../src/learning/events.js";

/**
 * On-disk formats of `FileStore` (documented in docs/stores.md).
 *
 * Journal (`journal.jsonl`): one record per line, `<checksum> <json>\n`, where checksum is the
 * first 16 hex digits of SHA-256 over the UTF-8 json text. Line 1 is the header
 * `{"format":"irt-router-journal","version":2,"base":B}`; every following line is the record of one
 * `append`: `{"seq":N,"event":{...}}` for one event, `{"seq":N,"events":[{...},...]}` for several
 * (numbered N, N+1, ...), the numbers contiguous from B+1. One line per append confines what a crash
 * can damage to the last line, the one append that was never acknowledged.
 *
 * Version 1 (irt-router before batch records) wrote one line per event, even for a batch; it is read
 * and upgraded to version 2 on open.
 *
 * Snapshot (`snapshot.json`): a header line `irt-router-snapshot 2 <sha256 hex> <payload bytes>\n`
 * followed by the payload `{"seq":S,"createdAt":"...","dedupeWindow":N,"eventIds":[...],"state":...}`, where
 * `eventIds` are the ids of the last (at most N) events up to S, oldest first: the duplicate check's window.
 * Version 1 (irt-router before the window) listed the ids of every event up to S; it is read (its last N ids kept).
 */
export const JOURNAL_FORMAT = "irt-router-journal";
export const SNAPSHOT_FORMAT = "irt-router-snapshot";
/** Journal format version this library writes. */
export const JOURNAL_VERSION = 2;
/** Journal format versions this library reads (older ones are upgraded on open). */
export const READABLE_JOURNAL_VERSIONS: readonly number[] = [1, 2];
/** Snapshot format version this library writes (2: `eventIds` is a window of the latest ids). */
export const SNAPSHOT_VERSION = 2;
/** Snapshot format versions this library reads. */
export const READABLE_SNAPSHOT_VERSIONS: readonly number[] = [1, 2];

export function lineChecksum(json: string): string {
  return createHash("sha256").update(json, "utf8").digest("hex").slice(0, 16);
}

/** One checksummed journal line (with its trailing newline). */
export function encodeLine(json: string): string {
  return `${lineChecksum(json)} ${json}\n`;
}

export function journalHeader(base: number): string {
  return encodeLine(JSON.stringify({ format: JOURNAL_FORMAT, version: JOURNAL_VERSION, base }));
}

/**
 * The journal line of one append: events numbered `seq`, `seq + 1`, ..., given as their JSON texts.
 * One event is written `{"seq":N,"event":...}` (the version-1 line), several `{"seq":N,"events":[...]}`.
 */
export function encodeRecord(seq: number, eventJson: readonly string[]): string {
  if (eventJson.length === 0) throw new RangeError("a journal record holds at least one event");
  return encodeLine(
    eventJson.length === 1
      ? `{"seq":${seq},"event":${eventJson[0]}}`
      : `{"seq":${seq},"events":[${eventJson.join(",")}]}`,
  );
}

/** The events of a decoded record value (`event` or `events`), or `undefined` when it is not a record. */
export function recordEvents(value: unknown): { seq: number; events: FeedbackEvent[] } | undefined {
  const v = value as { seq?: unknown; event?: unknown; events?: unknown } | null;
  if (!v || typeof v !== "object" || typeof v.seq !== "number" || !Number.isInteger(v.seq)) return undefined;
  const events = "events" in v ? v.events : "event" in v ? [v.event] : undefined;
  if (!Array.isArray(events) || events.length === 0 || ("events" in v && "event" in v)) return undefined;
  for (const e of events)
    if (!e || typeof e !== "object" || typeof (e as { id?: unknown }).id !== "string") return undefined;
  return { seq: v.seq, events: events as FeedbackEvent[] };
}

/** Decode one line (without newline); `undefined` when the checksum or JSON is bad. */
export function decodeLine(line: string): { json: string; value: unknown } | undefined {
  const m = /^([0-9a-f]{16}) (.*)$/s.exec(line);
  if (!m || lineChecksum(m[2]!) !== m[1]) return undefined;
  try {
    return { json: m[2]!, value: JSON.parse(m[2]!) };
  } catch {
    return undefined;
  }
}

/** A journal record (one append) after decoding. */
export interface JournalRecord {
  /** Sequence number of its first event; the others follow contiguously. */
  seq: number;
  events: FeedbackEvent[];
  /** The exact encoded line (with newline), rewritten verbatim by compaction. */
  line: string;
}

export function encodeSnapshot(payload: string): string {
  const digest = createHash("sha256").update(payload, "utf8").digest("hex");
  return `${SNAPSHOT_FORMAT} ${SNAPSHOT_VERSION} ${digest} ${Buffer.byteLength(payload, "utf8")}\n${payload}`;
}

/** Split and verify a snapshot file; a string result is the reason it is invalid. */
export function decodeSnapshot(text: string): { payload: string; version: number } | string {
  const nl = text.indexOf("\n");
  if (nl < 0) return "missing header line";
  const [format, version, digest, bytes] = text.slice(0, nl).split(" ");
  if (format !== SNAPSHOT_FORMAT) return `not an irt-router snapshot (header "${text.slice(0, Math.min(nl, 60))}")`;
  if (!READABLE_SNAPSHOT_VERSIONS.includes(Number(version)))
    return `unsupported snapshot version ${version} (this library reads ${READABLE_SNAPSHOT_VERSIONS.join(" and ")})`;
  const payload = text.slice(nl + 1);
  if (Buffer.byteLength(payload, "utf8") !== Number(bytes))
    return `payload is ${Buffer.byteLength(payload, "utf8")} bytes, header says ${bytes}`;
  if (createHash("sha256").update(payload, "utf8").digest("hex") !== digest) return "payload checksum mismatch";
  return { payload, version: Number(version) };
}
