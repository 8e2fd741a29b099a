/**
 * Loading, embedding and evaluating one dataset for `irt-router eval` and `npm run eval:all`.
 */
import { z } from "zod";
import {
  embedLlmMfBaseline,
  knnBaseline,
  linearMirtBaseline,
  logisticRegressionBaseline,
} from "../../src/baselines/index.js";
import { splitIndices } from "../../src/data/split.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { assertSameEncoder } from "../../src/encoders/identity.js";
import { ValidationError } from "../../src/errors.js";
import { evaluate, IRT_MOE, type EvalDataset, type EvalProgress, type EvalReport } from "../../src/eval/evaluate.js";
import { estimateExpectedCosts } from "../../src/eval/expected-cost.js";
import { irtMoeMethod } from "../../src/eval/irt-moe-method.js";
import { taskHintedPair } from "../../src/eval/task-hinted.js";
import { savedScorerMethod } from "../../src/eval/scorer-method.js";
import type { RoutingMethod } from "../../src/eval/types.js";
import { loadScorer, loadPretrained } from "../artifact/load.js";
import { datasetModelNames } from "../../src/scorer/catalog.js";
import { irtMoeConfigSchema, type IrtMoeConfig } from "../../src/scorer/config.js";
import { embeddedLabelsOf } from "../../src/scorer/dataset.js";
import type { IrtMoeScorer } from "../../src/scorer/scorer.js";
import { parseWith } from "../../src/util/validate.js";
import { Progress } from "../progress.js";
import { predictedDefaultEncoder } from "../data/dataset-embeddings.js";
import { loadDataset } from "../data/load-dataset.js";
import { getTf } from "../tf.js";
import { expectedCostInputs } from "./cost-inputs.js";
import { embedForEval, type EvalEmbeddings } from "./embed.js";
import { ENCODER_NAMES, encoderByName, type EncoderName } from "../encoders/choice.js";

/** Every method `eval` can run, in report order. */
export const EVAL_METHODS = [IRT_MOE, "knn", "logistic-regression", "linear-mirt", "embedllm-mf"] as const;
export type EvalMethodName = (typeof EVAL_METHODS)[number];

/** Options of {@link runEvaluation}. */
export interface RunEvaluationOptions {
  readonly dataset: string;
  readonly seeds?: number;
  /** "pretrained" or an artifact folder: evaluate that saved scorer as the irt-moe row instead of training one. */
  readonly model?: string;
  readonly dataRoot?: string;
  readonly labels?: "binary" | "soft";
  readonly methods?: readonly EvalMethodName[];
  /** Where progress lines go, the default embedder's included (default stderr). */
  readonly log?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Supplies the embeddings (default: the project's cached pipeline with `encoder`). */
  readonly embed?: (ds: CorrectnessDataset) => Promise<EvalEmbeddings>;
  /** The offline encoder that embeds the dataset when `embed` is not given (default "use-lite"). */
  readonly encoder?: EncoderName;
  /**
   * Hyperparameters of the irt-moe row when it is trained (as `irt-router train --config`; default the scorer's
   * defaults), e.g. to evaluate a configuration chosen on your own data, or a small one in a quick check. Refused with
   * `model` (a saved scorer is evaluated as it is) and when `methods` leaves irt-moe out.
   */
  readonly irtMoeConfig?: Partial<IrtMoeConfig>;
}

/**
 * Loads a dataset, embeds it, and evaluates every method on the protocol's split.
 *
 * @example
 * ```ts
 * const { report } = await runEvaluation({ dataset: "routerbench-subset-11models", seeds: 3 });
 * console.log(formatEvalMarkdown(report));
 * ```
 */
export async function runEvaluation(
  options: RunEvaluationOptions,
): Promise<{ report: EvalReport; dataset: CorrectnessDataset; embeddings: EvalEmbeddings }> {
  const log = options.log ?? process.stderr;
  const { wanted, irtMoeConfig } = checkedEvalOptions(options);
  const ds = await loadDataset(options.dataset, {
    ...(options.dataRoot && { dataRoot: options.dataRoot }),
    ...(options.labels && { labels: options.labels }),
  });
  // A saved scorer is loaded (and its files checked) before the dataset is embedded, which can take minutes. It scores
  // the dataset's embeddings (no text encoder). With the default embedder their encoder is known beforehand (the default
  // one), so a scorer of another encoder is refused before anything is embedded; with options.embed, once it returns.
  const saved =
    options.model && wanted.has(IRT_MOE)
      ? options.model === "pretrained"
        ? await loadPretrained({ encoder: null })
        : await loadScorer(options.model, { encoder: null })
      : undefined;
  if (options.embed && options.encoder)
    throw new ValidationError(
      "options.encoder chooses the default embedder; with options.embed your function embeds: leave one out.",
      { path: "options.encoder" },
    );
  const encoder = options.encoder
    ? await encoderByName(parseWith(z.enum(ENCODER_NAMES), options.encoder, "options.encoder"))
    : undefined;
  if (saved && !options.embed) {
    const predicted = encoder ?? (await predictedDefaultEncoder());
    if (predicted) checkSavedEncoder(saved, predicted);
  }
  const split = splitIndices(
    ds.name,
    ds.items.map((it) => it.id),
  );
  log.write(
    `eval: ${ds.name}: ${ds.items.length} items, ${ds.models.length} models; split train ${split.train.length} / val ${split.val.length} / test ${split.test.length}\n`,
  );
  const embeddings = options.embed ? await options.embed(ds) : await embedForEval(ds, log, encoder);
  const data = embeddedLabelsOf(ds, embeddings.X, embeddings.dim);
  const cost = ds.labels.cost ? expectedCosts(ds, data, split.train) : undefined;
  const methods = await evalMethods(wanted, { saved, model: options.model, ds, embeddings, irtMoeConfig });
  const seeds = Array.from({ length: options.seeds ?? 3 }, (_, k) => k + 1);
  const report = await evaluate(
    {
      name: ds.name,
      models: ds.models,
      data,
      split,
      categories: ds.items.map((it) => it.category),
      itemIds: ds.items.map((it) => it.id),
      ...(cost && { cost }),
    },
    { methods, seeds, onProgress: progressPrinter(log) },
  );
  return { report, dataset: ds, embeddings };
}

/** The methods asked for and the irt-moe configuration, checked against each other; a ValidationError names the option. */
function checkedEvalOptions(options: RunEvaluationOptions): {
  wanted: Set<string>;
  irtMoeConfig: Partial<IrtMoeConfig>;
} {
  const irtMoeConfig =
    options.irtMoeConfig === undefined
      ? {}
      : parseWith(irtMoeConfigSchema.partial(), options.irtMoeConfig, "options.irtMoeConfig");
  if (options.irtMoeConfig !== undefined && options.model)
    throw new ValidationError(
      "options.irtMoeConfig applies when irt-moe is trained; with options.model the saved scorer is evaluated as it is: leave one out.",
      { path: "options.irtMoeConfig" },
    );
  const wanted = new Set<string>(options.methods ?? EVAL_METHODS);
  if (options.model && !wanted.has(IRT_MOE)) {
    throw new ValidationError(
      "options.model only applies to the irt-moe method: add irt-moe to options.methods, or leave model out.",
      { path: "options.model" },
    );
  }
  if (options.irtMoeConfig !== undefined && !wanted.has(IRT_MOE)) {
    throw new ValidationError(
      "options.irtMoeConfig only applies to the irt-moe method: add irt-moe to options.methods, or leave irtMoeConfig out.",
      { path: "options.irtMoeConfig" },
    );
  }
  return { wanted, irtMoeConfig: irtMoeConfig as Partial<IrtMoeConfig> };
}

/** The expected cost of each (item, model) before the call, with a note of how each model's was estimated. */
function expectedCosts(
  ds: CorrectnessDataset,
  data: Omit<EvalDataset["data"], "cost">,
  train: readonly number[],
): EvalDataset["cost"] {
  const inputs = expectedCostInputs(ds);
  const est = estimateExpectedCosts(
    { ...data, cost: ds.labels.cost! },
    train,
    inputs.inputTokens,
    inputs.prices,
    ds.models.length,
  );
  const detail = est.perModel
    .map((e, m) => {
      const how =
        e.method === "list-price"
          ? `E[out] ${e.expectedOutputTokens!.toFixed(0)} tok`
          : e.method === "train-mean"
            ? `train mean ${e.meanTrainCost!.toExponential(2)} USD (${e.reason})`
            : `no estimate (${e.reason})`;
      return `${ds.models[m]}: ${how}${e.unknownTrainCost > 0 ? ` (from ${e.trainCalls} train calls; ${e.unknownTrainCost} without a recorded cost)` : ""}`;
    })
    .join("; ");
  return { recorded: ds.labels.cost!, expected: est.cost, estimates: est.perModel, note: `${inputs.note}; ${detail}` };
}

/** The routing methods to evaluate: irt-moe (trained, or the saved scorer as it is) and the baselines asked for. */
async function evalMethods(
  wanted: ReadonlySet<string>,
  irt: {
    saved: Awaited<ReturnType<typeof loadScorer>> | undefined;
    model: string | undefined;
    ds: CorrectnessDataset;
    embeddings: EvalEmbeddings;
    irtMoeConfig: Partial<IrtMoeConfig>;
  },
): Promise<RoutingMethod[]> {
  const methods: RoutingMethod[] = [];
  if (wanted.has(IRT_MOE)) {
    const { saved, model, ds, embeddings } = irt;
    if (saved && model) {
      checkSavedEncoder(saved, { id: embeddings.encoderId, dim: embeddings.dim });
      const label = model === "pretrained" ? "the pretrained artifact" : model;
      methods.push(savedScorerMethod(saved, datasetModelNames(saved.models, ds.models, ds.name), label));
    } else {
      methods.push(irtMoeMethod((await getTf()).tf, irt.irtMoeConfig));
    }
    // With a category column: the same scorer with each item's category as its task hint (offsets fitted on val).
    const categories = ds.items.map((it) => it.category);
    if (categories.some((c) => c !== undefined)) methods.splice(0, 1, ...taskHintedPair(methods[0]!, categories));
  }
  if (wanted.has("knn")) methods.push(knnBaseline());
  if (wanted.has("logistic-regression")) methods.push(logisticRegressionBaseline());
  if (wanted.has("linear-mirt")) methods.push(linearMirtBaseline());
  if (wanted.has("embedllm-mf")) methods.push(embedLlmMfBaseline());
  return methods;
}

/** A saved scorer (options.model) must have been built with the encoder that embeds the dataset. */
function checkSavedEncoder(scorer: IrtMoeScorer, embeddedWith: { id: string; dim: number }): void {
  assertSameEncoder(scorer.encoder, embeddedWith, "scorer", {
    ...(scorer.manifestFile ? { file: scorer.manifestFile } : {}),
    path: "options.model",
    hint:
      `The dataset's embeddings come from "${embeddedWith.id}": evaluate a scorer built with that encoder (irt-router train builds one), ` +
      `or, through the library, give runEvaluation an embed function that uses "${scorer.encoder.id}".`,
  });
}

/** Progress of the fits: a bar per method and seed on a TTY, plain lines otherwise. */
function progressPrinter(log: NodeJS.WritableStream & { isTTY?: boolean }): (e: EvalProgress) => void {
  let bar: Progress | undefined;
  let key = "";
  return (e) => {
    if (e.stage === "done") {
      bar?.finish(`${e.seconds.toFixed(1)} s`);
      if (!bar) log.write(`eval: ${e.method} seed ${e.seed}: ${e.seconds.toFixed(1)} s\n`);
      bar = undefined;
      return;
    }
    if (!e.fit) return;
    const k = `${e.method}/${e.seed}/${e.fit.note ?? ""}`;
    if (k !== key || !bar) {
      bar?.finish();
      key = k;
      bar = new Progress({
        label: `${e.method} seed ${e.seed}${e.fit.note ? ` ${e.fit.note}` : ""}`,
        total: e.fit.maxEpochs,
        unit: "epochs",
        stream: log as never,
        logEveryMs: 10_000,
      });
    }
    bar.update(e.fit.epoch, `val loss ${e.fit.valLoss?.toFixed(4) ?? "-"}${e.fit.status ? `, ${e.fit.status}` : ""}`);
  };
}
