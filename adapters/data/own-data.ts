/**
 * Loading and writing a your-own-data folder (format: docs/your-own-data.md): items, labels and the optional
 * models table become a {@link CorrectnessDataset}, and back.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { z } from "zod";
import { DatasetFormatError } from "../../src/errors.js";
import { formatCsv } from "../../src/data/csv.js";
import { csrFromTriplets } from "../../src/data/csr.js";
import { TEXT_RULES_VERSION } from "../../src/data/text-rules.js";
import type { CorrectnessDataset, DatasetItem, ModelPrice } from "../../src/data/types.js";
import { closestMatch } from "../../src/util/edit-distance.js";
import { GrowArray } from "../../src/util/grow-array.js";
import { PairSet } from "../../src/data/pair-set.js";
import { parseWith } from "../../src/util/validate.js";
import { labelKindOf } from "./matrix.js";
import {
  COLUMNS,
  FORMATS,
  missingTables,
  scanOwnDataFolder,
  TABLES,
  type OwnDataFormat,
  type TableName,
} from "./own-data-folder.js";
import {
  asCorrect,
  asCost,
  asId,
  asPrice,
  asString,
  cachedInputCell,
  type Cell,
  readTable,
  streamTable,
} from "./own-data-tables.js";
import { SourceFiles } from "./source-files.js";

export { findOwnDataFile, isOwnDataFolder, ownDataFolderProblem, type OwnDataFormat } from "./own-data-folder.js";

const gzipAsync = promisify(gzip);

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
  const { items, itemIndex } = await readItems(src, itemsName);
  // Models (optional) first, so their order defines the catalog order.
  const catalog: Catalog = modelsName
    ? await readModels(src, modelsName)
    : { models: [], modelIndex: new Map(), prices: {} };
  const labels = await readLabels(src, { itemsName, labelsName, modelsName }, items.length, itemIndex, catalog);
  const { models, prices } = catalog;
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

/** Item id -> its index in the items table and its line. */
type ItemIndex = Map<string, { index: number; line: number }>;

/** The items table: every item with its text, category and extra columns (as `meta`), in file order. */
async function readItems(src: SourceFiles, itemsName: string): Promise<{ items: DatasetItem[]; itemIndex: ItemIndex }> {
  const itemsFile = src.path(itemsName);
  const items: DatasetItem[] = [];
  const itemIndex: ItemIndex = new Map();
  const itemTable = await readTable(src, itemsName, "items");
  for (let r = 0; r < itemTable.rows; r++) {
    const line = itemTable.line(r);
    const id = asId(itemTable.get(r, "item_id"), itemsFile, line, "item_id");
    const previous = itemIndex.get(id);
    if (previous) {
      throw new DatasetFormatError(
        `${itemsFile} line ${line}: duplicate item id "${id}" (first on line ${previous.line}).`,
        {
          file: itemsFile,
          line,
        },
      );
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
      throw new DatasetFormatError(
        `${itemsFile} line ${line}: item "${id}" has an empty text; every item needs the query text a router would see.`,
        {
          file: itemsFile,
          line,
        },
      );
    }
    const category = asString(itemTable.get(r, "category"));
    const extraKeys = itemTable.extra(r);
    const item: DatasetItem = {
      id,
      text: textCell,
      ...(category !== "" ? { category } : {}),
      ...(extraKeys.length > 0
        ? { meta: Object.fromEntries(extraKeys.map((k) => [k, asString(itemTable.get(r, k))])) }
        : {}),
    };
    itemIndex.set(id, { index: items.length, line });
    items.push(item);
  }
  return { items, itemIndex };
}

/** The model list (catalog order), model name -> index, and the prices given. */
interface Catalog {
  readonly models: string[];
  readonly modelIndex: Map<string, number>;
  readonly prices: Record<string, ModelPrice>;
}

/** The models table: the catalog order and each model's prices (both or neither). */
async function readModels(src: SourceFiles, modelsName: string): Promise<Catalog> {
  const models: string[] = [];
  const modelIndex = new Map<string, number>();
  const prices: Record<string, ModelPrice> = {};
  const modelsFile = src.path(modelsName);
  const modelTable = await readTable(src, modelsName, "models");
  const lineOf = new Map<string, number>();
  for (let r = 0; r < modelTable.rows; r++) {
    const line = modelTable.line(r);
    const model = asModel(modelTable.get(r, "model"), modelsFile, line);
    if (lineOf.has(model)) {
      throw new DatasetFormatError(
        `${modelsFile} line ${line}: model "${model}" is listed twice (first on line ${lineOf.get(model)}).`,
        {
          file: modelsFile,
          line,
        },
      );
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
    if (input !== undefined && output !== undefined)
      prices[model] = { inputPer1M: input, outputPer1M: output, ...cached };
  }
  return { models, modelIndex, prices };
}

/**
 * The labels table as CSR labels (with costs when any row has a cost_usd). Without a models table, a model is added
 * to `catalog` on its first label; with one, an unlisted model is an error. The file is read as a stream: memory holds
 * the labels (in typed arrays, 16 to 20 bytes a label while loading) and one chunk of the file, never its whole text.
 */
async function readLabels(
  src: SourceFiles,
  names: { readonly itemsName: string; readonly labelsName: string; readonly modelsName: string | undefined },
  nItems: number,
  itemIndex: ItemIndex,
  catalog: Catalog,
): Promise<CorrectnessDataset["labels"]> {
  const { itemsName, labelsName } = names;
  const labelsFile = src.path(labelsName);
  const entryItem = new GrowArray(Int32Array);
  const entryModel = new GrowArray(Int32Array);
  const entryY = new GrowArray(Float32Array);
  const entryLine = new GrowArray(Uint32Array);
  // Costs from the first row that has the column (earlier rows: unknown, NaN), as asCost reads a missing cell.
  let entryCost: GrowArray<Float32ArrayConstructor> | undefined;
  const seen = new PairSet(nItems);
  for await (const rows of streamTable(src, labelsName, "labels")) {
    for (const row of rows) {
      const line = row.line;
      const id = asId(row.get("item_id"), labelsFile, line, "item_id");
      const item = itemIndex.get(id);
      if (!item) {
        throw new DatasetFormatError(`${labelsFile} line ${line}: unknown item "${id}" (not in ${itemsName}).`, {
          file: labelsFile,
          line,
        });
      }
      const model = asModel(row.get("model"), labelsFile, line);
      const m = modelOfLabel(model, catalog, names.modelsName, labelsFile, line);
      if (!seen.add(item.index, m)) {
        let k = entryItem.length - 1;
        while (k >= 0 && (entryItem.at(k) !== item.index || entryModel.at(k) !== m)) k--;
        throw new DatasetFormatError(
          `${labelsFile} line ${line}: duplicate label for item "${id}" and model "${model}" (first on line ${entryLine.at(k)}). Keep one row per (item, model).`,
          { file: labelsFile, line },
        );
      }
      const y = asCorrect(row.get("correct"), labelsFile, line);
      const costCell = row.get("cost_usd");
      if (costCell !== undefined && !entryCost) {
        entryCost = new GrowArray(Float32Array, Math.max(1024, entryItem.length + 1));
        for (let k = 0; k < entryItem.length; k++) entryCost.push(Number.NaN);
      }
      if (entryCost) entryCost.push(asCost(costCell, labelsFile, line));
      entryItem.push(item.index);
      entryModel.push(m);
      entryY.push(y);
      entryLine.push(line);
    }
  }
  return csrFromTriplets(nItems, entryItem.view(), entryModel.view(), entryY.view(), entryCost?.view());
}

/**
 * A model name: an id (see asId) that is not "__proto__", which a model cannot be named: as a key of a plain object
 * (prices, a router's `models`) it sets the object's prototype instead, and the router refuses it.
 */
function asModel(value: Cell, file: string, line: number): string {
  const model = asId(value, file, line, "model");
  if (model === "__proto__") {
    throw new DatasetFormatError(
      `${file} line ${line}: "model" "__proto__" cannot name a model (it is JavaScript's prototype key, so prices and ` +
        `routers keyed by model name cannot hold it); rename the model, in every table that names it.`,
      { file, line, details: { column: "model", value: model } },
    );
  }
  return model;
}

/** The index of a label's model: listed in the models table, or (without one) added on first sight. */
function modelOfLabel(
  model: string,
  catalog: Catalog,
  modelsName: string | undefined,
  labelsFile: string,
  line: number,
): number {
  const { models, modelIndex } = catalog;
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
      throw new DatasetFormatError(`${labelsFile} line ${line}: more than ${2 ** 21} distinct models.`, {
        file: labelsFile,
        line,
      });
    }
    modelIndex.set(model, m);
    models.push(model);
  }
  return m;
}

const writeOptionsSchema = z
  .object({
    format: z.enum(["csv", "csv.gz", "jsonl"]).default("csv"),
    overwrite: z.boolean().default(false),
  })
  .strict();

/** Options of {@link writeOwnDataFolder}. */
export type WriteOwnDataOptions = z.input<typeof writeOptionsSchema>;

/** Refuses a folder that holds tables already (unless `overwrite`) or, when overwriting, tables of another format. */
function checkFolderWritable(dir: string, format: OwnDataFormat, overwrite: boolean): void {
  if (!overwrite) {
    const existing = TABLES.flatMap((t) => FORMATS.map((f) => `${t}.${f}`)).filter((name) =>
      existsSync(join(dir, name)),
    );
    if (existing.length > 0) {
      throw new DatasetFormatError(
        `${dir} already holds ${existing.join(", ")}; pass overwrite: true to replace them.`,
        { file: dir },
      );
    }
  } else {
    // Another format's table would make the folder ambiguous.
    const stale = TABLES.flatMap((t) => FORMATS.filter((f) => f !== format).map((f) => `${t}.${f}`)).filter((name) =>
      existsSync(join(dir, name)),
    );
    if (stale.length > 0) {
      throw new DatasetFormatError(`${dir} holds ${stale.join(", ")} in another format; remove them first.`, {
        file: dir,
      });
    }
  }
}

/** The models table: each model's prices (the cached-input column when any model has one). */
function modelsTable(ds: CorrectnessDataset): { modelsHeader: string[]; modelRows: (string | number | null)[][] } {
  const withCached = Object.values(ds.prices ?? {}).some((p) => p.cachedInputPer1M !== undefined);
  const modelsHeader = [
    "model",
    "input_usd_per_1m",
    "output_usd_per_1m",
    ...(withCached ? ["cached_input_usd_per_1m"] : []),
  ];
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
  return { modelsHeader, modelRows };
}

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
  const { format, overwrite } = parseWith(
    writeOptionsSchema,
    typeof options === "string" ? { format: options } : options,
    "options",
  );
  const dir = resolve(folder);
  await mkdir(dir, { recursive: true });
  checkFolderWritable(dir, format, overwrite);

  const metaKeys = [...new Set(ds.items.flatMap((item) => Object.keys(item.meta ?? {})))];
  const clash = metaKeys.filter((k) => COLUMNS.items.required.includes(k) || COLUMNS.items.optional.includes(k));
  if (clash.length > 0) {
    throw new DatasetFormatError(
      `Item meta key(s) ${clash.join(", ")} clash with the items columns; rename them before writing.`,
      {},
    );
  }
  const itemsHeader = ["item_id", "text", "category", ...metaKeys];
  const itemRows = ds.items.map((item) => [
    item.id,
    item.text,
    item.category ?? "",
    ...metaKeys.map((k) => item.meta?.[k] ?? ""),
  ]);

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

  const { modelsHeader, modelRows } = modelsTable(ds);

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
        ? rows.map((row) => JSON.stringify(Object.fromEntries(header.map((h, k) => [h, row[k] ?? null])))).join("\n") +
          "\n"
        : formatCsv(
            header,
            rows.map((row) => row.map((v) => (v === null ? "" : String(v)))),
          );
    await writeFile(path, format === "csv.gz" ? await gzipAsync(Buffer.from(text, "utf8")) : text);
    written.push(path);
  }
  return written;
}
