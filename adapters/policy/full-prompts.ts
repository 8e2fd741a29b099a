import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { DatasetFormatError } from "../../src/errors.js";
import { columnIndex, parseCsv } from "../../src/data/csv.js";
import { parsePythonStringList } from "../../src/data/python-literal.js";
import { resolveDataset } from "../data/load-dataset.js";

/**
 * The full prompt each RouterBench model received (few-shot prefix and answer instruction included),
 * by sample id. A dataset item's `text` is the shorter text a router embeds; the price of a call is
 * paid on this full prompt, so ex-ante input-token estimates must count it.
 *
 * @example
 * ```ts
 * const prompts = await readRouterBenchPrompts();
 * estimateTokens(prompts.get("arc-challenge.test.1")!); // ~510
 * ```
 */
export async function readRouterBenchPrompts(
  dataset = "routerbench-subset-11models",
  options: { dataRoot?: string } = {},
): Promise<Map<string, string>> {
  const { dir } = resolveDataset(dataset, options);
  const file = join(dir, "prompts.csv.gz");
  const table = parseCsv(gunzipSync(await readFile(file)).toString("utf8"), file);
  const col = columnIndex(table.header, ["sample_id", "prompt"], file);
  const out = new Map<string, string>();
  for (const { fields, line } of table.records) {
    const id = fields[col.sample_id!]!;
    if (out.has(id))
      throw new DatasetFormatError(`${file} line ${line}: sample_id "${id}" appears twice.`, { file, line });
    out.set(id, parsePythonStringList(fields[col.prompt!]!, { file, line }).join(""));
  }
  return out;
}
