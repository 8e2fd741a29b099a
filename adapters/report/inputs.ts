/** Reads what `irt-router report` is given (files, a store, a dataset) into the pure {@link ReportData} pieces. */
import { readFile, stat } from "node:fs/promises";
import { ValidationError } from "../../src/errors.js";
import { datasetSplits } from "../../src/data/select.js";
import { datasetModelNames } from "../../src/scorer/catalog.js";
import type { Scorer } from "../../src/scorer/types.js";
import type { AbilityStore } from "../../src/learning/store.js";
import { costsFromAgent, costsFromEval, learningFromEvents } from "../../src/report/inputs.js";
import type { ReportData } from "../../src/report/types.js";
import { getDatasetEmbeddings } from "../data/dataset-embeddings.js";
import { embeddingCacheDir } from "../data/embedding-cache.js";
import { Progress } from "../progress.js";

/** Reads a JSON file given to `flag`, or throws a ValidationError naming the flag. */
export async function readJsonFlag(file: string, flag: string): Promise<unknown> {
  const text = await readTextFlag(file, flag);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ValidationError(`${flag} ${file} is not JSON (${(e as Error).message}).`, {
      path: `options.${flag.slice(2)}`,
      file,
    });
  }
}

/** Reads a text file given to `flag`, or throws a ValidationError naming the flag. */
export async function readTextFlag(file: string, flag: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (e) {
    throw new ValidationError(
      `${flag} ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`,
      {
        path: `options.${flag.slice(2)}`,
        file,
      },
    );
  }
}

/** The cost-accuracy input from an `eval --json` file or a `bench:agent --json` file. */
export async function readCosts(file: string, kind: "eval" | "agent"): Promise<NonNullable<ReportData["costs"]>> {
  const raw = await readJsonFlag(file, `--${kind}`);
  return kind === "eval" ? costsFromEval(raw) : costsFromAgent(raw);
}

/**
 * Opens a FileStore folder (which must exist: the report never creates one) or a Redis URL (needs the optional
 * ioredis), loads its snapshot and events, closes it, and replays them into learning curves.
 */
export async function readStoreLearning(
  location: string,
  scorer: Scorer,
  log: (line: string) => void,
): Promise<NonNullable<ReportData["learning"]>> {
  let store: AbilityStore;
  const { FileStore, RedisStore } = await import("../stores/index.js");
  if (/^rediss?:\/\//.test(location)) {
    store = await RedisStore.open({ url: location });
  } else {
    const s = await stat(location).catch(() => undefined);
    if (!s?.isDirectory())
      throw new ValidationError(`--store ${location} is not a folder: give a FileStore folder or a redis:// URL.`, {
        path: "options.store",
      });
    store = await FileStore.open(location);
  }
  try {
    const loaded = await store.load();
    log(
      `Replaying ${loaded.events.length} feedback events of ${location}${loaded.snapshot ? " (after its snapshot)" : ""}...`,
    );
    return learningFromEvents(loaded, scorer.models, `store ${location}`);
  } finally {
    await store.close();
  }
}

/**
 * Scores a labelled dataset's test split: each item's beta against its observed accuracy over the dataset's models,
 * and every (item, model) label's predicted p for the reliability diagram. Embeddings come from the cache when there.
 */
export async function readDatasetScores(
  dataset: string,
  scorer: Scorer,
  options: { dataRoot?: string; cacheDir?: string },
  log: (line: string) => void,
): Promise<{ items: NonNullable<ReportData["items"]>; reliability: NonNullable<ReportData["reliability"]>[number] }> {
  log(
    `Loading ${dataset} and its embeddings (cache: ${embeddingCacheDir(options.cacheDir)}; a dataset not cached yet is ` +
      "embedded first, about a minute per 1,000 prompts on 2 cores)...",
  );
  const embedded = await getDatasetEmbeddings(dataset, {
    ...(options.dataRoot ? { dataRoot: options.dataRoot } : {}),
    ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
  });
  const { dataset: ds, vectors, dim } = embedded;
  const names = datasetModelNames(scorer.models, ds.models, ds.name);
  const test = datasetSplits(ds).test;
  const beta: number[] = [];
  const accuracy: number[] = [];
  const p: number[] = [];
  const y: number[] = [];
  const progress = new Progress({ label: `scoring ${ds.name} test items`, total: test.length, unit: "items" });
  for (const i of test) {
    const x = vectors.subarray(i * dim, (i + 1) * dim);
    const params = await scorer.itemParams(x);
    const scores = await scorer.predict(x, names);
    const { offsets, model, y: labels } = ds.labels;
    let sum = 0;
    for (let k = offsets[i]!; k < offsets[i + 1]!; k++) {
      p.push(scores[model[k]!]!.p);
      y.push(labels[k]!);
      sum += labels[k]!;
    }
    const n = offsets[i + 1]! - offsets[i]!;
    if (n > 0) {
      beta.push(params.beta);
      accuracy.push(sum / n);
    }
    progress.tick();
  }
  progress.finish();
  return { items: { dataset: `${ds.name}, test split`, beta, accuracy }, reliability: { dataset: ds.name, p, y } };
}
