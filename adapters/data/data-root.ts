import { statSync } from "node:fs";
import { resolve } from "node:path";

import { packageRoot } from "../package-root.js";

export { packageRoot } from "../package-root.js";

/** Environment variable naming the data root. */
export const DATA_ROOT_ENV = "IRT_ROUTER_DATA";

/** One place a data root may come from, in resolution order. */
export interface DataRootCandidate {
  readonly dir: string;
  readonly from: "option" | "env" | "default";
}

/**
 * The data roots to search, in order: the explicit `dataRoot` option (`--data-root`), then the
 * `IRT_ROUTER_DATA` environment variable, then `../shared/data` beside the package root (not the cwd).
 * Relative `dataRoot`/env values are resolved against the current directory.
 *
 * @example
 * ```ts
 * dataRootCandidates({ dataRoot: "/data" }).map((c) => c.dir); // ["/data", ...env, "<pkg>/../shared/data"]
 * ```
 */
export function dataRootCandidates(options: { dataRoot?: string; env?: NodeJS.ProcessEnv } = {}): DataRootCandidate[] {
  const env = options.env ?? process.env;
  const out: DataRootCandidate[] = [];
  if (options.dataRoot !== undefined && options.dataRoot !== "")
    out.push({ dir: resolve(options.dataRoot), from: "option" });
  const fromEnv = env[DATA_ROOT_ENV];
  if (fromEnv !== undefined && fromEnv !== "") out.push({ dir: resolve(fromEnv), from: "env" });
  out.push({ dir: resolve(packageRoot(), "..", "shared", "data"), from: "default" });
  return out;
}

/** Whether `path` is an existing directory. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Human label of a candidate's origin, for error messages. */
export function describeCandidate(c: DataRootCandidate): string {
  return c.from === "option"
    ? "--data-root / dataRoot option"
    : c.from === "env"
      ? `$${DATA_ROOT_ENV}`
      : "default (../shared/data beside the package)";
}
