/**
 * `irt-router demo` (what `npm start` runs). Without flags: the built-in demo, which needs no dataset (an agent's
 * example steps routed among catalog models with simulated children, then learning a new model; src/demo/).
 * With `--replay`: an offline replay of the routing policies on the real RouterBench test split: loads the data,
 * embeds (cache first), scores with the pretrained scorer, and prints; the policy logic is the pure `runDemo` in
 * src/eval/policy-demo.ts.
 */
import { z } from "zod";
import type { CorrectnessDataset } from "../../../src/data/types.js";
import { datasetSplits } from "../../../src/data/select.js";
import type { Scorer } from "../../../src/scorer/types.js";
import type { QueryEncoder } from "../../../src/encoders/types.js";
import { datasetModelNames } from "../../../src/scorer/catalog.js";
import { MissingDependencyError, ValidationError } from "../../../src/errors.js";
import { demoReportData } from "../../../src/report/demo.js";
import { resolve } from "node:path";
import { estimateTokens } from "../../../src/policy/tokens.js";
import { listPrice } from "../../../src/policy/prices.js";
import {
  buildReplayTables,
  runDemo,
  type DemoReport,
  type DemoRow,
  type OutputTokenEstimate,
} from "../../../src/eval/policy-demo.js";
import { loadDataset } from "../../data/load-dataset.js";
import { getDatasetEmbeddings } from "../../data/dataset-embeddings.js";
import { embeddingNotice } from "../../data/embedding-cache.js";
import { readRouterBenchPrompts } from "../../policy/full-prompts.js";
import { Progress } from "../../progress.js";
import {
  CACHE_DIR_OUTPUT,
  datasetEncoder,
  ENCODER_FLAG_USAGE,
  ENCODER_NEEDS,
  encoderFlag,
  loadCommandScorer,
  withOptionalPackages,
} from "../scorer.js";
import { formatAgentDemo, runAgentDemo } from "../../../src/demo/agent-demo.js";
import { loadDefaultScorer } from "../../default-scorer.js";
import type { EncoderName } from "../../encoders/choice.js";
import { VEGA_PACKAGES } from "../../report/render.js";
import type { CliCommand } from "../command.js";
import { notTogether, onlyWith } from "../flag-rules.js";

const DATASET = "routerbench-subset-11models";

const schema = z
  .object({
    json: z.boolean().optional(),
    replay: z.boolean().optional(),
    report: z.string().min(1, "must name the folder to write the report to").optional(),
    "no-report": z.boolean().optional(),
    model: z.string().min(1).optional(),
    "data-root": z.string().min(1).optional(),
    "cache-dir": z.string().min(1).optional(),
    encoder: encoderFlag,
  })
  .strict()
  .superRefine(
    notTogether("report", "no-report", "give --report <dir> to write the report there, or --no-report for none"),
  )
  .superRefine(notTogether("report", "replay", "the replay writes no report; leave --report out, or drop --replay"))
  .superRefine(notTogether("no-report", "replay", "the replay writes no report; leave --no-report out"))
  .superRefine(
    onlyWith(
      ["model", "data-root", "cache-dir"],
      "replay",
      "the built-in demo reads no dataset and uses the pretrained scorer; add --replay for the RouterBench replay, or leave it out",
    ),
  );

export const command: CliCommand<typeof schema> = {
  name: "demo",
  summary:
    "Without flags: the built-in demo, no dataset needed (about 10 s): an agent's 45 example steps routed among 6 catalog models at " +
    "list prices with simulated answers, each choice and its spend against always-strongest, then a new model learned from run feedback; " +
    "it ends by writing the HTML report of the run to irt-router-report/ (needs the optional packages vega and vega-lite). " +
    "With --replay: the offline replay on the RouterBench test split (each prompt routed among its 11 models under each policy, " +
    "settings chosen on the validation split; needs the datasets). No network, no API keys.",
  usage:
    "irt-router demo [--json] [--report <dir> | --no-report] [--encoder static|use-lite]   (the report: irt-router-report/ by default; with --json only when --report is given)\n" +
    "irt-router demo --replay [--json] [--model pretrained|<scorer-dir>] [--encoder static|use-lite] [--data-root <dir>] [--cache-dir <dir>]\n" +
    ENCODER_FLAG_USAGE,
  needs: `${ENCODER_NEEDS}. The report the built-in demo ends with needs vega and vega-lite (npm install --save-exact ${VEGA_PACKAGES}); without them the demo runs and says so.`,
  options: {
    json: { type: "boolean" },
    replay: { type: "boolean" },
    report: { type: "string" },
    "no-report": { type: "boolean" },
    model: { type: "string" },
    "data-root": { type: "string" },
    "cache-dir": { type: "string" },
    encoder: { type: "string" },
  },
  schema,
  outputs: { "cache-dir": CACHE_DIR_OUTPUT },
  async run(args) {
    const log = (s: string) => process.stderr.write(`${s}\n`);
    if (!args.replay) return runBuiltIn(args, log);
    // The scorer first: loadScorer refuses an artifact of another encoder than the default one the demo embeds with.
    const scorer = await loadDemoScorer(args.model, args.encoder);
    const ds = await loadDataset(DATASET, args["data-root"] ? { dataRoot: args["data-root"] } : {});
    const result = await prepareAndRun({
      dataset: ds,
      scorer,
      prompts: await readRouterBenchPrompts(DATASET, args["data-root"] ? { dataRoot: args["data-root"] } : {}),
      scorerName: !args.model || args.model === "pretrained" ? "the pretrained scorer" : `the scorer in ${args.model}`,
      embed: (all) =>
        withOptionalPackages(
          `irt-router demo --replay with the encoder "${scorer.encoder.id}"`,
          "leave --encoder and --model out to use the static encoder and its pretrained scorer, which need none",
          async () => embedWithProgress(all, args["cache-dir"], log, await datasetEncoder(scorer)),
        ),
      log,
    });
    process.stdout.write(
      args.json
        ? `${JSON.stringify(toJson(result.report), null, 2)}\n`
        : formatDemo(result.report, result.outputTokens, result.scorerName, result.outputTokensMethod),
    );
    return 0;
  },
};

export default command;

/** The built-in demo: no dataset; the pretrained scorer with `--encoder` (default the static encoder: no optional package). */
async function runBuiltIn(args: z.output<typeof schema>, log: (s: string) => void): Promise<number> {
  const name: EncoderName = args.encoder ?? "static";
  if (name === "use-lite") log("Loading the pretrained scorer and USE-lite (a few seconds)...");
  const { scorer, encoder } = await withOptionalPackages(
    "irt-router demo --encoder use-lite",
    "leave --encoder out to use the static encoder, which needs none",
    () => loadDefaultScorer(name),
  );
  log(
    name === "static"
      ? `Scorer: the pretrained one of the static encoder (${encoder.id}; --encoder use-lite for USE-lite's).`
      : `Scorer: the pretrained one of USE-lite (${encoder.id}).`,
  );
  const report = await runAgentDemo({ scorer, encoder });
  process.stdout.write(args.json ? `${JSON.stringify(agentDemoJson(report), null, 2)}\n` : formatAgentDemo(report));
  const reportDir = args["no-report"] ? undefined : (args.report ?? (args.json ? undefined : "irt-router-report"));
  if (reportDir !== undefined) await writeDemoReport(reportDir, report, scorer, log);
  if (!args.json)
    log("The RouterBench replay on real labels and recorded costs: irt-router demo --replay (npm start -- --replay).");
  return 0;
}

/** Ends the built-in demo with its report; without the optional vega packages, says how to get it and goes on. */
async function writeDemoReport(
  dir: string,
  report: Awaited<ReturnType<typeof runAgentDemo>>,
  scorer: Scorer,
  log: (s: string) => void,
): Promise<void> {
  const { writeReport } = await import("../../report/render.js");
  log(`Writing the demo's report to ${resolve(dir)} (a few seconds)...`);
  try {
    const written = await writeReport(dir, demoReportData(report, scorer.models), [
      "scorer: the pretrained scorer",
      `decisions: the built-in demo's ${report.steps.length} routed steps`,
      `feedback: the ${report.learning.events.length} feedback events of the demo's learning part`,
    ]);
    log(`Report: ${written.html} (${written.figures.length} figures, also as SVG files in that folder).`);
  } catch (error) {
    if (!(error instanceof MissingDependencyError)) throw error;
    log(
      `No report: ${error.message} Then run npm start again (or irt-router demo). The demo itself does not need them.`,
    );
  }
}

/** The built-in demo's `--json` document. */
export function agentDemoJson(report: Awaited<ReturnType<typeof runAgentDemo>>) {
  return {
    policy: report.policy,
    strongest: report.strongest,
    steps: report.steps.map(({ task, decision, ok }) => ({
      task: task.id,
      subtask: task.subtask,
      chosen: decision.chosen,
      candidates: decision.candidates.map((c) => ({ id: c.id, p: c.p, expectedCost: c.expectedCost })),
      ok,
    })),
    routed: report.routed,
    strongestOnly: report.strongestOnly,
    learning: { newModel: report.learning.newModel, twinOf: report.learning.twinOf, rounds: report.learning.rounds },
  };
}

/** What {@link prepareAndRun} needs; injectable so tests can run it on synthetic data with a small scorer. */
export interface DemoInputs {
  readonly dataset: CorrectnessDataset;
  readonly scorer: Scorer;
  /** Full prompt per item id (what the model is billed for); falls back to the item text when absent. */
  readonly prompts?: ReadonlyMap<string, string>;
  /**
   * Embeddings of every item of the dataset (row-major `count x dim`, item order) and the encoder's identity; they
   * must come from the scorer's encoder (the command embeds with the default encoder, and its loadScorer refuses an
   * artifact of another).
   */
  readonly embed: (
    ds: CorrectnessDataset,
  ) => Promise<{ vectors: Float32Array; dim: number; encoder: { id: string; dim: number } }>;
  readonly log?: (line: string) => void;
  readonly scorerName?: string;
}

/**
 * Embeds the dataset (train embeddings feed the output-length estimate), scores the val and test items,
 * builds the replay tables and runs the demo.
 */
export async function prepareAndRun(inputs: DemoInputs): Promise<{
  report: DemoReport;
  outputTokens: OutputTokenEstimate[];
  outputTokensMethod: string;
  scorerName: string;
}> {
  const { dataset: ds, scorer } = inputs;
  const log = inputs.log ?? (() => {});
  const splits = datasetSplits(ds);
  const prices = ds.models.map((m) => {
    const price = ds.prices?.[m] ?? listPrice(m);
    if (!price)
      throw new ValidationError(`No list price for model "${m}": add it to the dataset's prices.`, {
        path: `prices.${m}`,
      });
    return price;
  });
  const inputTokens = Float64Array.from(ds.items, (it) => estimateTokens(inputs.prompts?.get(it.id) ?? it.text));

  const rows = [...splits.val, ...splits.test];
  const emb = await inputs.embed(ds);
  if (emb.vectors.length !== ds.items.length * emb.dim) {
    throw new ValidationError(
      `embed() returned ${emb.vectors.length} values; expected ${ds.items.length} items x dim ${emb.dim}.`,
      { path: "embed" },
    );
  }
  const progress = new Progress({ label: "scoring", total: rows.length, unit: "prompts", stream: process.stderr });
  const pByItem = new Map<number, Float64Array>();
  const names = datasetModelNames(scorer.models, ds.models, ds.name);
  for (let r = 0; r < rows.length; r++) {
    const item = rows[r]!;
    const scores = await scorer.predict(emb.vectors.subarray(item * emb.dim, (item + 1) * emb.dim), names);
    pByItem.set(
      rows[r]!,
      Float64Array.from(scores, (s) => s.p),
    );
    progress.tick();
  }
  progress.finish();
  const { val, test, outputTokens, outputTokensMethod } = buildReplayTables({
    dataset: ds,
    splits,
    predictions: (item) => pByItem.get(item)!,
    inputTokens,
    prices,
    embeddings: { vectors: emb.vectors, dim: emb.dim },
  });
  log(`replaying policies: settings on val (${val.nItems} items), results on test (${test.nItems} items)`);
  return { report: runDemo(val, test), outputTokens, outputTokensMethod, scorerName: inputs.scorerName ?? "scorer" };
}

async function loadDemoScorer(model: string | undefined, encoder: EncoderName | undefined) {
  return loadCommandScorer(!model || model === "pretrained" ? undefined : model, {
    path: "options.model",
    encoder,
    hint: (mismatch) =>
      `irt-router demo embeds the dataset with the static encoder or USE-lite only, and this scorer was built with "${mismatch.expected.id}": ` +
      `give --model a scorer built with one of them (irt-router train builds one), or leave --model out for the pretrained scorer.`,
  });
}

async function embedWithProgress(
  ds: CorrectnessDataset,
  cacheDir: string | undefined,
  log: (s: string) => void,
  encoder: { encoder?: QueryEncoder },
) {
  let progress: Progress | undefined;
  let warned = false;
  const emb = await getDatasetEmbeddings(ds, {
    ...encoder,
    ...(cacheDir ? { cacheDir } : {}),
    onProgress: ({ done, total }) => {
      if (!warned) {
        log(embeddingNotice(ds.name, total, cacheDir));
        warned = true;
      }
      progress ??= new Progress({ label: "embedding", total, unit: "prompts", stream: process.stderr });
      progress.update(done);
    },
  });
  progress?.finish();
  log(`embeddings: ${emb.fromCache ? "from the cache" : "computed and cached"} (${emb.file})`);
  return { vectors: emb.vectors, dim: emb.dim, encoder: emb.encoder };
}

/** The `--json` document: `{ items, rows: [{ name, accuracy, spendUsd, setting, share }], ... }`, policy rows then every always:<model>. */
export function toJson(report: DemoReport) {
  const row = (r: DemoRow) => ({
    name: r.name,
    accuracy: r.accuracy,
    spendUsd: r.spendUsd,
    setting: r.setting,
    share: r.share,
    ...(r.chosenOn ? { chosenOn: r.chosenOn } : {}),
  });
  const names = new Set(report.rows.map((r) => r.name));
  return {
    items: report.items,
    rows: [...report.rows.map(row), ...report.always.filter((r) => !names.has(r.name)).map(row)],
    referenceModel: report.referenceModel,
    cheapestModel: report.cheapestModel,
    valItems: report.valItems,
    curve: report.curve,
  };
}

const usd = (x: number) => `$${x.toFixed(4)}`;
const pctOf = (x: number) => `${(100 * x).toFixed(0)}%`;
const short = (id: string) => id.slice(id.lastIndexOf("/") + 1);

function topShares(share: Readonly<Record<string, number>>, k = 3): string {
  return Object.entries(share)
    .filter(([, f]) => f > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, k)
    .map(([m, f]) => `${short(m)} ${pctOf(f)}`)
    .join(", ");
}

/** The human-readable demo output. */
export function formatDemo(
  report: DemoReport,
  outputTokens: readonly OutputTokenEstimate[],
  scorerName: string,
  outputTokensMethod = "each model's mean implied output tokens over TRAIN",
): string {
  const ref = report.rows.find((r) => r.name === `always:${report.referenceModel}`)!;
  const table = (header: string[], rows: string[][]) =>
    [
      `| ${header.join(" | ")} |`,
      `|${header.map(() => "---").join("|")}|`,
      ...rows.map((r) => `| ${r.join(" | ")} |`),
    ].join("\n");
  const lines = [
    `irt-router demo: ${DATASET}, test split (${report.items} prompts), routed among its ${ref ? Object.keys(ref.share).length : 0} models by ${scorerName}.`,
    `Policies decide on the expected cost known before the call: estimateTokens(full prompt) x input price + expected output tokens x output price,`,
    `expected output tokens = ${outputTokensMethod};`,
    `accuracy and spend are the chosen model's RECORDED outcome and cost. Every setting was chosen on the validation split (${report.valItems} prompts).`,
    "",
    table(
      [
        "policy",
        "setting (chosen on val)",
        "accuracy",
        "spend",
        `vs ${short(report.referenceModel)}`,
        "routed to (top 3)",
      ],
      report.rows.map((r) => [
        r.name,
        r.setting || "-",
        r.accuracy.toFixed(4),
        usd(r.spendUsd),
        pctOf(r.spendUsd / ref.spendUsd),
        topShares(r.share),
      ]),
    ),
    "",
    "How each setting was chosen (validation split):",
    ...report.rows
      .filter((r) => r.chosenOn)
      .map(
        (r) =>
          `  ${r.name}: ${r.chosenOn!.rule} -> val accuracy ${r.chosenOn!.valAccuracy.toFixed(4)}, val spend ${usd(r.chosenOn!.valSpendUsd)}`,
      ),
    "",
    "Cost-accuracy curve of the cost-aware policy on test (p - lambda x expected cost):",
    table(
      ["lambda (1/USD)", "accuracy", "spend", `vs ${short(report.referenceModel)}`],
      report.curve.map((c) => [String(c.lambda), c.accuracy.toFixed(4), usd(c.spendUsd), pctOf(c.spendFraction)]),
    ),
    "",
    `Mean output tokens per call implied by TRAIN recorded costs: ${outputTokens.map((o) => `${short(o.model)} ${o.mean.toFixed(0)}`).join(", ")}.`,
    `Every always:<model> row: irt-router demo --replay --json.`,
  ];
  return `${lines.join("\n")}\n`;
}
