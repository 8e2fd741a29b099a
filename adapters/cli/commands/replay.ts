/**
 * `irt-router replay --dataset <folder>`: the run-level replay of ../shared/BENCHMARK.md ("Agent runs with real
 * outcomes") over a folder whose items are agent runs: references, single choice, escalation and the online stream,
 * all through the run-level router's public API (src/replay).
 */
import { z } from "zod";
import { coverageOf, replayRuns, type CrossFitPoint, type ReplayResult } from "../../../src/runs/replay/index.js";
import { loadRunTable } from "../../data/run-dataset.js";
import type { CliCommand } from "../command.js";
import { MAX_SEEDS, positiveIntFlag } from "../flag-schemas.js";

const schema = z
  .object({
    dataset: z
      .string({ error: "is required: a folder of agent runs (items, labels, models) or a dataset name" })
      .min(1),
    "data-root": z.string().min(1, "must name a data root folder").optional(),
    seeds: positiveIntFlag("cross-fit seeds, default 5", { max: MAX_SEEDS }).optional(),
    "online-seeds": positiveIntFlag("online seeds, default 20", { max: MAX_SEEDS }).optional(),
    hints: z.boolean().optional(),
    "via-prior": z.boolean().optional(),
    json: z.boolean().optional(),
  })
  .strict();

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const row = (name: string, p: { success: number; costRatio: number }) =>
  `${name.padEnd(56)} ${p.success.toFixed(3)}  ${pct(p.costRatio).padStart(5)}`;
const ci = ([lo, hi]: [number, number], sign = false) => {
  const f = (x: number) => `${sign && x >= 0 ? "+" : ""}${x.toFixed(3)}`;
  return `[${f(lo)}, ${f(hi)}]`;
};
const crossRow = (name: string, p: CrossFitPoint) =>
  `${row(name, p)}  ${ci(p.successCi)}  ${ci(p.vsBestFixedCi, true)}`;

/** What the replay did with the pairs without a label, when there are any. */
function gapsLine(c: ReplayResult["coverage"]): string[] {
  if (c.missing === 0) return [];
  return [
    `${c.missing} of the ${c.pairs} (run, model) pairs have no label (on ${c.tasksWithGaps} ` +
      `run${c.tasksWithGaps === 1 ? "" : "s"}, for ${c.modelsWithGaps} model${c.modelsWithGaps === 1 ? "" : "s"}): every policy routes among the models observed on a run, and a reference is ` +
      `scored on the runs it has (its paired intervals over those).`,
  ];
}

/** The human-readable tables of a replay result. */
export function replayTables(r: ReplayResult): string {
  const cf = r.crossFit;
  const on = r.online;
  return [
    `${r.dataset}: ${r.runs} runs x ${r.models} models; ${r.costAssumption}.`,
    ...gapsLine(r.coverage),
    `Costs are ratios to the reference model's run cost.`,
    "",
    `Cross-fitted (${cf.seeds} seeds x ${cf.folds} folds; reference: the best fixed model on the training folds)`,
    `${"policy".padEnd(56)} success   cost  95% CI (paired bootstrap over items): success, vs best fixed`,
    crossRow("best fixed (training folds)", cf.bestFixed),
    ...cf.single.map((p) =>
      crossRow(
        p.cap !== undefined
          ? `single choice, the most able under ${pct(p.cap)} of the cost`
          : `single choice, cost weight ${p.costWeight}`,
        p,
      ),
    ),
    ...cf.escalation.map((p) =>
      crossRow(
        p.spendTarget !== undefined
          ? `escalation, spend target ${pct(p.spendTarget)} (paced) (${p.attempts.toFixed(2)} runs)`
          : `escalation, cost weight ${p.costWeight}, cap ${p.cap === null ? "none" : pct(p.cap)} (${p.attempts.toFixed(2)} runs)`,
        p,
      ),
    ),
    "",
    `Online (${on.seeds} seeds, one run per task; reference: the best fixed model on all runs)`,
    `${"policy".padEnd(56)} success   cost  | last third      | 95% CI (bootstrap over tasks): success, vs best fixed in hindsight`,
    ...(
      [
        ["router, models anonymous", on.anonymous.router],
        ["router, models named", on.named.router],
        ["Thompson sampling, Beta(1,1)", on.anonymous.thompson],
        ["best fixed in hindsight", on.anonymous.bestFixedHindsight],
        ["oracle (best model per task)", on.anonymous.oracle],
      ] as const
    ).map(
      ([name, p]) =>
        `${row(name, p)}  | ${p.lastThird.success.toFixed(3)}  ${pct(p.lastThird.costRatio).padStart(5)}  | ` +
        `${ci(p.successCi)}  ${ci(p.vsBestFixedHindsightCi, true)}`,
    ),
  ].join("\n");
}

export const command: CliCommand<typeof schema> = {
  name: "replay",
  summary:
    "Replay real agent-run outcomes (a folder whose items are runs): the run-level router's single choice, escalation " +
    "after a failed run and online learning against the best fixed model, Thompson sampling and the oracle.",
  usage:
    "irt-router replay --dataset <folder|name> [--seeds N] [--online-seeds N] [--hints] [--via-prior] [--data-root D] [--json]\n" +
    "  --seeds N         cross-fit seeds (default 5, at most 1000; 5 folds each)\n" +
    "  --online-seeds N  online streams (default 20, at most 1000)\n" +
    "  --hints           give the router each item's category (items.csv `category`) as its task hint\n" +
    "  --via-prior       cross-fit through a run prior trained on the training folds (what train --runs writes)",
  needs: "none.",
  options: {
    dataset: { type: "string" },
    "data-root": { type: "string" },
    seeds: { type: "string" },
    "online-seeds": { type: "string" },
    hints: { type: "boolean" },
    "via-prior": { type: "boolean" },
    json: { type: "boolean" },
  },
  schema,
  async run(args) {
    const started = performance.now();
    const table = await loadRunTable(args.dataset, args["data-root"] ? { dataRoot: args["data-root"] } : {});
    process.stderr.write(
      `Replaying ${table.ids.length} runs x ${table.models.length} models of ${table.name}; ${table.costAssumption}.\n`,
    );
    const gaps = coverageOf(table);
    if (gaps.missing > 0) process.stderr.write(`${gapsLine(gaps)[0]}\n`);
    const result = await replayRuns(table, {
      crossFitSeeds: args.seeds,
      onlineSeeds: args["online-seeds"],
      hints: args.hints ?? false,
      crossFitVia: args["via-prior"] ? "prior" : "feedback",
      onProgress: (m) => process.stderr.write(`${m}\n`),
    });
    process.stderr.write(`Done in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`);
    process.stdout.write(args.json ? `${JSON.stringify(result, null, 2)}\n` : `${replayTables(result)}\n`);
    return 0;
  },
};
