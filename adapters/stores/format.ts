import { createHash } from "node:crypto";
import type { FeedbackEvent } from "../../src/learning/events.js";

/**
 * On-disk formats of `FileStore` (documented in docs/stores.md).
 *
 * Journal (`journal.jsonl`): one record per line, `<checksum> <json>\n`, where checksum is the
 * first 16 hex digits of SHA-256 over the UTF-8 json text. Line 1 is the header
 * `{"format":"irt-router-journal","version":1,"base":B}`; every following line is
 * `{"seq":N,"event":{...}}` with N = B+1, B+2, ... (contiguous).
 *
 * Snapshot (`snapshot.json`): a header line `irt-router-snapshot 1 <sha256 hex> <payload bytes>\n`
 * followed by the payload `{"seq":S,"createdAt":"...","eventIds":[...],"state":...}`.
 */
export const JOURNAL_FORMAT = "irt-router-journal";
export const SNAPSHOT_FORMAT = "irt-router-snapshot";
export const FORMAT_VERSION = 1;

export function lineChecksum(json: string): string {
  return createHash("sha256").update(json, "utf8").digest("hex").slice(0, 16);
}

/** One checksummed journal line (with its trailing newline). */
export function encodeLine(json: string): string {
  return `${lineChecksum(json)} ${json}\n`;
}

export function journalHeader(base: number): string {
  return encodeLine(JSON.stringify({ format: JOURNAL_FORMAT, version: FORMAT_VERSION, base }));
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

/** A journal record after decoding. */
export interface JournalRecord {
  seq: number;
  event: FeedbackEvent;
  /** The exact encoded line (with newline), rewritten verbatim by compaction. */
  line: string;
}

export function encodeSnapshot(payload: string): string {
  const digest = createHash("sha256").update(payload, "utf8").digest("hex");
  return `${SNAPSHOT_FORMAT} ${FORMAT_VERSION} ${digest} ${Buffer.byteLength(payload, "utf8")}\n${payload}`;
}

/** Split and verify a snapshot file; a string result is the reason it is invalid. */
export function decodeSnapshot(text: string): { payload: string } | string {
  const nl = text.indexOf("\n");
  if (nl < 0) return "missing header line";
  const [format, version, digest, bytes] = text.slice(0, nl).split(" ");
  if (format !== SNAPSHOT_FORMAT) return `not an irt-router snapshot (header "${text.slice(0, Math.min(nl, 60))}")`;
  if (Number(version) !== FORMAT_VERSION) return `unsupported snapshot version ${version} (this library reads ${FORMAT_VERSION})`;
  const payload = text.slice(nl + 1);
  if (Buffer.byteLength(payload, "utf8") !== Number(bytes)) return `payload is ${Buffer.byteLength(payload, "utf8")} bytes, header says ${bytes}`;
  if (createHash("sha256").update(payload, "utf8").digest("hex") !== digest) return "payload checksum mismatch";
  return { payload };
}
