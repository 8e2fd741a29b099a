/**
 * Loading a folder whose items are whole agent runs (its labels: each model's success rate on the task) as the run
 * table of the run-level replay: a your-own-data folder (docs/your-own-data.md) or a dataset name under the data root.
 */
import { join } from "node:path";
import { DatasetFormatError } from "../../src/errors.js";
import { runTable, type RunTable } from "../../src/runs/replay/protocol.js";
import { loadDataset, type LoadDatasetOptions } from "./load-dataset.js";

/**
 * The run table of a dataset (see `runTable`): each model's runs cost the mean `cost_usd` of its labels where the
 * folder gives any, else its price in `models.*`; a model with neither is a {@link DatasetFormatError} naming it.
 *
 * @example
 * ```ts
 * const table = await loadRunTable("../shared/data/terminal-bench-2-32models");
 * console.log(table.models.length, table.costAssumption);
 * ```
 */
export async function loadRunTable(nameOrFolder: string, options: LoadDatasetOptions = {}): Promise<RunTable> {
  const ds = await loadDataset(nameOrFolder, options);
  const table = runTable(ds);
  const missing = table.models.filter((_, m) => !Number.isFinite(table.runCost[m]!));
  if (missing.length > 0) {
    const modelsFile = ds.source.files.find((f) => /^models\.(csv|csv\.gz|jsonl)$/.test(f));
    const shown =
      missing.length > 10 ? `${missing.slice(0, 10).join(", ")} and ${missing.length - 10} more` : missing.join(", ");
    const [they, their] = missing.length > 1 ? ["these have", "their"] : ["it has", "its"];
    const fix = modelsFile
      ? `input_usd_per_1m and output_usd_per_1m in ${modelsFile}`
      : `a models.csv (model,input_usd_per_1m,output_usd_per_1m) listing ${their} prices`;
    throw new DatasetFormatError(
      `${ds.source.dir}: no run cost for ${shown} (${missing.length} of ${table.models.length} models): a run-level ` +
        `replay costs a model's runs at the mean cost_usd of its labels or, where it has none, at its price in the ` +
        `models table, and ${they} neither. Give ${their} labels a cost_usd, or add ${fix}.`,
      { file: modelsFile ? join(ds.source.dir, modelsFile) : ds.source.dir, details: { missing } },
    );
  }
  if (table.ids.length < 5) {
    throw new DatasetFormatError(
      `${ds.source.dir}: ${table.ids.length} item(s); the replay's 5 folds need at least 5.`,
      {
        file: ds.source.dir,
      },
    );
  }
  return table;
}
