import { existsSync, readdirSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { z } from "zod";
import { DatasetFormatError, DatasetNotFoundError, type IrtRouterError } from "../../src/errors.js";
import { columnIndex, formatCsv, parseCsv } from "../../src/data/csv.js";
import { csrFromTriplets } from "../../src/data/csr.js";
import { TEXT_RULES_VERSION } from "../../src/data/text-rules.js";
import type { CorrectnessDataset, DatasetItem, ModelPrice } from "../../src/data/types.js";
import { closestMatch } from "../../src/util/edit-distance.js";
import { parseWith } from "../../src/util/validate.js";
import { labelKindOf, parseCostCell, parseDecimal } from "./matrix.js";
import { SourceFiles } from "./source-files.js";

const gzipAsync = promisify(gzip);

/** File formats of the your-own-data folder. */
export type OwnDataFormat = "csv" | "csv.gz" | "jsonl";
const FORMATS: readonly OwnDataFormat[] = ["csv", "csv.gz", "jsonl"];

/** Base names of the folder's tables. */
const TABLES = ["items", "labels", "models"] as const;
type TableName = (typeof TABLES)[number];

const COLUMNS: Record<TableName, { required: string[]; optional: string[] }> = {
  items: { required: ["item_id", "text"], optional: ["category"] },
  labels: { required: ["item_id", "model", "correct"], optional: ["cost_usd"] },
  models: { required: ["model", "input_usd_per_1m", "output_usd_per_1m"], optional: ["cached_input_usd_per_1m"] },
};

/** Which file of the folder holds `table` (`items.csv`, `items.csv.gz` or `items.jsonl`), or undefined. */
export function findOwnDataFile(dir: string, table: TableName): string | undefined {
  const present = FORMATS.map((f) => `${table}.${f}`).filter((name) => existsSync(join(dir, name)));
  if (present.length > 1) {
    throw new DatasetFormatError(
      `${dir} holds ${present.join(" and ")}: keep exactly one ${table} file so it is clear which one to read.`,
      { file: join(dir, present[1]!) },
    );
  }
  return present[0];
}

/** `items.csv, items.csv.gz or items.jsonl`. */
function acceptedNames(table: TableName): string {
  const names = FORMATS.map((f) => `${table}.${f}`);
  return `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

/** Extensions of files that are probably meant as a table when their stem is close to a table name. */
const DATA_LIKE = /^(csv|tsv|json|jsonl|ndjson|xlsx?|parquet)(\.gz)?$|^gz$/i;

/** Extensions of documentation files, never mistaken for a table. */
const DOCS = /^(md|markdown|rst|html?|pdf)$/i;

/** The table that `stem` probably misspells: within one edit of it (case-insensitive), or one adjacent swap ("lables"). */
function nearTable(stem: string): TableName | undefined {
  const lower = stem.toLowerCase();
  const close = closestMatch(lower, TABLES, 1) as TableName | undefined;
  if (close) return close;
  const sorted = (s: string) => [...s].sort().join("");
  return TABLES.find((t) => t.length === lower.length && sorted(t) === sorted(lower) && closestMatch(lower, [t], 2) === t);
}

/**
 * Check the file names of a your-own-data folder and find its tables. A file that looks like a table
 * but is not one of the accepted names (`model.csv`, `Items.csv`, `labels.json`, `lables.csv`) is a
 * {@link DatasetFormatError} rather than silently ignored; unrelated files (README.md, notes.txt, backups) are fine.
 */
function scanOwnDataFolder(dir: string): Partial<Record<TableName, string>> {
  let entries: string[];
  try {
    entries = readdirSync(dir, { withFileTypes: true })
      .filter((e) => !e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch (error) {
    throw new DatasetNotFoundError(`${dir} cannot be read as a folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`, {
      file: dir,
      cause: error,
    });
  }
  for (const name of entries) {
    if (name.startsWith(".")) continue;
    const dot = name.indexOf(".");
    const stem = dot < 0 ? name : name.slice(0, dot);
    const ext = dot < 0 ? "" : name.slice(dot + 1);
    if (DOCS.test(ext)) continue; // items.md describing the table is documentation, not a table
    if ((TABLES as readonly string[]).includes(stem)) {
      if ((FORMATS as readonly string[]).includes(ext)) continue;
      // notes and backups beside a table (models.txt, labels.csv.bak, items.csv~) are not tables
      if (ext !== "" && !DATA_LIKE.test(ext)) continue;
      throw new DatasetFormatError(
        `${join(dir, name)}: ${ext === "" ? "a table file needs an extension" : `".${ext}" is not a supported table format`}; ` +
          `the ${stem} table must be named ${acceptedNames(stem as TableName)} (JSON Lines: one object per line, not a JSON array). ` +
          `Rename or convert it, or move it out of the folder.`,
        { file: join(dir, name), details: { accepted: FORMATS.map((f) => `${stem}.${f}`) } },
      );
    }
    const table = nearTable(stem);
    if (table && (ext === "" || DATA_LIKE.test(ext))) {
      const rename = (FORMATS as readonly string[]).includes(ext.toLowerCase()) ? `${table}.${ext.toLowerCase()}` : `${table}.csv`;
      throw new DatasetFormatError(
        `${join(dir, name)}: "${name}" is not a table name of a your-own-data folder; did you mean ${rename}? ` +
          `The tables are named exactly (lower case) ${acceptedNames("items")}; ${acceptedNames("labels")}; ${acceptedNames("models")}. ` +
          `Rename it, or move it out of the folder.`,
        { file: join(dir, name), details: { suggestion: rename } },
      );
    }
  }
  const found: Partial<Record<TableName, string>> = {};
  for (const table of TABLES) {
    const name = findOwnDataFile(dir, table);
    if (name) found[table] = name;
  }
  return found;
}

function missingTables(dir: string, found: Partial<Record<TableName, string>>): DatasetNotFoundError {
  const missing = (["items", "labels"] as const).filter((t) => !found[t]);
  const have = TABLES.filter((t) => found[t]).map((t) => found[t]!);
  const need = missing.map((t) => `${t} (${acceptedNames(t)}, with ${COLUMNS[t].required.join(", ")})`).join(" and ");
  return new DatasetNotFoundError(
    `${dir} is not a complete your-own-data folder: ${have.length > 0 ? `it has ${have.join(" and ")} but` : "it has"} ` +
      `no ${missing.join(" and no ")} table. Missing: ${missing.join(" and ")}. Add ${need}. See docs/your-own-data.md.`,
    { file: dir, details: { missing } },
  );
}

/**
 * Why `dir` is a broken your-own-data folder, when it has any sign of being one (an items or labels
 * table, or a misnamed table file) but cannot be loaded as one; undefined for a loadable folder or an unrelated one.
 * Used by dataset resolution to give this error instead of a generic "not found".
 */
export function ownDataFolderProblem(dir: string): IrtRouterError | undefined {
  let found: Partial<Record<TableName, string>>;
  try {
    found = scanOwnDataFolder(dir);
  } catch (error) {
    if (error instanceof DatasetFormatError) return error;
    throw error;
  }
  if (!found.items && !found.labels) return undefined; // a models table alone (e.g. mmlu-pro's models.csv) is no sign
  return found.items && found.labels ? undefined : missingTables(dir, found);
}

/**
 * Whether `dir` looks like a your-own-data folder (has an items and a labels file).
 *
 * @example
 * ```ts
 * if (isOwnDataFolder("./my-evals")) console.log("loadable with loadDataset('./my-evals')");
 * ```
 */
export function isOwnDataFolder(dir: string): boolean {
  return FORMATS.some((f) => existsSync(join(dir, `items.${f}`))) && FORMATS.some((f) => existsSync(join(dir, `labels.${f}`)));
}

/** A cell value as read from CSV (always a string) or JSONL (any JSON value). */
type Cell = string | number | boolean | null | undefined | object;

/** A table read from CSV or JSONL, accessed by row number without per-row allocations. */
interface Table {
  readonly rows: number;
  line(r: number): number;
  get(r: number, column: string): Cell;
  /** Columns beyond the known ones present on row `r` (only items tables may have them; kept as `meta`). */
  extra(r: number): string[];
}

async function readTable(src: SourceFiles, name: string, table: TableName): Promise<Table> {
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
    if (source.trim() === "") continue; // a blank line holds no record
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (error) {
      // JSON strings cannot hold a raw \r, so one here is an old Mac (CR-only) line ending.
      const cr = source.includes("\r") ? " The line holds a carriage return (\\r): re-save the file with \\n line endings." : "";
      throw new DatasetFormatError(`${file} line ${line}: not valid JSON (${(error as Error).message}).${cr}`, { file, line, cause: error });
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new DatasetFormatError(`${file} line ${line}: each line must be a JSON object with ${required.join(", ")}.`, { file, line });
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
      throw new DatasetFormatError(`${file} line ${line}: missing field${missing.length > 1 ? "s" : ""} ${missing.map((m) => `"${m}"`).join(", ")}.`, {
        file,
        line,
      });
    }
    if (table !== "items") {
      const extraKeys = Object.keys(record).filter((key) => !known.has(key));
      if (extraKeys.length > 0) {
        throw new DatasetFormatError(
          `${file} line ${line}: unknown field${extraKeys.length > 1 ? "s" : ""} ${extraKeys.map((c) => `"${c}"`).join(", ")}; ` +
            `${table} records have ${[...known].join(", ")}.`,
          { file, line },
        );
      }
    }
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

function asId(value: Cell, file: string, line: number, field: string): string {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string" || value.trim() === "") {
    throw new DatasetFormatError(`${file} line ${line}: "${field}" must be a non-empty string, got ${JSON.stringify(value ?? null)}.`, {
      file,
      line,
    });
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

function asString(value: Cell): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
}

function asCorrect(value: Cell, file: string, line: number): number {
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

function asCost(value: Cell, file: string, line: number): number {
  if (value === undefined || value === null) return Number.NaN;
  if (typeof value === "number") {
    if (Number.isFinite(value) && value >= 0) return value;
  } else if (typeof value === "string") {
    return parseCostCell(value, file, line, "cost_usd");
  }
  throw new DatasetFormatError(`${file} line ${line}: "cost_usd" must be a number >= 0 (USD) or blank, got ${JSON.stringify(value)}.`, {
    file,
    line,
  });
}

function asPrice(value: Cell, file: string, line: number, field: string): number | undefined {
  if (value === undefined || value === null || (typeof value === "string" && value.trim() === "")) return undefined;
  const v = typeof value === "number" ? value : typeof value === "string" ? parseDecimal(value) : Number.NaN;
  if (!Number.isFinite(v) || v < 0) {
    throw new DatasetFormatError(`${file} line ${line}: "${field}" must be a number >= 0 (USD per 1M tokens) or blank, got ${JSON.stringify(value)}.`, {
      file,
      line,
    });
  }
  return v;
}

/**
 * The optional `cached_input_usd_per_1m` cell of a models row as `{ cachedInputPer1M }` (empty when blank): a price
 * >= 0 and at most the row's input price.
 */
function cachedInputCell(value: Cell, input: number | undefined, file: string, line: number): { cachedInputPer1M?: number } {
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
 * Load a your-own-data folder (format: docs/your-own-data.md). The dataset's name, `D` of the split rule,
 * is the folder's base name.
 *
 * Model order: the rows of `models.*` when present (a label for a model it does not list is then an
 * error), else the models of `labels.*` in order of first appearance. Items keep the order of `items.*`;
 * an item without labels is kept (it has no observations). Every bad row is a {@link DatasetFormatError}
 * naming the file and its 1-based line; so is a file that is not UTF-8, an empty table, or a misnamed
 * table file (`model.csv`, `labels.json`). A missing items or labels table is a {@link DatasetNotFoundError}.
 *
 * @example
 * ```ts
 * const ds = await loadOwnDataFolder("./my-evals"); // items.csv + labels.csv (+ models.csv)
 * ```
 */
export async function loadOwnDataFolder(folder: string): Promise<CorrectnessDataset> {
  const dir = resolve(parseWith(z.string().min(1, "must be a folder path"), folder, "folder"));
  const found = scanOwnDataFolder(dir);
  const { items: itemsName, labels: labelsName, models: modelsName } = found;
  if (!itemsName || !labelsName) throw missingTables(dir, found);
  const src = new SourceFiles(dir, JSON.stringify({ loader: "own-data", textRules: TEXT_RULES_VERSION }));

  // Items.
  const itemsFile = src.path(itemsName);
  const items: DatasetItem[] = [];
  const itemIndex = new Map<string, { index: number; line: number }>();
  const itemTable = await readTable(src, itemsName, "items");
  for (let r = 0; r < itemTable.rows; r++) {
    const line = itemTable.line(r);
    const id = asId(itemTable.get(r, "item_id"), itemsFile, line, "item_id");
    const previous = itemIndex.get(id);
    if (previous) {
      throw new DatasetFormatError(`${itemsFile} line ${line}: duplicate item id "${id}" (first on line ${previous.line}).`, {
        file: itemsFile,
        line,
      });
    }
    const textCell = itemTable.get(r, "text");
    if (typeof textCell !== "string") {
      throw new DatasetFormatError(
        `${itemsFile} line ${line}: item "${id}": "text" must be a string (the query text a router would see), got ${JSON.stringify(textCell ?? null)}. ` +
          `Quote it in JSON ("text": "...").`,
        { file: itemsFile, line },
      );
    }
    if (textCell.trim() === "") {
      throw new DatasetFormatError(`${itemsFile} line ${line}: item "${id}" has an empty text; every item needs the query text a router would see.`, {
        file: itemsFile,
        line,
      });
    }
    const category = asString(itemTable.get(r, "category"));
    const extraKeys = itemTable.extra(r);
    const item: DatasetItem = {
      id,
      text: textCell,
      ...(category !== "" ? { category } : {}),
      ...(extraKeys.length > 0 ? { meta: Object.fromEntries(extraKeys.map((k) => [k, asString(itemTable.get(r, k))])) } : {}),
    };
    itemIndex.set(id, { index: items.length, line });
    items.push(item);
  }

  // Models (optional) first, so their order defines the catalog order.
  const models: string[] = [];
  const modelIndex = new Map<string, number>();
  const prices: Record<string, ModelPrice> = {};
  if (modelsName) {
    const modelsFile = src.path(modelsName);
    const modelTable = await readTable(src, modelsName, "models");
    const lineOf = new Map<string, number>();
    for (let r = 0; r < modelTable.rows; r++) {
      const line = modelTable.line(r);
      const model = asId(modelTable.get(r, "model"), modelsFile, line, "model");
      if (lineOf.has(model)) {
        throw new DatasetFormatError(`${modelsFile} line ${line}: model "${model}" is listed twice (first on line ${lineOf.get(model)}).`, {
          file: modelsFile,
          line,
        });
      }
      lineOf.set(model, line);
      modelIndex.set(model, models.length);
      models.push(model);
      const input = asPrice(modelTable.get(r, "input_usd_per_1m"), modelsFile, line, "input_usd_per_1m");
      const output = asPrice(modelTable.get(r, "output_usd_per_1m"), modelsFile, line, "output_usd_per_1m");
      if ((input === undefined) !== (output === undefined)) {
        throw new DatasetFormatError(
          `${modelsFile} line ${line}: give both input_usd_per_1m and output_usd_per_1m for "${model}", or leave both blank.`,
          { file: modelsFile, line },
        );
      }
      const cached = cachedInputCell(modelTable.get(r, "cached_input_usd_per_1m"), input, modelsFile, line);
      if (input !== undefined && output !== undefined) prices[model] = { inputPer1M: input, outputPer1M: output, ...cached };
    }
  }

  // Labels.
  const labelsFile = src.path(labelsName);
  const labelTable = await readTable(src, labelsName, "labels");
  let hasCost = false;
  for (let r = 0; r < labelTable.rows && !hasCost; r++) hasCost = labelTable.get(r, "cost_usd") !== undefined;
  const entryItem: number[] = [];
  const entryModel: number[] = [];
  const entryY: number[] = [];
  const entryCost: number[] = [];
  // (item, model) -> line of its label, keyed by a number: item * 2^21 + model.
  const pairLine = new Map<number, number>();
  for (let r = 0; r < labelTable.rows; r++) {
    const line = labelTable.line(r);
    const id = asId(labelTable.get(r, "item_id"), labelsFile, line, "item_id");
    const item = itemIndex.get(id);
    if (!item) {
      throw new DatasetFormatError(`${labelsFile} line ${line}: unknown item "${id}" (not in ${itemsName}).`, {
        file: labelsFile,
        line,
      });
    }
    const model = asId(labelTable.get(r, "model"), labelsFile, line, "model");
    let m = modelIndex.get(model);
    if (m === undefined && modelsName) {
      // With a models table, it is the full list: an unlisted model is most likely a typo, and would have no price.
      const close = closestMatch(model, models, Math.max(2, Math.floor(model.length / 4)));
      throw new DatasetFormatError(
        `${labelsFile} line ${line}: model "${model}" is not listed in ${modelsName}` +
          `${close !== undefined ? ` (did you mean "${close}"?)` : ""}. Fix the name, or add a row for it to ${modelsName}.`,
        { file: labelsFile, line, details: { model, ...(close !== undefined ? { suggestion: close } : {}) } },
      );
    }
    if (m === undefined) {
      m = models.length;
      if (m >= 2 ** 21) {
        throw new DatasetFormatError(`${labelsFile} line ${line}: more than ${2 ** 21} distinct models.`, { file: labelsFile, line });
      }
      modelIndex.set(model, m);
      models.push(model);
    }
    const pair = item.index * 2 ** 21 + m;
    const previous = pairLine.get(pair);
    if (previous !== undefined) {
      throw new DatasetFormatError(
        `${labelsFile} line ${line}: duplicate label for item "${id}" and model "${model}" (first on line ${previous}). Keep one row per (item, model).`,
        { file: labelsFile, line },
      );
    }
    pairLine.set(pair, line);
    entryItem.push(item.index);
    entryModel.push(m);
    entryY.push(asCorrect(labelTable.get(r, "correct"), labelsFile, line));
    if (hasCost) entryCost.push(asCost(labelTable.get(r, "cost_usd"), labelsFile, line));
  }
  const labels = csrFromTriplets(items.length, entryItem, entryModel, entryY, hasCost ? entryCost : undefined);
  return {
    name: basename(dir),
    models,
    items,
    labels,
    labelKind: labelKindOf(labels.y),
    ...(Object.keys(prices).length > 0 ? { prices } : {}),
    source: src.finish(),
  };
}

const writeOptionsSchema = z
  .object({
    format: z.enum(["csv", "csv.gz", "jsonl"]).default("csv"),
    overwrite: z.boolean().default(false),
  })
  .strict();

/** Options of {@link writeOwnDataFolder}. */
export type WriteOwnDataOptions = z.input<typeof writeOptionsSchema>;

/**
 * Write a dataset as a your-own-data folder (items, labels and models tables in one format), e.g. to
 * convert a dataset or to hand-edit one. Loading the folder back gives the same items, texts, categories,
 * labels, costs, model order and prices; name the folder like the dataset to keep the same split.
 * Refuses to overwrite existing tables unless `overwrite: true`. The third argument may also be just the
 * format (`writeOwnDataFolder(ds, dir, "jsonl")`). Returns the paths written.
 *
 * @example
 * ```ts
 * const ds = await loadDataset("routerbench-subset-11models");
 * await writeOwnDataFolder(ds, "/tmp/routerbench-subset-11models", { format: "jsonl" });
 * ```
 */
export async function writeOwnDataFolder(
  ds: CorrectnessDataset,
  folder: string,
  options: WriteOwnDataOptions | OwnDataFormat = {},
): Promise<string[]> {
  const { format, overwrite } = parseWith(writeOptionsSchema, typeof options === "string" ? { format: options } : options, "options");
  const dir = resolve(folder);
  await mkdir(dir, { recursive: true });
  if (!overwrite) {
    const existing = TABLES.flatMap((t) => FORMATS.map((f) => `${t}.${f}`)).filter((name) => existsSync(join(dir, name)));
    if (existing.length > 0) {
      throw new DatasetFormatError(`${dir} already holds ${existing.join(", ")}; pass overwrite: true to replace them.`, { file: dir });
    }
  } else {
    // Another format's table would make the folder ambiguous.
    const stale = TABLES.flatMap((t) => FORMATS.filter((f) => f !== format).map((f) => `${t}.${f}`)).filter((name) => existsSync(join(dir, name)));
    if (stale.length > 0) {
      throw new DatasetFormatError(`${dir} holds ${stale.join(", ")} in another format; remove them first.`, { file: dir });
    }
  }

  const metaKeys = [...new Set(ds.items.flatMap((item) => Object.keys(item.meta ?? {})))];
  const clash = metaKeys.filter((k) => COLUMNS.items.required.includes(k) || COLUMNS.items.optional.includes(k));
  if (clash.length > 0) {
    throw new DatasetFormatError(`Item meta key(s) ${clash.join(", ")} clash with the items columns; rename them before writing.`, {});
  }
  const itemsHeader = ["item_id", "text", "category", ...metaKeys];
  const itemRows = ds.items.map((item) => [item.id, item.text, item.category ?? "", ...metaKeys.map((k) => item.meta?.[k] ?? "")]);

  const { offsets, model, y, cost } = ds.labels;
  const labelsHeader = cost ? ["item_id", "model", "correct", "cost_usd"] : ["item_id", "model", "correct"];
  const labelRows: (string | number | null)[][] = [];
  ds.items.forEach((item, i) => {
    for (let k = offsets[i]!; k < offsets[i + 1]!; k++) {
      const row: (string | number | null)[] = [item.id, ds.models[model[k]!]!, y[k]!];
      if (cost) row.push(Number.isNaN(cost[k]!) ? null : cost[k]!);
      labelRows.push(row);
    }
  });

  const withCached = Object.values(ds.prices ?? {}).some((p) => p.cachedInputPer1M !== undefined);
  const modelsHeader = ["model", "input_usd_per_1m", "output_usd_per_1m", ...(withCached ? ["cached_input_usd_per_1m"] : [])];
  const modelRows = ds.models.map((m) => [
    m,
    ds.prices?.[m]?.inputPer1M ?? null,
    ds.prices?.[m]?.outputPer1M ?? null,
    ...(withCached ? [ds.prices?.[m]?.cachedInputPer1M ?? null] : []),
  ]);
  // Prices of models outside the catalog are kept too (they load back into `prices`)...
  const extraPriced = Object.keys(ds.prices ?? {}).filter((m) => !ds.models.includes(m));
  if (extraPriced.length > 0) {
    // ...but a models row adds the model to the catalog, so refuse rather than change the dataset.
    throw new DatasetFormatError(
      `Prices are given for model(s) ${extraPriced.join(", ")} that have no place in the model list; the folder format cannot keep them apart.`,
      {},
    );
  }

  const written: string[] = [];
  const tables: [TableName, string[], (string | number | null)[][]][] = [
    ["items", itemsHeader, itemRows],
    ["labels", labelsHeader, labelRows],
    ["models", modelsHeader, modelRows],
  ];
  for (const [table, header, rows] of tables) {
    const path = join(dir, `${table}.${format}`);
    const text =
      format === "jsonl"
        ? rows.map((row) => JSON.stringify(Object.fromEntries(header.map((h, k) => [h, row[k] ?? null])))).join("\n") + "\n"
        : formatCsv(
            header,
            rows.map((row) => row.map((v) => (v === null ? "" : String(v)))),
          );
    await writeFile(path, format === "csv.gz" ? await gzipAsync(Buffer.from(text, "utf8")) : text);
    written.push(path);
  }
  return written;
}
