/**
 * Reading and writing a run prior (`run-prior.json`, written by `irt-router train --runs`, or a running router's
 * `toPrior()` saved to restart from).
 */
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { ArtifactError } from "../../src/errors.js";
import { runPriorSchema, type RunPrior } from "../../src/runs/run-prior.js";
import { parseWith } from "../../src/util/validate.js";
import { atomicWrite, makeDirectory } from "../stores/fs-atomic.js";

/** File name of a run prior in its folder. */
export const RUN_PRIOR_FILE = "run-prior.json";

/**
 * Writes `prior` as `<dir>/run-prior.json` and returns the file's path. The write is atomic (a temp file, fsync, then
 * renamed over the old one), so a process that saves what its router learned every so often, and one that starts
 * from the file meanwhile or after a crash, read the old prior or the new one, never a part. A prior that is not one
 * (e.g. edited by hand) is a `ValidationError` naming the field, and nothing is written.
 *
 * @example
 * ```ts
 * await saveRunPrior("./run-prior", router.runs.toPrior({ service: "agents" }));
 * ```
 */
export async function saveRunPrior(dir: string, prior: RunPrior): Promise<string> {
  parseWith(runPriorSchema, prior, "prior");
  await makeDirectory(dir);
  await atomicWrite(dir, RUN_PRIOR_FILE, `${JSON.stringify(prior)}\n`);
  return join(dir, RUN_PRIOR_FILE);
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
  let file = dirOrFile;
  let text: string;
  try {
    if ((await stat(dirOrFile)).isDirectory()) file = join(dirOrFile, RUN_PRIOR_FILE);
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ArtifactError(
      "ARTIFACT_FORMAT",
      code === "ENOENT"
        ? `${file} does not exist: a run prior is written by \`irt-router train --runs --out <dir>\` or saveRunPrior(dir, router.toPrior()).`
        : `${file} could not be read (${(error as Error).message}).`,
      { file, cause: error },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
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
