import { DatasetFormatError } from "../errors.js";

/** One CSV record with the 1-based line number it starts on. */
export interface CsvRecord {
  readonly fields: string[];
  /** 1-based line of the file where this record starts (records may span lines inside quotes). */
  readonly line: number;
}

/** A parsed CSV table: the header row and the data records. */
export interface CsvTable {
  readonly header: string[];
  readonly records: CsvRecord[];
}

/**
 * Parse RFC-4180 CSV text.
 *
 * - Fields are separated by `,`; records by `\n` or `\r\n`. A bare `\r` (old Mac line ending) outside quotes is a
 *   {@link DatasetFormatError} naming `file` and the line, never read as part of a field.
 * - A field that starts with `"` is quoted: it may hold commas, newlines and `""` (one literal quote),
 *   and must be followed by `,` or the end of the record.
 * - A `"` inside an unquoted field, text after a closing quote, an unterminated quote, or a record whose
 *   column count differs from the header's is a {@link DatasetFormatError} naming `file` and the 1-based line.
 * - A leading UTF-8 byte-order mark is ignored. Completely empty lines (no characters at all) carry no
 *   data and are skipped; a line holding only spaces is a record like any other.
 *
 * @example
 * ```ts
 * const { header, records } = parseCsv('id,text\n1,"a, ""quoted""\nline"\n', "items.csv");
 * // header = ["id", "text"]; records[0] = { fields: ["1", 'a, "quoted"\nline'], line: 2 }
 * ```
 */
export function parseCsv(text: string, file: string): CsvTable {
  const rows = parseCsvRows(text, file);
  if (rows.length === 0) {
    throw new DatasetFormatError(`${file} is empty: expected a header row.`, { file, line: 1 });
  }
  const [head, ...records] = rows;
  const header = head!.fields;
  for (const record of records) {
    if (record.fields.length !== header.length) throw columnCountError(file, record, header);
  }
  return { header: [...header], records };
}

/** The error of a record whose width is not the header's (of {@link parseCsv}, and of the streamed tables). */
export function columnCountError(file: string, record: CsvRecord, header: readonly string[]): DatasetFormatError {
  return new DatasetFormatError(
    `${file} line ${record.line}: expected ${header.length} columns (${header.join(",")}) but found ${record.fields.length}. ` +
      `Quote fields that contain commas or newlines ("...").`,
    { file, line: record.line },
  );
}

/**
 * Parse CSV text into raw records (header included), without checking column counts.
 *
 * @example
 * ```ts
 * parseCsvRows("a,b\n1", "f.csv"); // [{ fields: ["a", "b"], line: 1 }, { fields: ["1"], line: 2 }]
 * ```
 */
export function parseCsvRows(text: string, file: string): CsvRecord[] {
  return parseCsvText(text, file, 1);
}

/** {@link parseCsvRows} of text that starts on line `firstLine` of `file` (a piece of a file read as a stream). */
export function parseCsvText(text: string, file: string, firstLine: number): CsvRecord[] {
  const out: CsvRecord[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const n = text.length;
  let line = firstLine;
  while (i < n) {
    // Skip completely empty lines.
    if (text[i] === "\n") {
      i++;
      line++;
      continue;
    }
    if (text[i] === "\r" && text[i + 1] === "\n") {
      i += 2;
      line++;
      continue;
    }
    const startLine = line;
    const fields: string[] = [];
    for (;;) {
      const field = text[i] === '"' ? quotedField(text, i, line, file) : plainField(text, i, line, file);
      const value = field.value;
      i = field.end;
      line = field.line;
      fields.push(value);
      if (i >= n) break;
      if (text[i] === ",") {
        i++;
        continue;
      }
      // End of record.
      i += text[i] === "\r" ? 2 : 1;
      line++;
      break;
    }
    out.push({ fields, line: startLine });
  }
  return out;
}

/**
 * The quoted field opening at `i`: its value (doubled quotes undone, newlines kept), the index after its closing
 * quote, and the line there. A DatasetFormatError when it never closes or text follows the closing quote.
 */
function quotedField(
  text: string,
  i: number,
  line: number,
  file: string,
): { value: string; end: number; line: number } {
  const quoteLine = line;
  let j = i + 1;
  let buf = "";
  for (;;) {
    const q = text.indexOf('"', j);
    if (q < 0) {
      throw new DatasetFormatError(
        `${file} line ${quoteLine}: unterminated quoted field (a '"' opens a field that is never closed).`,
        { file, line: quoteLine },
      );
    }
    const chunk = text.slice(j, q);
    line += countNewlines(chunk);
    buf += chunk;
    if (text[q + 1] === '"') {
      buf += '"';
      j = q + 2;
      continue;
    }
    i = q + 1;
    break;
  }
  const next = text[i];
  if (next === "\r" && text[i + 1] !== "\n") throw bareCr(file, line);
  if (i < text.length && next !== "," && next !== "\n" && !(next === "\r" && text[i + 1] === "\n")) {
    throw new DatasetFormatError(
      `${file} line ${line}: unexpected text after a closing quote; a quoted field must be followed by ',' or the end of the line.`,
      { file, line },
    );
  }
  return { value: buf, end: i, line };
}

/** The unquoted field starting at `i` and the index after it; a DatasetFormatError for a quote or a bare CR in it. */
function plainField(text: string, i: number, line: number, file: string): { value: string; end: number; line: number } {
  let j = i;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === 44 /* , */ || c === 10 /* \n */) break;
    if (c === 13 /* \r */) {
      if (text.charCodeAt(j + 1) === 10) break;
      throw bareCr(file, line);
    }
    if (c === 34 /* " */) {
      throw new DatasetFormatError(
        `${file} line ${line}: a '"' inside an unquoted field. Quote the whole field and double inner quotes ("a ""b"" c").`,
        { file, line },
      );
    }
    j++;
  }
  return { value: text.slice(i, j), end: j, line };
}

function bareCr(file: string, line: number): DatasetFormatError {
  return new DatasetFormatError(
    `${file} line ${line}: a carriage return (\\r) without a following \\n outside quotes: the file uses old Mac (CR-only) line ` +
      `endings, or a field holds a stray \\r. Re-save it with \\n or \\r\\n line endings, or quote the field.`,
    { file, line },
  );
}

function countNewlines(s: string): number {
  let count = 0;
  for (let k = s.indexOf("\n"); k >= 0; k = s.indexOf("\n", k + 1)) count++;
  return count;
}

/**
 * Format one CSV field: quoted (with inner quotes doubled) when it contains a comma, quote, CR or LF,
 * or has leading/trailing spaces; as is otherwise.
 *
 * @example
 * ```ts
 * formatCsvField('say "hi", then go'); // '"say ""hi"", then go"'
 * ```
 */
export function formatCsvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * Format a CSV table (header + rows) with `\n` line endings and a final newline.
 *
 * @example
 * ```ts
 * formatCsv(["id", "text"], [["1", "a, b"]]); // 'id,text\n1,"a, b"\n'
 * ```
 */
export function formatCsv(header: readonly string[], rows: Iterable<readonly string[]>): string {
  const parts: string[] = [header.map(formatCsvField).join(",")];
  for (const row of rows) parts.push(row.map(formatCsvField).join(","));
  return `${parts.join("\n")}\n`;
}

/**
 * Map from column name to index; throws a {@link DatasetFormatError} listing any missing `required` column.
 *
 * @example
 * ```ts
 * const col = columnIndex(table.header, ["item_id", "text"], "items.csv");
 * const text = record.fields[col.text!];
 * ```
 */
export function columnIndex(
  header: readonly string[],
  required: readonly string[],
  file: string,
): Record<string, number> {
  // no prototype: a column named "constructor", "toString" or "__proto__" is a column like any other
  const index: Record<string, number> = Object.create(null) as Record<string, number>;
  header.forEach((name, k) => {
    if (Object.hasOwn(index, name)) {
      throw new DatasetFormatError(`${file} line 1: column "${name}" appears twice in the header.`, { file, line: 1 });
    }
    index[name] = k;
  });
  const missing = required.filter((name) => !Object.hasOwn(index, name));
  if (missing.length > 0) {
    throw new DatasetFormatError(
      `${file} line 1: missing header column${missing.length > 1 ? "s" : ""} ${missing.map((m) => `"${m}"`).join(", ")} ` +
        `(found: ${header.map((h) => `"${h}"`).join(", ")}).`,
      { file, line: 1, details: { missing: [...missing], found: [...header] } },
    );
  }
  return index;
}
