import { existsSync } from "node:fs";
import { basename, isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { DatasetNotFoundError, ValidationError } from "../../src/errors.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { parseWith } from "../../src/util/validate.js";
import { BUILTIN_DATASETS } from "./builtin.js";
import { DATA_ROOT_ENV, dataRootCandidates, describeCandidate, isDirectory } from "./data-root.js";
import { isOwnDataFolder, loadOwnDataFolder, ownDataFolderProblem } from "./own-data.js";

const nameSchema = z.string({ error: "must be a dataset name or a folder path (a string)" });

const loadOptionsSchema = z
  .object({
    /** Data root to search first (the CLI's `--data-root`). */
    dataRoot: z.string().min(1).optional(),
    /** `routerdc-7models`: `"binary"` (protocol default) or `"soft"` (raw scores as graded targets). */
    labels: z.enum(["binary", "soft"]).optional(),
    /** Environment to read `IRT_ROUTER_DATA` from (tests); defaults to `process.env`. */
    env: z.record(z.string(), z.string().optional()).optional(),
  })
  .strict();

/** Options of {@link loadDataset}. */
export type LoadDatasetOptions = z.input<typeof loadOptionsSchema>;

/** Where a dataset name or folder resolved to. */
export interface ResolvedDataset {
  /** Absolute folder. */
  readonly dir: string;
  /** `"builtin"` for the four datasets of the shared data root (matched by folder name), else `"own-data"`. */
  readonly kind: "builtin" | "own-data";
}

function looksLikePath(nameOrFolder: string): boolean {
  return (
    isAbsolute(nameOrFolder) ||
    nameOrFolder.startsWith(".") ||
    nameOrFolder.includes("/") ||
    nameOrFolder.includes("\\")
  );
}

function kindOf(dir: string): ResolvedDataset["kind"] | undefined {
  // an own property only: a folder named "constructor" or "__proto__" is no built-in dataset
  const name = basename(dir);
  const builtin = Object.hasOwn(BUILTIN_DATASETS, name) ? BUILTIN_DATASETS[name] : undefined;
  if (builtin && builtin.files.every((f) => existsSync(join(dir, f)))) return "builtin";
  if (isOwnDataFolder(dir)) return "own-data";
  return undefined;
}

/**
 * Find a dataset without loading it. A path (absolute, or containing `/`, or starting with `.`) is used as
 * is; a bare name is looked up in each data root (see {@link dataRootCandidates}), then as a folder of the
 * current directory.
 * Throws a {@link DatasetNotFoundError} listing every place it looked; for a folder that is a broken
 * your-own-data folder (items but no labels table, or a misnamed table file such as `model.csv`), that
 * folder's own error instead (a DatasetNotFoundError naming the missing table, or a DatasetFormatError).
 *
 * @example
 * ```ts
 * resolveDataset("routerbench-subset-11models").dir; // ".../shared/data/routerbench-subset-11models"
 * ```
 */
export function resolveDataset(nameOrFolder: string, options: LoadDatasetOptions = {}): ResolvedDataset {
  parseWith(nameSchema, nameOrFolder, "dataset");
  const opts = parseWith(loadOptionsSchema, options, "options");
  if (nameOrFolder.trim() === "") {
    throw new DatasetNotFoundError(
      `No dataset given: pass a dataset name (e.g. "mmlu-pro-29models") or a folder path.`,
    );
  }
  if (opts.dataRoot !== undefined && !isDirectory(resolve(opts.dataRoot))) {
    // an explicit data root is the user's choice: a typo must not fall back to another root without a word
    throw new ValidationError(
      `The data root ${resolve(opts.dataRoot)} (--data-root / dataRoot option) is not a folder; give the folder that holds the datasets, or leave it out to use $${DATA_ROOT_ENV} or ../shared/data.`,
      { path: "options.dataRoot" },
    );
  }
  const tried: string[] = [];
  const asPath = resolve(nameOrFolder);
  const tryFolder = (): ResolvedDataset | undefined => {
    if (!isDirectory(asPath)) {
      tried.push(`${asPath} [as a folder path; no such folder]`);
      return undefined;
    }
    const kind = kindOf(asPath);
    if (kind) return { dir: asPath, kind };
    const problem = ownDataFolderProblem(asPath);
    if (problem) throw problem;
    tried.push(
      `${asPath} [as a folder path; neither one of the four known datasets nor a your-own-data folder with items.* and labels.*]`,
    );
    return undefined;
  };
  if (looksLikePath(nameOrFolder)) {
    const found = tryFolder();
    if (found) return found;
    throw notFound(nameOrFolder, tried);
  }
  // A bare name: the data roots first, then a folder of that name in the current directory.
  for (const candidate of dataRootCandidates({
    dataRoot: opts.dataRoot,
    env: opts.env as NodeJS.ProcessEnv | undefined,
  })) {
    const dir = join(candidate.dir, nameOrFolder);
    if (!isDirectory(candidate.dir)) {
      tried.push(`${dir} [${describeCandidate(candidate)}; data root does not exist]`);
      continue;
    }
    if (!isDirectory(dir)) {
      tried.push(`${dir} [${describeCandidate(candidate)}; no such folder]`);
      continue;
    }
    const kind = kindOf(dir);
    if (kind) return { dir, kind };
    const problem = ownDataFolderProblem(dir);
    tried.push(
      `${dir} [${describeCandidate(candidate)}; ${problem ? problem.message : "folder lacks the dataset files"}]`,
    );
  }
  const found = tryFolder();
  if (found) return found;
  throw notFound(nameOrFolder, tried);
}

function notFound(nameOrFolder: string, tried: string[]): DatasetNotFoundError {
  const known = Object.keys(BUILTIN_DATASETS).join(", ");
  return new DatasetNotFoundError(
    `Dataset "${nameOrFolder}" not found. Looked in:\n  - ${tried.join("\n  - ")}\n` +
      `Point at the data with --data-root <dir> (or the dataRoot option) or the ${DATA_ROOT_ENV} environment variable ` +
      `(a folder holding ${known}), or pass the path of a your-own-data folder (docs/your-own-data.md).`,
    { details: { tried } },
  );
}

/**
 * Load a dataset into the common in-memory form ({@link CorrectnessDataset}: CSR labels, unobserved cells
 * absent, optional per-(item, model) cost, `source.sha256` content hash).
 *
 * `nameOrFolder` is one of the four datasets of the data root (`mmlu-pro-29models`,
 * `routerbench-subset-11models`, `routerdc-7models`, `routellm-2models`) or the path of a your-own-data folder.
 *
 * @example
 * ```ts
 * const ds = await loadDataset("mmlu-pro-29models");
 * const soft = await loadDataset("routerdc-7models", { labels: "soft" });
 * const mine = await loadDataset("./my-evals");
 * ```
 */
export async function loadDataset(nameOrFolder: string, options: LoadDatasetOptions = {}): Promise<CorrectnessDataset> {
  parseWith(nameSchema, nameOrFolder, "dataset");
  const opts = parseWith(loadOptionsSchema, options, "options");
  const { dir, kind } = resolveDataset(nameOrFolder, opts);
  const name = basename(dir);
  if (opts.labels !== undefined && !(kind === "builtin" && name === "routerdc-7models")) {
    throw new ValidationError(
      `options.labels applies only to routerdc-7models (binarised or soft scores); ${name} has one label file. Remove the option.`,
      { path: "options.labels" },
    );
  }
  if (kind === "builtin") return BUILTIN_DATASETS[name]!.load(dir, { labels: opts.labels });
  return loadOwnDataFolder(dir);
}

/** Names of the datasets with a built-in loader. */
export const BUILTIN_DATASET_NAMES: readonly string[] = Object.keys(BUILTIN_DATASETS);
