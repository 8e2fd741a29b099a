/**
 * Reading one table of a your-own-data folder (CSV, gzipped CSV or JSON Lines) into rows addressed by column name,
 * and the conversion of its cells (ids, labels, costs, prices) with an error naming the file and line.
 */
import { DatasetFormatError } from "../../src/errors.js";
import { closestMatch } from "../../src/util/edit-distance.js";
import { columnCountError, columnIndex, parseCsv, parseCsvText, type CsvRecord } from "../../src/data/csv.js";
import { parseCostCell, parseDecimal } from "./matrix.js";
import { COLUMNS, type TableName } from "./own-data-folder.js";
import type { SourceFiles, StreamedLine } from "./source-files.js";

export type Cell = string | number | boolean | null | undefined | object;

/** A table read from CSV or JSONL, accessed by row number without per-row allocations. */
export interface Table {
  readonly rows: number;
  line(r: number): number;
  get(r: number, column: string): Cell;
  /** Columns beyond the known ones present on row `r` (only items tables may have them; kept as `meta`). */
  extra(r: number): string[];
}

export async function readTable(src: SourceFiles, name: string, table: TableName): Promise<Table> {
  const file = src.path(name);
  const text = await src.text(name);
  const { required, optional } = COLUMNS[table];
  const known = new Set([...required, ...optional]);
  if (name.endsWith(".jsonl")) {
    const jsonl = readJsonl(text, file, table, required, known);
    if (jsonl.rows === 0) throw emptyTable(file, table, "holds no records (no non-blank lines)");
    return jsonl;
  }
  const csv = parseCsv(text, file);
  const col = columnIndex(csv.header, required, file);
  const extraCols = csv.header.filter((h) => !known.has(h));
  refuseNearMisses(extraCols, known, file);
  if (extraCols.length > 0 && table !== "items") {
    throw new DatasetFormatError(
      `${file} line 1: unknown column${extraCols.length > 1 ? "s" : ""} ${extraCols.map((c) => `"${c}"`).join(", ")}; ` +
        `${table} files have ${[...required, ...optional].join(", ")}.`,
      { file, line: 1 },
    );
  }
  const records = csv.records;
  if (records.length === 0) throw emptyTable(file, table, "has a header row but no data rows");
  return {
    rows: records.length,
    line: (r) => records[r]!.line,
    get: (r, column) => {
      const k = col[column];
      return k === undefined ? undefined : records[r]!.fields[k];
    },
    extra: () => extraCols,
  };
}

function emptyTable(file: string, table: TableName, what: string): DatasetFormatError {
  const fix =
    table === "items"
      ? "add one row per item (item_id, text)"
      : table === "labels"
        ? "add one row per (item, model) result (item_id, model, correct)"
        : "list the models with their prices, or delete the file (it is optional)";
  return new DatasetFormatError(`${file} ${what}: the ${table} table needs at least one row; ${fix}.`, { file });
}

function readJsonl(text: string, file: string, table: TableName, required: string[], known: Set<string>): Table {
  const records: Record<string, unknown>[] = [];
  const lines: number[] = [];
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a UTF-8 byte-order mark, as for CSV
  for (let line = 1; start <= text.length; line++) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const source = text.slice(start, end > start && text[end - 1] === "\r" ? end - 1 : end);
    start = end + 1;
    const record = jsonlRecord(source, line, file, table, required, known);
    if (!record) continue;
    records.push(record);
    lines.push(line);
  }
  return {
    rows: records.length,
    line: (r) => lines[r]!,
    get: (r, column) => records[r]![column] as Cell,
    extra: (r) => Object.keys(records[r]!).filter((key) => !known.has(key)),
  };
}

/** The record of one JSON Lines line (without its line ending), checked; undefined for a blank line. */
function jsonlRecord(
  source: string,
  line: number,
  file: string,
  table: TableName,
  required: string[],
  known: Set<string>,
): Record<string, unknown> | undefined {
  if (source.trim() === "") return undefined; // a blank line holds no record
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    // JSON strings cannot hold a raw \r, so one here is an old Mac (CR-only) line ending.
    const cr = source.includes("\r")
      ? " The line holds a carriage return (\\r): re-save the file with \\n line endings."
      : "";
    throw new DatasetFormatError(`${file} line ${line}: not valid JSON (${(error as Error).message}).${cr}`, {
      file,
      line,
      cause: error,
    });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new DatasetFormatError(`${file} line ${line}: each line must be a JSON object with ${required.join(", ")}.`, {
      file,
      line,
    });
  }
  const duplicate = duplicateJsonKey(source);
  if (duplicate !== undefined) {
    throw new DatasetFormatError(
      `${file} line ${line}: key ${JSON.stringify(duplicate)} appears twice in one object (JSON would silently keep only the last); keep one.`,
      { file, line },
    );
  }
  const record = value as Record<string, unknown>;
  const missing = required.filter((c) => !(c in record));
  if (missing.length > 0) {
    throw new DatasetFormatError(
      `${file} line ${line}: missing field${missing.length > 1 ? "s" : ""} ${missing.map((m) => `"${m}"`).join(", ")}.`,
      {
        file,
        line,
      },
    );
  }
  // a misspelt known field (`categroy`) is refused as in a CSV header, not kept as item metadata
  const extraKeys = Object.keys(record).filter((key) => !known.has(key));
  refuseNearMisses(extraKeys, known, file, line, "field");
  if (table !== "items") {
    if (extraKeys.length > 0) {
      throw new DatasetFormatError(
        `${file} line ${line}: unknown field${extraKeys.length > 1 ? "s" : ""} ${extraKeys.map((c) => `"${c}"`).join(", ")}; ` +
          `${table} records have ${[...known].join(", ")}.`,
        { file, line },
      );
    }
  }
  return record;
}

/** One row of a table read as a stream. */
export interface StreamedRow {
  readonly line: number;
  get(column: string): Cell;
}

/**
 * A table (labels, models) read as a stream of rows, in batches: the same checks and errors as {@link readTable}
 * (columns, records, an empty table), but memory holds a chunk of the file, not the file. Not for items tables (their
 * extra columns become item metadata).
 */
export async function* streamTable(src: SourceFiles, name: string, table: TableName): AsyncGenerator<StreamedRow[]> {
  const file = src.path(name);
  const { required, optional } = COLUMNS[table];
  const known = new Set([...required, ...optional]);
  let rows = 0;
  if (name.endsWith(".jsonl")) {
    for await (const batch of src.lines(name)) {
      const out: StreamedRow[] = [];
      for (const { text, line } of batch) {
        let source = line === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
        if (source.endsWith("\r")) source = source.slice(0, -1);
        const record = jsonlRecord(source, line, file, table, required, known);
        if (record) out.push({ line, get: (column) => record[column] as Cell });
      }
      rows += out.length;
      if (out.length > 0) yield out;
    }
    if (rows === 0) throw emptyTable(file, table, "holds no records (no non-blank lines)");
    return;
  }
  let col: Record<string, number> | undefined;
  let width = 0;
  for await (const records of csvRecords(src.lines(name), file)) {
    const out: StreamedRow[] = [];
    for (const record of records) {
      if (!col) {
        const header = record.fields;
        col = columnIndex(header, required, file);
        width = header.length;
        const extraCols = header.filter((h) => !known.has(h));
        refuseNearMisses(extraCols, known, file);
        if (extraCols.length > 0) {
          throw new DatasetFormatError(
            `${file} line 1: unknown column${extraCols.length > 1 ? "s" : ""} ${extraCols.map((c) => `"${c}"`).join(", ")}; ` +
              `${table} files have ${[...required, ...optional].join(", ")}.`,
            { file, line: 1 },
          );
        }
        continue;
      }
      if (record.fields.length !== width) throw columnCountError(file, record, Object.keys(col));
      const at = col;
      const fields = record.fields;
      out.push({ line: record.line, get: (column) => (at[column] === undefined ? undefined : fields[at[column]!]) });
    }
    rows += out.length;
    if (out.length > 0) yield out;
  }
  if (!col) throw new DatasetFormatError(`${file} is empty: expected a header row.`, { file, line: 1 });
  if (rows === 0) throw emptyTable(file, table, "has a header row but no data rows");
}

/**
 * CSV records from a stream of lines: lines are joined while a quoted field is open (an odd count of quotes so far),
 * and each record is parsed by the CSV rules of {@link parseCsv}, with its line numbers.
 */
async function* csvRecords(lines: AsyncIterable<StreamedLine[]>, file: string): AsyncGenerator<CsvRecord[]> {
  let text = "";
  let first = 0;
  let open = false;
  for await (const batch of lines) {
    const out: CsvRecord[] = [];
    for (const { text: piece, line } of batch) {
      if (first === 0) [text, first] = [piece, line];
      else text += `\n${piece}`;
      if (countQuotes(piece) % 2 === 1) open = !open;
      if (open) continue;
      for (const r of parseCsvText(`${text}\n`, file, first)) out.push(r);
      [text, first] = ["", 0];
    }
    if (out.length > 0) yield out;
  }
  if (first !== 0) yield parseCsvText(text, file, first); // an unterminated quoted field: the parser names it
}

function countQuotes(s: string): number {
  let n = 0;
  for (let k = s.indexOf('"'); k >= 0; k = s.indexOf('"', k + 1)) n++;
  return n;
}

/**
 * The first key that appears twice in one object of the (valid) JSON text `source`, or undefined.
 * Keys are compared after unescaping (`"a"` and `"\u0061"` are the same key).
 */
function duplicateJsonKey(source: string): string | undefined {
  const stack: (Set<string> | null)[] = []; // a Set per open object, null per open array
  let expectKey = false;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 34 /* " */) {
      let j = i + 1;
      while (j < source.length && source.charCodeAt(j) !== 34) j += source.charCodeAt(j) === 92 /* \ */ ? 2 : 1;
      const keys = stack[stack.length - 1];
      if (expectKey && keys) {
        const raw = source.slice(i, j + 1);
        const key = raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (keys.has(key)) return key;
        keys.add(key);
        expectKey = false;
      }
      i = j;
    } else if (c === 123 /* { */) {
      stack.push(new Set());
      expectKey = true;
    } else if (c === 91 /* [ */) {
      stack.push(null);
      expectKey = false;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      stack.pop();
      expectKey = false;
    } else if (c === 44 /* , */) {
      expectKey = stack[stack.length - 1] instanceof Set;
    }
  }
  return undefined;
}

export function asId(value: Cell, file: string, line: number, field: string): string {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string" || value.trim() === "") {
    throw new DatasetFormatError(
      `${file} line ${line}: "${field}" must be a non-empty string, got ${JSON.stringify(value ?? null)}.`,
      {
        file,
        line,
      },
    );
  }
  if (value.trim() !== value) {
    throw new DatasetFormatError(
      `${file} line ${line}: "${field}" ${JSON.stringify(value)} has leading or trailing whitespace; ids are matched exactly, ` +
        `so remove the spaces (write ${JSON.stringify(value.trim())}).`,
      { file, line },
    );
  }
  return value;
}

export function asString(value: Cell): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
}

export function asCorrect(value: Cell, file: string, line: number): number {
  if (typeof value === "boolean") return value ? 1 : 0;
  let v = Number.NaN;
  if (typeof value === "number") v = value;
  else if (typeof value === "string") {
    const text = value.trim().toLowerCase();
    v = text === "true" ? 1 : text === "false" ? 0 : parseDecimal(text);
  }
  if (Number.isFinite(v) && v >= 0 && v <= 1) return v;
  throw new DatasetFormatError(
    `${file} line ${line}: "correct" must be a number in [0, 1] (or true/false), got ${JSON.stringify(value ?? null)}. ` +
      `Leave out the row of a pair you have no result for.`,
    { file, line },
  );
}

export function asCost(value: Cell, file: string, line: number): number {
  if (value === undefined || value === null) return Number.NaN;
  if (typeof value === "number") {
    if (Number.isFinite(value) && value >= 0) return value;
  } else if (typeof value === "string") {
    return parseCostCell(value, file, line, "cost_usd");
  }
  throw new DatasetFormatError(
    `${file} line ${line}: "cost_usd" must be a number >= 0 (USD) or blank, got ${JSON.stringify(value)}.`,
    {
      file,
      line,
    },
  );
}

export function asPrice(value: Cell, file: string, line: number, field: string): number | undefined {
  if (value === undefined || value === null || (typeof value === "string" && value.trim() === "")) return undefined;
  const v = typeof value === "number" ? value : typeof value === "string" ? parseDecimal(value) : Number.NaN;
  if (!Number.isFinite(v) || v < 0) {
    throw new DatasetFormatError(
      `${file} line ${line}: "${field}" must be a number >= 0 (USD per 1M tokens) or blank, got ${JSON.stringify(value)}.`,
      {
        file,
        line,
      },
    );
  }
  return v;
}

/**
 * The optional `cached_input_usd_per_1m` cell of a models row as `{ cachedInputPer1M }` (empty when blank): a price
 * >= 0 and at most the row's input price.
 */
export function cachedInputCell(
  value: Cell,
  input: number | undefined,
  file: string,
  line: number,
): { cachedInputPer1M?: number } {
  const cached = asPrice(value, file, line, "cached_input_usd_per_1m");
  if (cached === undefined) return {};
  if (input === undefined) {
    throw new DatasetFormatError(
      `${file} line ${line}: "cached_input_usd_per_1m" is given without "input_usd_per_1m" and "output_usd_per_1m"; give all three or leave the cached price blank.`,
      { file, line },
    );
  }
  if (cached > input) {
    throw new DatasetFormatError(
      `${file} line ${line}: "cached_input_usd_per_1m" (${cached}) must not exceed "input_usd_per_1m" (${input}): ` +
        `it is the price of input served from the prompt cache.`,
      { file, line },
    );
  }
  return { cachedInputPer1M: cached };
}

/**
 * A column not among the known ones but within two edits of one (`ategory`, `item-id`) is a misspelling, not a meta
 * column: a DatasetFormatError with "did you mean", instead of the column silently becoming item metadata.
 */
function refuseNearMisses(
  extraCols: readonly string[],
  known: ReadonlySet<string>,
  file: string,
  line = 1,
  noun: "column" | "field" = "column",
): void {
  for (const column of extraCols) {
    const near = closestMatch(column, [...known], column.length >= 6 ? 2 : 1);
    if (near === undefined) continue;
    throw new DatasetFormatError(
      `${file} line ${line}: ${noun} "${column}" is not a known ${noun}; did you mean "${near}"? ` +
        `Rename it (a ${noun} meant as item metadata needs a name that is not two edits from ${[...known].map((k) => `"${k}"`).join(", ")}).`,
      { file, line, details: { column, suggestion: near } },
    );
  }
}
