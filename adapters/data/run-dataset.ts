/**
 * Loading a folder whose items are whole agent runs (its labels: each model's success rate on the task) as the run
 * table of the run-level replay: a your-own-data folder (docs/your-own-data.md) or a dataset name under the data root.
 */
import { join } from "node:path";
import { DatasetFormatError } from "../../src/errors.js";
import { runTable, type RunTable } from "../../src/runs/replay/protocol.js";
import { loadDataset, type LoadDatasetOptions } from "./load-dataset.js";

/**
 * The run table of a dataset (see `runTable`): each model needs a price in `models.*` or a recorded `cost_usd` on
 * every one of its labels, else a {@link DatasetFormatError} names the models without one.
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
    throw new DatasetFormatError(
      `${ds.source.dir}: no price for ${missing.join(", ")}: a run-level replay needs each model's price in models.csv ` +
        `(input_usd_per_1m, output_usd_per_1m) or a cost_usd on every label, to cost its runs.`,
      { file: join(ds.source.dir, "models.csv"), details: { missing } },
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
