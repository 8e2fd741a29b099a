/**
 * The file store's acknowledgement mark (`acknowledged.json`): the sequence number of the last acknowledged event,
 * written atomically when the store is closed and after each snapshot. The journal must reach it on open, so a journal
 * cut from outside, even at a line boundary, is detected (events acknowledged after the mark was written are covered
 * only by the journal itself: see docs/stores.md).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { decodeLine, encodeLine } from "./format.js";
import { atomicWrite } from "./fs-atomic.js";

export const ACK_MARK = "acknowledged.json";

/** The mark's sequence number; `undefined` when there is none, `"unreadable"` when it fails its checksum. */
export async function readAckMark(dir: string): Promise<number | "unreadable" | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, ACK_MARK), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  const decoded = decodeLine(text.replace(/\n$/, ""));
  const seq = (decoded?.value as { seq?: unknown } | undefined)?.seq;
  return typeof seq === "number" && Number.isInteger(seq) && seq >= 0 ? seq : "unreadable";
}

/** Records `seq` as acknowledged (atomic: temp file, fsync, rename, directory fsync). */
export async function writeAckMark(dir: string, seq: number): Promise<void> {
  await atomicWrite(dir, ACK_MARK, encodeLine(JSON.stringify({ seq, at: new Date().toISOString() })));
}
