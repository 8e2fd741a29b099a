/**
 * `npx tsx bench/dev/synthetic-runs.ts --out <dir> [--dataset routerbench-subset-11models] [--steps 5]`
 *
 * Builds a SYNTHETIC run-level folder (items are "runs", labels success rates) from a per-question table of
 * ../shared/data, to check that the run-level router's defaults (chosen on Terminal-Bench's training items) hold on
 * a second set of the same shape (issue 36: "defaults ... must hold elsewhere"). It is not real agent data: a "run" is
 * `steps` questions of one category (taken in the protocol's order of u("D/ID")), its text their texts joined, its
 * rate for a model the mean of the model's labels on them (the chance a run on one of its questions passes), its
 * `cost_usd` the sum of the recorded costs of those questions (RouterBench records one per call), and its category the
 * questions' category. Written as a your-own-data folder outside the project (never commit it): `irt-router replay
 * --dataset <dir>` reads it like any folder of runs.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { positiveIntFlag, scriptFlags } from "../flags.js";
import { formatCsv } from "../../src/data/csv.js";
import { unitHash } from "../../src/data/split.js";
import type { CorrectnessDataset } from "../../src/data/types.js";

/**
 * Write the synthetic run-level folder of `ds` to `out` (see the module comment): `steps` questions of one category a
 * run. Returns the number of runs written and whether every label had a recorded cost.
 */
export function writeSyntheticRuns(
  ds: CorrectnessDataset,
  steps: number,
  out: string,
): { runs: number; hasCost: boolean } {
  const byCategory = new Map<string, number[]>();
  ds.items.forEach((it, i) => {
    const c = it.category ?? "none";
    (byCategory.get(c) ?? byCategory.set(c, []).get(c)!).push(i);
  });
  const items: string[][] = [];
  const labels: string[][] = [];
  for (const [category, list] of [...byCategory].sort()) {
    const order = list
      .slice()
      .sort((a, b) => unitHash(`${ds.name}/${ds.items[a]!.id}`) - unitHash(`${ds.name}/${ds.items[b]!.id}`));
    for (let g = 0; g + steps <= order.length; g += steps) {
      const group = order.slice(g, g + steps);
      const id = `${category}-${g / steps}`;
      items.push([id, group.map((i) => ds.items[i]!.text).join("\n\n"), category]);
      ds.models.forEach((model, m) => {
        let y = 0;
        let cost = 0;
        let n = 0;
        for (const i of group) {
          for (let k = ds.labels.offsets[i]!; k < ds.labels.offsets[i + 1]!; k++) {
            if (ds.labels.model[k] !== m) continue;
            y += ds.labels.y[k]! >= 0.5 ? 1 : 0;
            cost += ds.labels.cost?.[k] ?? Number.NaN;
            n++;
          }
        }
        if (n === steps) labels.push([id, model, String(y / n), ...(Number.isFinite(cost) ? [cost.toFixed(6)] : [])]);
      });
    }
  }
  const hasCost = labels.every((r) => r.length === 4);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "items.csv"), formatCsv(["item_id", "text", "category"], items));
  writeFileSync(
    join(out, "labels.csv"),
    formatCsv(["item_id", "model", "correct", ...(hasCost ? ["cost_usd"] : [])], labels),
  );
  writeFileSync(
    join(out, "SOURCE.md"),
    `SYNTHETIC run-level set built by bench/dev/synthetic-runs.ts from ${ds.name} (${steps} questions of one category per "run"; rate = mean label; cost = sum of recorded costs). Not agent data.\n`,
  );
  return { runs: items.length, hasCost };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const values = scriptFlags(
    "bench/dev/synthetic-runs.ts",
    { out: { type: "string" }, dataset: { type: "string" }, steps: { type: "string" } },
    z
      .object({
        out: z.string({ error: "is required: the folder to write the runs to" }).min(1),
        dataset: z.string().min(1).default("routerbench-subset-11models"),
        steps: positiveIntFlag("questions of one category a run").default(5),
      })
      .strict(),
  );
  const ds = await loadDataset(values.dataset);
  const { runs, hasCost } = writeSyntheticRuns(ds, values.steps, values.out);
  process.stderr.write(
    `wrote ${runs} runs x ${ds.models.length} models to ${values.out}${hasCost ? "" : " (no recorded costs: add models.csv prices)"}\n`,
  );
}
