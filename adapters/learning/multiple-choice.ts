/**
 * A ready probe set for `router.calibrate()` and the `calibrate --endpoint` command: a probe bank of a multiple-choice
 * dataset of the data root (default MMLU-Pro), each probe posed as its question with lettered options and graded by
 * letter extraction against the dataset's answer keys (each item's `meta.answer`). The texts and keys stay in memory;
 * the cached bank holds ids and numbers only.
 */
import { z } from "zod";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { FeedbackError, ValidationError } from "../../src/errors.js";
import type { Probe, ProbeBank } from "../../src/learning/new-model-calibration.js";
import { gradeMultipleChoice } from "../../src/learning/grader.js";
import type { IrtMoeScorer } from "../../src/scorer/scorer.js";
import { functionSchema, parseWith } from "../../src/util/validate.js";
import { loadDataset } from "../data/load-dataset.js";
import { buildProbeBank } from "./probe-bank.js";

/** The default dataset of {@link multipleChoiceProbes}. */
export const DEFAULT_PROBE_DATASET = "mmlu-pro-29models";

/** What a model is asked after each probe's question (the dataset's text: the question, then `A. ...`, `B. ...`). */
export const MULTIPLE_CHOICE_INSTRUCTION =
  'Think step by step, then finish with "The answer is (X)" where X is the letter of the correct option.';

/**
 * The question a model is asked for a multiple-choice item: its text (question and lettered options) and the
 * instruction to end with "The answer is (X)", which {@link gradeMultipleChoice} reads.
 *
 * @example
 * ```ts
 * multipleChoicePrompt("What is 2+2?\nA. 3\nB. 4"); // "What is 2+2?\nA. 3\nB. 4\n\nThink step by step, ..."
 * ```
 */
export function multipleChoicePrompt(itemText: string): string {
  return `${itemText}\n\n${MULTIPLE_CHOICE_INSTRUCTION}`;
}

/**
 * Answer keys (option letters) by item id, from each item's `meta.answer`: the MMLU-Pro loader keeps its questions'
 * `answer` column there, and a your-own-data items table keeps every extra column in `meta`, so an `answer` column
 * there works the same way. Items without one are left out. `path` names the option a dataset without keys, or with a
 * key that is not an option letter, is blamed on.
 */
export function answerKeys(ds: CorrectnessDataset, path = "options.dataset"): Map<string, string> {
  const keys = new Map<string, string>();
  for (const item of ds.items) {
    const key = item.meta?.answer?.trim();
    if (!key) continue;
    if (!/^[A-Za-z]$/.test(key)) {
      throw new ValidationError(
        `Dataset "${ds.name}": item "${item.id}" has the answer key "${key}", not an option letter (A-Z), so it cannot be graded by letter: ` +
          `give your own prompt and grade (router.calibrate, calibrateModel).`,
        { path, details: { item: item.id, answer: key } },
      );
    }
    keys.set(item.id, key.toUpperCase());
  }
  if (keys.size === 0) {
    throw new ValidationError(
      `Dataset "${ds.name}" has no answer keys (no item has an "answer": MMLU-Pro's questions have one, and a your-own-data items table can ` +
        `have an "answer" column), so its probes cannot be graded by letter: give your own prompt and grade (router.calibrate, calibrateModel), ` +
        `or use --replay on the command line.`,
      { path },
    );
  }
  return keys;
}

const optionsSchema = z
  .object({
    /** Dataset name or folder (default MMLU-Pro), or a dataset already loaded. */
    dataset: z
      .union([
        z.string().min(1),
        z.custom<CorrectnessDataset>((v) => typeof v === "object" && v !== null && "items" in v && "source" in v),
      ])
      .default(DEFAULT_PROBE_DATASET),
    /** Data root to search first (else `IRT_ROUTER_DATA`, else `../shared/data` beside the package). */
    dataRoot: z.string().min(1).optional(),
    /** Probe items sampled from the items that have an answer key (default 1000). */
    size: z.number().int().positive().default(1000),
    seed: z.number().int().default(0),
    /** Probe-bank cache folder (default `probe-banks` under defaultCacheRoot(): `<package>/.cache` in a checkout, the per-user cache when installed). */
    cacheDir: z.string().min(1).optional(),
    onProgress: functionSchema<(done: number, total: number) => void>("a function (done, total) => void").optional(),
    onWarning: functionSchema<(message: string) => void>("a function (message) => void").optional(),
  })
  .strict();

/** Options of {@link multipleChoiceProbes}. */
export type MultipleChoiceProbesOptions = z.input<typeof optionsSchema>;

/** What `router.calibrate()` needs besides the budget: the bank, how to pose a probe, how to grade a reply. */
export interface MultipleChoiceProbes {
  readonly probes: ProbeBank;
  readonly prompt: (probe: Probe) => string;
  readonly grade: (reply: string, probe: Probe) => number;
}

/**
 * @internal {@link multipleChoiceProbes} plus what the CLI reports (whether the bank came from the cache); `keysPath`
 * is the option a dataset without answer keys is blamed on.
 */
export async function buildMultipleChoiceProbes(
  scorer: IrtMoeScorer,
  options: MultipleChoiceProbesOptions = {},
  keysPath = "options.dataset",
): Promise<MultipleChoiceProbes & { fromCache: boolean }> {
  const o = parseWith(optionsSchema, options, "options");
  const ds =
    typeof o.dataset === "string"
      ? await loadDataset(o.dataset, o.dataRoot !== undefined ? { dataRoot: o.dataRoot } : {})
      : o.dataset;
  const keys = answerKeys(ds, keysPath);
  const { bank, fromCache } = await buildProbeBank(scorer, ds, {
    size: o.size,
    seed: o.seed,
    filter: (i) => keys.has(ds.items[i]!.id),
    ...(o.cacheDir !== undefined ? { cacheDir: o.cacheDir } : {}),
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    ...(o.onWarning ? { onWarning: o.onWarning } : {}),
  });
  const inBank = new Set(bank.ids);
  const texts = new Map(ds.items.filter((item) => inBank.has(item.id)).map((item) => [item.id, item.text]));
  const lookup = (table: ReadonlyMap<string, string>, probe: Probe): string => {
    const value = inBank.has(probe.id) ? table.get(probe.id) : undefined;
    if (value === undefined)
      throw new FeedbackError(`Probe "${probe.id}" is not an item of this ${ds.name} probe bank.`, {
        path: "probe.id",
      });
    return value;
  };
  return {
    probes: bank,
    prompt: (probe) => multipleChoicePrompt(lookup(texts, probe)),
    grade: (reply, probe) => gradeMultipleChoice(reply, lookup(keys, probe)),
    fromCache,
  };
}

/**
 * A ready probe set for adaptive calibration: a probe bank of a multiple-choice dataset of the data root (default
 * MMLU-Pro: `size` items with an answer key, their alpha and beta computed by `scorer` once and cached, see
 * {@link buildProbeBank}), `prompt` (the item's question and lettered options, and the instruction to end with
 * "The answer is (X)") and `grade` ({@link gradeMultipleChoice} against the dataset's answer key). The first call
 * embeds the sampled items (about 1-2 minutes for 1000 with the offline encoder on a CPU, unless
 * `irt-router embed` cached the dataset); later calls read the bank from the cache.
 *
 * @example
 * ```ts
 * const scorer = await loadPretrained();
 * const router = new IrtRouter({ models, scorer, learner: OnlineLearner.forScorer(scorer) });
 * const result = await router.calibrate("my-new-model", { budget: 40, ...(await multipleChoiceProbes(scorer)) });
 * ```
 */
export async function multipleChoiceProbes(
  scorer: IrtMoeScorer,
  options: MultipleChoiceProbesOptions = {},
): Promise<MultipleChoiceProbes> {
  const { probes, prompt, grade } = await buildMultipleChoiceProbes(scorer, options);
  return { probes, prompt, grade };
}
