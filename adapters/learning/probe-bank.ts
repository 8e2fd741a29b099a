/**
 * Probe banks for adaptive calibration, built from a dataset of the data root: a seeded sample of
 * its items with the alpha and beta the scorer computes (temperature folded in), cached as JSON in
 * `<cache>/probe-banks/` keyed by the dataset's content hash, the scorer's weights hash and the sample.
 * The cache holds item ids and numbers only, never item texts or answers.
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { probeBankFrom, type ProbeBank } from "../../src/learning/new-model-calibration.js";
import type { IrtMoeScorer } from "../../src/scorer/scorer.js";
import { encodeWeights, sha256Hex } from "../../src/scorer/serialize.js";
import { mulberry32 } from "../../src/util/random.js";
import { parseWith } from "../../src/util/validate.js";
import { defaultCacheRoot } from "../data/cache-dir.js";
import { peekCachedEmbeddings } from "../data/embedding-cache.js";

const optionsSchema = z
  .object({
    /** How many items to sample (default 1000; all when the dataset is smaller). */
    size: z.number().int().positive().default(1000),
    seed: z.number().int().default(0),
    /** Only items for which this predicate holds (e.g. observed for a replay model). */
    filter: z.custom<(index: number) => boolean>((v) => typeof v === "function", "must be a function").optional(),
    /** Cache folder (default `probe-banks` under defaultCacheRoot(): `<package>/.cache` in a checkout, the per-user cache when installed). */
    cacheDir: z.string().min(1).optional(),
    onProgress: z
      .custom<(done: number, total: number) => void>((v) => typeof v === "function", "must be a function")
      .optional(),
    /** Told when the bank could not be written to the cache (it is still returned; default console.warn). */
    onWarning: z.custom<(message: string) => void>((v) => typeof v === "function", "must be a function").optional(),
  })
  .strict();

export type ProbeBankOptions = z.input<typeof optionsSchema>;

/** Indices of the sampled items, in dataset order. */
export function sampleItems(n: number, size: number, seed: number, filter?: (i: number) => boolean): number[] {
  const pool = Array.from({ length: n }, (_, i) => i).filter((i) => !filter || filter(i));
  // seeded partial Fisher-Yates
  const next = mulberry32(seed ^ 0x9e3779b9);
  const k = Math.min(size, pool.length);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(next() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, k).sort((a, b) => a - b);
}

/**
 * Probe bank of a dataset under a scorer (computed once, then served from the cache).
 *
 * @example
 * ```ts
 * const bank = await buildProbeBank(scorer, await loadDataset("mmlu-pro-29models"), { size: 500 });
 * await calibrateModel({ learner, modelId: "my-model", probes: bank, budget: 40, ask });
 * ```
 */
export async function buildProbeBank(
  scorer: IrtMoeScorer,
  ds: CorrectnessDataset,
  options: ProbeBankOptions = {},
): Promise<{ bank: ProbeBank; items: number[]; fromCache: boolean }> {
  const o = parseWith(optionsSchema, options, "probeBankOptions");
  const items = sampleItems(ds.items.length, o.size, o.seed, o.filter);
  // The hash of the weights themselves (a scorer without a manifest, e.g. freshly trained, has its own key) and the
  // temperature folded into the bank.
  const scorerKey = sha256Hex(encodeWeights(scorer.weights).bytes);
  const ids = items.map((i) => ds.items[i]!.id);
  const key = createHash("sha256")
    .update(
      JSON.stringify({
        data: ds.source.sha256,
        scorer: scorerKey,
        temperature: scorer.temperature,
        encoder: scorer.encoder.id,
        items: ids,
      }),
    )
    .digest("hex")
    .slice(0, 20);
  const dir = o.cacheDir ?? join(defaultCacheRoot(), "probe-banks");
  const file = join(dir, `${ds.name.replace(/[^A-Za-z0-9._-]/g, "_")}-${key}.json`);
  const cachedBank = readCachedBank(file, ds.name, ids, scorer.abilityDim);
  if (cachedBank) return { bank: cachedBank, items, fromCache: true };
  const T = scorer.temperature;
  const cachedVectors = await peekCachedEmbeddings(ds, scorer.encoder);
  const entries: { id: string; alpha: Float32Array; beta: number }[] = [];
  for (const [k, i] of items.entries()) {
    const input = cachedVectors
      ? cachedVectors.vectors.subarray(i * cachedVectors.dim, (i + 1) * cachedVectors.dim)
      : ds.items[i]!.text;
    const p = await scorer.itemParams(input);
    entries.push({ id: ds.items[i]!.id, alpha: Float32Array.from(p.alpha, (v) => v / T), beta: p.beta / T });
    o.onProgress?.(k + 1, items.length);
  }
  const bank = probeBankFrom(ds.name, entries);
  writeCachedBank(file, bank, o.onWarning ?? ((m: string) => console.warn(m)));
  return { bank, items, fromCache: false };
}

/** The bank a cache file holds, when it is a complete bank of exactly these ids of the scorer's dim; else undefined. */
function readCachedBank(file: string, dataset: string, ids: readonly string[], dim: number): ProbeBank | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const cached = JSON.parse(readFileSync(file, "utf8")) as {
      ids: string[];
      alphas: number[];
      betas: number[];
      dim: number;
    };
    if (!validCache(cached, ids, dim)) return undefined;
    const { alphas, betas } = cached;
    return {
      dataset,
      dim: cached.dim,
      ids: cached.ids,
      alphas: Float32Array.from(alphas),
      betas: Float32Array.from(betas),
    };
  } catch {
    return undefined; // unreadable cache: rebuilt
  }
}

/**
 * Writes the bank to its cache file, atomically (a temporary file unique per writer, renamed into place); a cache
 * that cannot be written is a warning: the bank is computed and correct, and is recomputed next time.
 */
function writeCachedBank(file: string, bank: ProbeBank, warn: (message: string) => void): void {
  const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    const { dataset, dim, ids } = bank;
    writeFileSync(
      tmp,
      JSON.stringify({ dataset, dim, ids, alphas: Array.from(bank.alphas), betas: Array.from(bank.betas) }),
    );
    renameSync(tmp, file);
  } catch (error) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // nothing was written there
    }
    warn(
      `irt-router: the probe bank could not be cached in ${dirname(file)} (${(error as Error).message.split("\n")[0]}); it is used uncached and will be recomputed next time. Pass cacheDir to use a writable folder.`,
    );
  }
}

/** Whether a parsed cache file is a complete bank of exactly these ids, with finite numbers of the scorer's dim. */
function validCache(
  c: unknown,
  ids: readonly string[],
  dim: number,
): c is { ids: string[]; alphas: number[]; betas: number[]; dim: number } {
  if (typeof c !== "object" || c === null) return false;
  const v = c as { ids?: unknown; alphas?: unknown; betas?: unknown; dim?: unknown };
  const finite = (a: unknown, n: number) =>
    Array.isArray(a) && a.length === n && a.every((x) => typeof x === "number" && Number.isFinite(x));
  return (
    v.dim === dim &&
    Array.isArray(v.ids) &&
    v.ids.length === ids.length &&
    v.ids.every((id, k) => id === ids[k]) &&
    finite(v.alphas, ids.length * dim) &&
    finite(v.betas, ids.length)
  );
}
