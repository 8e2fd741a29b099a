import { DatasetFormatError } from "../errors.js";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Decode a data file's bytes as UTF-8, refusing anything else instead of replacing bad bytes with U+FFFD.
 * A leading UTF-8 byte-order mark is kept (the CSV and JSONL readers skip it).
 *
 * - A UTF-16 byte-order mark, an invalid UTF-8 sequence (e.g. a Latin-1 or Windows-1252 `é`) or a NUL
 *   character (UTF-16 without a byte-order mark, or a binary file) is a {@link DatasetFormatError}
 *   naming `file` and the 1-based line, saying to re-save the file as UTF-8.
 *
 * @example
 * ```ts
 * decodeUtf8(Buffer.from("id,text\n1,café\n"), "items.csv"); // "id,text\n1,café\n"
 * decodeUtf8(Buffer.from("id,text\n1,caf\xe9\n", "latin1"), "items.csv"); // throws: items.csv line 2: not UTF-8 ...
 * ```
 */
export function decodeUtf8(bytes: Uint8Array, file: string): string {
  return decodeUtf8Lines(bytes, file, 0);
}

/**
 * {@link decodeUtf8} of bytes that start after line `linesBefore` of `file` (a piece of a file read as a stream, cut
 * after a newline byte: a newline byte never falls inside a UTF-8 sequence); the lines named count from the file's start.
 */
export function decodeUtf8Lines(bytes: Uint8Array, file: string, linesBefore: number): string {
  if (
    linesBefore === 0 &&
    bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
  ) {
    throw new DatasetFormatError(
      `${file} line 1: the file is UTF-16 (it starts with a UTF-16 ${bytes[0] === 0xff ? "little" : "big"}-endian byte-order mark), not UTF-8; ` +
        `re-save it as UTF-8 (e.g. "CSV UTF-8" in a spreadsheet's Save As).`,
      { file, line: 1, details: { encoding: "utf-16" } },
    );
  }
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch (error) {
    const offset = firstInvalidUtf8(bytes);
    const line = offset < 0 ? undefined : linesBefore + lineAt(bytes, offset);
    const byte = offset < 0 ? "" : ` (byte 0x${bytes[offset]!.toString(16).padStart(2, "0")} at byte offset ${offset})`;
    throw new DatasetFormatError(
      `${file}${line === undefined ? "" : ` line ${line}`}: not UTF-8${byte}; the file is probably in another encoding ` +
        `such as Latin-1 or Windows-1252. Re-save it as UTF-8.`,
      { file, ...(line === undefined ? {} : { line }), cause: error },
    );
  }
  const nul = text.indexOf("\0");
  if (nul >= 0) {
    const line = linesBefore + countChar(text, "\n", nul) + 1;
    throw new DatasetFormatError(
      `${file} line ${line}: contains a NUL character, so it is probably UTF-16 without a byte-order mark or not a text file; ` +
        `re-save it as UTF-8 text.`,
      { file, line },
    );
  }
  return text;
}

/** Byte offset of the first byte that does not start a well-formed UTF-8 sequence, or -1. */
function firstInvalidUtf8(b: Uint8Array): number {
  const n = b.length;
  let i = 0;
  while (i < n) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c === 0xe0) [need, lo] = [2, 0xa0];
    else if (c === 0xed) [need, hi] = [2, 0x9f];
    else if (c >= 0xe1 && c <= 0xef) need = 2;
    else if (c === 0xf0) [need, lo] = [3, 0x90];
    else if (c === 0xf4) [need, hi] = [3, 0x8f];
    else if (c >= 0xf1 && c <= 0xf3) need = 3;
    else return i;
    if (i + need >= n) return i;
    const second = b[i + 1]!;
    if (second < lo || second > hi) return i;
    for (let k = 2; k <= need; k++) {
      const next = b[i + k]!;
      if (next < 0x80 || next > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}

function lineAt(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let k = 0; k < offset; k++) if (bytes[k] === 0x0a) line++;
  return line;
}

function countChar(text: string, ch: string, end: number): number {
  let count = 0;
  for (let k = text.indexOf(ch); k >= 0 && k < end; k = text.indexOf(ch, k + 1)) count++;
  return count;
}
