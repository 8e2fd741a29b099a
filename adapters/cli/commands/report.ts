/**
 * `irt-router report`: one self-contained HTML page plus each figure as an SVG file, from what the user has (the
 * scorer, and optionally an eval result, an agent bench result, a store, a decision log, a labelled dataset). Figures
 * are Vega-Lite specs (src/report/) rendered to SVG in Node by vega (adapters/report/render.ts); vega and vega-lite
 * are optional peer dependencies.
 */
import { resolve } from "node:path";
import { z } from "zod";
import type { ReportData } from "../../../src/report/types.js";
import { parseDecisions } from "../../../src/report/inputs.js";
import { readCosts, readDatasetScores, readStoreLearning, readTextFlag } from "../../report/inputs.js";
import { loadVega, VEGA_PACKAGES, writeReport } from "../../report/render.js";
import { checkOutDir, REPORT_OUT } from "../../out-dir.js";
import { CACHE_DIR_OUTPUT, loadCommandScorer, USE_LITE_INSTALL } from "../scorer.js";
import type { CliCommand } from "../command.js";
import { notTogether, onlyWith } from "../flag-rules.js";

const path = (what: string) => z.string().min(1, `must name ${what}`).optional();

const schema = z
  .object({
    model: path("a scorer folder or pretrained"),
    eval: path("a file written by irt-router eval --json"),
    agent: path("a file written by npm run bench:agent -- --json"),
    store: path("a FileStore folder or a redis:// URL"),
    decisions: path("a decision log (JSON Lines, or the built-in demo's --json output)"),
    dataset: path("a dataset name or folder"),
    "data-root": path("a data root folder"),
    "cache-dir": path("an embedding cache folder"),
    out: z.string().min(1, "must name the folder to write the report to").default("irt-router-report"),
  })
  .strict()
  .superRefine(
    notTogether("eval", "agent", "both give the cost-accuracy frontier; give one of them (write a report for each)"),
  )
  .superRefine(onlyWith(["data-root", "cache-dir"], "dataset", "add --dataset <name|folder>, or leave it out"));

export const command: CliCommand<typeof schema> = {
  name: "report",
  summary:
    "Write an HTML report (and each figure as SVG beside it): ability map, difficulty vs accuracy, reliability, " +
    "cost-accuracy frontier, routing share, learning curves, from the inputs given. Needs the optional packages vega and vega-lite.",
  usage:
    "irt-router report [--out <dir>] [--model pretrained|<scorer-dir>] [--eval <eval.json>] [--agent <agent.json>]\n" +
    "                  [--store <dir>|redis://...] [--decisions <log.jsonl>] [--dataset <name|folder> [--data-root <dir>] [--cache-dir <dir>]]",
  needs: `vega and vega-lite draw the figures: npm install --save-exact ${VEGA_PACKAGES}. --dataset embeds text not in the embedding cache with USE-lite: ${USE_LITE_INSTALL}.`,
  options: {
    model: { type: "string" },
    eval: { type: "string" },
    agent: { type: "string" },
    store: { type: "string" },
    decisions: { type: "string" },
    dataset: { type: "string" },
    "data-root": { type: "string" },
    "cache-dir": { type: "string" },
    out: { type: "string" },
  },
  schema,
  outputs: { out: REPORT_OUT, "cache-dir": CACHE_DIR_OUTPUT },
  async run(args) {
    const log = (s: string) => process.stderr.write(`${s}\n`);
    await loadVega(); // before any slow step: a missing optional package is said first
    await checkOutDir(args.out); // and an --out that cannot be a folder (an existing file, /proc/...)
    const { data, inputs } = await gatherInputs(args, log);
    log(`Drawing the report into ${resolve(args.out)} (a few seconds)...`);
    const written = await writeReport(args.out, data, inputs, log);
    process.stdout.write(`${written.html}\n`);
    return 0;
  },
};

export default command;

/** Reads every input given; each in its own typed way (a bad file is an error naming its flag). */
async function gatherInputs(
  args: z.output<typeof schema>,
  log: (s: string) => void,
): Promise<{ data: ReportData; inputs: string[] }> {
  const pretrained = !args.model || args.model === "pretrained";
  const scorer = await loadCommandScorer(pretrained ? undefined : args.model, {
    path: "options.model",
    defaultEncoder: "use-lite", // as before --encoder existed: the USE-lite pretrained scorer (its encoder loads only to embed text)
    hint: () =>
      "irt-router report reads a scorer built with the default encoder: give --model such a folder, or leave it out.",
  });
  const scorerName = pretrained ? "the pretrained scorer" : `the scorer in ${args.model}`;
  const inputs = [`scorer: ${scorerName} (${scorer.models.length} models, ${scorer.abilityDim} ability dimensions)`];
  let data: ReportData = { scorerName, abilities: scorer.models };
  if (args.eval || args.agent) {
    const costs = await readCosts((args.eval ?? args.agent)!, args.eval ? "eval" : "agent");
    data = { ...data, costs };
    inputs.push(`costs: ${args.eval ? `--eval ${args.eval}` : `--agent ${args.agent}`} (${costs.source})`);
  }
  const reliability: NonNullable<ReportData["reliability"]>[number][] = [];
  if (args.dataset) {
    const scored = await readDatasetScores(
      args.dataset,
      scorer,
      {
        ...(args["data-root"] ? { dataRoot: args["data-root"] } : {}),
        ...(args["cache-dir"] ? { cacheDir: args["cache-dir"] } : {}),
      },
      log,
    );
    data = { ...data, items: scored.items };
    reliability.push(scored.reliability);
    inputs.push(`labelled data: --dataset ${args.dataset} (test split, ${scored.items.beta.length} items)`);
  }
  if (args.decisions) {
    const parsed = parseDecisions(await readTextFlag(args.decisions, "--decisions"), args.decisions);
    data = { ...data, decisions: parsed.decisions };
    if (parsed.reliability) reliability.push(parsed.reliability);
    inputs.push(`decisions: --decisions ${args.decisions} (${parsed.decisions.rows.length} decisions)`);
  }
  if (reliability.length > 0) data = { ...data, reliability };
  if (args.store) {
    const learning = await readStoreLearning(args.store, scorer, log);
    data = { ...data, learning };
    inputs.push(`feedback: --store ${args.store}`);
  }
  return { data, inputs };
}
