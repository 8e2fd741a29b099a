/**
 * The common dataset form (items, CSR labels, prices), the split rule, selection of items, CSV and text
 * rules: pure, no disk I/O (the loaders are in adapters/data).
 */
export type { CorrectnessDataset, DatasetItem, ModelPrice, Split } from "./types.js";
export { splitOf, splitIndices } from "./split.js";
export { datasetSplits, selectItems } from "./select.js";
export {
  CsrBuilder,
  csrFromTriplets,
  observations,
  labelOf,
  costOf,
  entryIndex,
  modelMeans,
  oracleRate,
  observedCounts,
} from "./csr.js";
export type { Observation } from "./csr.js";
export { parseCsv, parseCsvRows, formatCsv, formatCsvField, columnIndex } from "./csv.js";
export type { CsvRecord, CsvTable } from "./csv.js";
export { parsePythonStringList, parsePythonString } from "./python-literal.js";
export type { LiteralSource } from "./python-literal.js";
export { TEXT_RULES_VERSION, mmluProText, routerBenchText, pyStrip, normalizeNewlines } from "./text-rules.js";
export { DatasetNotFoundError, DatasetFormatError } from "../errors.js";
