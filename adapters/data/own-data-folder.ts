/**
 * The file layout of a your-own-data folder: its table names and formats, the check of its file names (a misnamed
 * table is an error, not ignored) and the question whether a folder is one.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { DatasetFormatError, DatasetNotFoundError, type IrtRouterError } from "../../src/errors.js";
import { closestMatch } from "../../src/util/edit-distance.js";

/** File formats of the your-own-data folder. */
export type OwnDataFormat = "csv" | "csv.gz" | "jsonl";
export const FORMATS: readonly OwnDataFormat[] = ["csv", "csv.gz", "jsonl"];

/** Base names of the folder's tables. */
export const TABLES = ["items", "labels", "models"] as const;
export type TableName = (typeof TABLES)[number];

export const COLUMNS: Record<TableName, { required: string[]; optional: string[] }> = {
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
  return TABLES.find(
    (t) => t.length === lower.length && sorted(t) === sorted(lower) && closestMatch(lower, [t], 2) === t,
  );
}

/**
 * Check the file names of a your-own-data folder and find its tables. A file that looks like a table
 * but is not one of the accepted names (`model.csv`, `Items.csv`, `labels.json`, `lables.csv`) is a
 * {@link DatasetFormatError} rather than silently ignored; unrelated files (README.md, notes.txt, backups) are fine.
 */
export function scanOwnDataFolder(dir: string): Partial<Record<TableName, string>> {
  let entries: string[];
  try {
    entries = readdirSync(dir, { withFileTypes: true })
      .filter((e) => !e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch (error) {
    throw new DatasetNotFoundError(
      `${dir} cannot be read as a folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
      {
        file: dir,
        cause: error,
      },
    );
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
      const rename = (FORMATS as readonly string[]).includes(ext.toLowerCase())
        ? `${table}.${ext.toLowerCase()}`
        : `${table}.csv`;
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

export function missingTables(dir: string, found: Partial<Record<TableName, string>>): DatasetNotFoundError {
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
  return (
    FORMATS.some((f) => existsSync(join(dir, `items.${f}`))) &&
    FORMATS.some((f) => existsSync(join(dir, `labels.${f}`)))
  );
}
