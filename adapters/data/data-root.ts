import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Environment variable naming the data root. */
export const DATA_ROOT_ENV = "IRT_ROUTER_DATA";

/** One place a data root may come from, in resolution order. */
export interface DataRootCandidate {
  readonly dir: string;
  readonly from: "option" | "env" | "default";
}

let packageRootMemo: string | undefined;

/**
 * The irt-router package root: the nearest ancestor of this module holding a `package.json` named
 * `irt-router` (works from the TypeScript sources and from the compiled `dist/`).
 *
 * @example
 * ```ts
 * join(packageRoot(), "pretrained"); // the shipped scorer
 * ```
 */
export function packageRoot(): string {
  if (packageRootMemo) return packageRootMemo;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "irt-router") {
          packageRootMemo = dir;
          return dir;
        }
      } catch {
        // not a readable package.json: keep walking up
      }
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  // Fallback: two levels above adapters/data (source layout).
  packageRootMemo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
  return packageRootMemo;
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
