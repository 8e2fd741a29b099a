import { DatasetFormatError } from "../../src/errors.js";
import { CsrBuilder } from "../../src/data/csr.js";
import type { CsvTable } from "../../src/data/csv.js";
import type { CorrectnessDataset } from "../../src/data/types.js";

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** A decimal number (`1`, `0.25`, `.5`, `1e-3`), or NaN for anything else (hex, `Infinity`, blanks, words). */
export function parseDecimal(text: string): number {
  const s = text.trim();
  return DECIMAL.test(s) ? Number(s) : Number.NaN;
}

/**
 * Parse one label cell. Blank = unobserved (`undefined`). Accepts numbers in [0, 1] (`1`, `0.0`, `0.37`)
 * and `true`/`false` (any case). Anything else is a {@link DatasetFormatError}.
 */
export function parseLabelCell(cell: string, file: string, line: number, column: string): number | undefined {
  const s = cell.trim();
  if (s === "") return undefined;
  const lower = s.toLowerCase();
  if (lower === "true") return 1;
  if (lower === "false") return 0;
  const v = parseDecimal(s);
  if (!Number.isFinite(v) || v < 0 || v > 1) {
    throw new DatasetFormatError(
      `${file} line ${line}, column "${column}": correctness must be a number in [0, 1] (or true/false, or blank for unobserved), got "${cell}".`,
      { file, line, details: { column, value: cell } },
    );
  }
  return v;
}

/** Parse a cost cell: blank = unknown (NaN); otherwise a finite number >= 0. */
export function parseCostCell(cell: string, file: string, line: number, column: string): number {
  const s = cell.trim();
  if (s === "") return Number.NaN;
  const v = parseDecimal(s);
  if (!Number.isFinite(v) || v < 0) {
    throw new DatasetFormatError(
      `${file} line ${line}, column "${column}": cost must be a number >= 0 (USD) or blank, got "${cell}".`,
      { file, line, details: { column, value: cell } },
    );
  }
  return v;
}

interface MatrixInput {
  /** Item ids in item order. */
  itemIds: readonly string[];
  /** Label matrix: first column = item id, one column per model. */
  labels: CsvTable;
  labelsFile: string;
  /** Optional cost matrix with the same id column and model columns (any order). */
  cost?: CsvTable;
  costFile?: string;
}

/**
 * Turn a wide matrix (`id, model1, model2, ...`; blank = unobserved) into CSR labels aligned with
 * `itemIds`. Every matrix row must name a known item, exactly once, and every item must have a row.
 */
export function matrixToCsr(input: MatrixInput): { models: string[]; labels: CorrectnessDataset["labels"] } {
  const { itemIds, labels, labelsFile } = input;
  const models = labels.header.slice(1);
  const rows = indexRows(labels, itemIds, labelsFile);
  let costRows: Map<string, { fields: string[]; line: number }> | undefined;
  let costColumn: number[] | undefined;
  if (input.cost) {
    const costFile = input.costFile ?? "cost file";
    costRows = indexRows(input.cost, itemIds, costFile);
    const costHeader = input.cost.header;
    costColumn = models.map((m) => {
      const k = costHeader.indexOf(m);
      if (k < 1) {
        throw new DatasetFormatError(
          `${costFile} line 1: no cost column for model "${m}" (present in ${labelsFile}).`,
          {
            file: costFile,
            line: 1,
          },
        );
      }
      return k;
    });
  }
  const builder = new CsrBuilder(Boolean(input.cost));
  for (const id of itemIds) {
    const row = rows.get(id)!;
    const costRow = costRows?.get(id);
    for (let m = 0; m < models.length; m++) {
      const y = parseLabelCell(row.fields[m + 1]!, labelsFile, row.line, models[m]!);
      if (y === undefined) continue;
      const cost =
        costRow && costColumn
          ? parseCostCell(costRow.fields[costColumn[m]!]!, input.costFile ?? "cost file", costRow.line, models[m]!)
          : Number.NaN;
      builder.add(m, y, cost);
    }
    builder.endItem();
  }
  return { models, labels: builder.build() };
}

function indexRows(
  table: CsvTable,
  itemIds: readonly string[],
  file: string,
): Map<string, { fields: string[]; line: number }> {
  const known = new Set(itemIds);
  const out = new Map<string, { fields: string[]; line: number }>();
  for (const record of table.records) {
    const id = record.fields[0]!;
    if (!known.has(id)) {
      throw new DatasetFormatError(
        `${file} line ${record.line}: unknown item id "${id}" (not in the items/questions file).`,
        {
          file,
          line: record.line,
        },
      );
    }
    const previous = out.get(id);
    if (previous) {
      throw new DatasetFormatError(
        `${file} line ${record.line}: item id "${id}" already has a row (line ${previous.line}).`,
        {
          file,
          line: record.line,
        },
      );
    }
    out.set(id, record);
  }
  if (out.size !== known.size) {
    const missing = itemIds.filter((id) => !out.has(id));
    throw new DatasetFormatError(
      `${file}: ${missing.length} item(s) have no row, e.g. "${missing.slice(0, 3).join('", "')}". Every item needs a row (leave cells blank for unobserved).`,
      { file, details: { missing: missing.slice(0, 20) } },
    );
  }
  return out;
}

/** `"graded"` if any label lies strictly between 0 and 1, else `"binary"`. */
export function labelKindOf(y: Float32Array): "binary" | "graded" {
  for (const v of y) if (v !== 0 && v !== 1) return "graded";
  return "binary";
}
