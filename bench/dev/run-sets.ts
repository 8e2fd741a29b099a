/**
 * The run sets of bench/dev/run-robustness.ts: a run table restricted to some items and models, and the seeded draws of
 * model halves and task subsets (by u(prefix/key), ../shared/BENCHMARK.md's hash).
 */
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { u, type RunTable } from "../../src/runs/replay/protocol.js";

/** The table restricted to some items and some models (in their order). */
export function subset(table: RunTable, items: readonly number[], models: readonly number[]): RunTable {
  return {
    ...table,
    ids: items.map((i) => table.ids[i]!),
    texts: items.map((i) => table.texts[i]!),
    hints: items.map((i) => table.hints?.[i]),
    models: models.map((m) => table.models[m]!),
    rate: items.map((i) => Float64Array.from(models, (m) => table.rate[i]![m]!)),
    runCost: Float64Array.from(models, (m) => table.runCost[m]!),
  };
}

/** The first `n` indices of `keys` in the order of u(prefix/key). */
export function draw(prefix: string, keys: readonly string[], n: number): number[] {
  return keys
    .map((k, i) => ({ i, h: u(`${prefix}/${k}`) }))
    .sort((a, b) => a.h - b.h)
    .slice(0, n)
    .map((x) => x.i)
    .sort((a, b) => a - b);
}

export const all = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** Half #d of a table's models (16 of 32 on Terminal-Bench), as in run-robustness.ts. */
export function modelHalf(table: RunTable, d: number): RunTable {
  return subset(table, all(table.ids.length), draw(`${table.name}/models/${d}`, table.models, table.models.length / 2));
}

/** Task draw #d of a table (`n` of its items), as in run-robustness.ts. */
export function taskDraw(table: RunTable, d: number, n: number): RunTable {
  return subset(table, draw(`${table.name}/tasks/${d}`, table.ids, n), all(table.models.length));
}

/** The table restricted to the items whose upstream `split` is `train` (Terminal-Bench: 69 of 89), in their order. */
export async function trainItems(table: RunTable, folder: string): Promise<RunTable> {
  const ds = await loadDataset(folder);
  const keep = new Set(ds.items.filter((it) => it.meta?.split === "train").map((it) => it.id));
  return subset(
    table,
    table.ids.flatMap((id, i) => (keep.has(id) ? [i] : [])),
    all(table.models.length),
  );
}
