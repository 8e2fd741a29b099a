/** Reading and writing a run prior (`run-prior.json`, written by `irt-router train --runs`). */
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ArtifactError } from "../../src/errors.js";
import { runPriorSchema, type RunPrior } from "../../src/runs/run-prior.js";

/** File name of a run prior in its folder. */
export const RUN_PRIOR_FILE = "run-prior.json";

/** Writes `prior` as `<dir>/run-prior.json`; returns the file's path. */
export async function saveRunPrior(dir: string, prior: RunPrior): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, RUN_PRIOR_FILE);
  await writeFile(file, `${JSON.stringify(prior)}\n`);
  return file;
}

/**
 * Reads a run prior from a folder (its `run-prior.json`) or a file, for `new RunRouter({ models, prior })`.
 * Throws an {@link ArtifactError} naming the file when it is not a run prior.
 *
 * @example
 * ```ts
 * const prior = await loadRunPrior("./my-run-prior");
 * const router = new IrtRouter({ models, runs: { prior, costWeight: 0.1 } });
 * ```
 */
export async function loadRunPrior(dirOrFile: string): Promise<RunPrior> {
  const file = (await stat(dirOrFile)).isDirectory() ? join(dirOrFile, RUN_PRIOR_FILE) : dirOrFile;
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new ArtifactError("ARTIFACT_FORMAT", `${file} is not JSON: ${(error as Error).message}`, { file });
  }
  const parsed = runPriorSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ArtifactError(
      "ARTIFACT_FORMAT",
      `${file} is not a run prior (irt-router train --runs): ${issue.path.join(".") || "(root)"}: ${issue.message}`,
      { file },
    );
  }
  return parsed.data as RunPrior;
}
