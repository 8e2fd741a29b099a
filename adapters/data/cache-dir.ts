/**
 * Where irt-router keeps its caches (dataset embeddings, probe banks) by default, and the check that a cache folder
 * can be written before anything expensive is computed for it.
 */
import { constants } from "node:fs";
import { access, mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { CacheError } from "../../src/errors.js";
import { refusePseudoFilesystem } from "../out-dir.js";
import { packageRoot } from "./data-root.js";

/**
 * Whether irt-router runs as an installed dependency (its package root is inside a `node_modules` folder) rather
 * than from a source checkout. An installed package's folder is not the user's: nothing is written there.
 *
 * @example
 * ```ts
 * installedAsDependency("/app/node_modules/irt-router"); // true
 * installedAsDependency("/src/irt-router"); // false
 * ```
 */
export function installedAsDependency(root: string = packageRoot()): boolean {
  return root.split(/[\\/]+/).includes("node_modules");
}

/**
 * The folder the default caches live under. In a source checkout: `<package root>/.cache` (git-ignored; the
 * benchmarks and docs use it). Installed as a dependency: the per-user cache, `$XDG_CACHE_HOME/irt-router` when
 * `XDG_CACHE_HOME` is an absolute path, else `%LOCALAPPDATA%\irt-router\Cache` on Windows, else
 * `~/.cache/irt-router`, so a cache survives reinstalls, is shared by the user's projects (entries are keyed by
 * content) and never needs the package folder to be writable.
 *
 * @example
 * ```ts
 * defaultCacheRoot({ XDG_CACHE_HOME: "/var/cache/me" }, "/app/node_modules/irt-router"); // "/var/cache/me/irt-router"
 * ```
 */
export function defaultCacheRoot(env: NodeJS.ProcessEnv = process.env, root: string = packageRoot()): string {
  if (!installedAsDependency(root)) return join(root, ".cache");
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, "irt-router");
  if (process.platform === "win32" && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, "irt-router", "Cache");
  return join(homedir(), ".cache", "irt-router");
}

/** Why a folder cannot be used, in words, from an fs error. */
export function fsProblem(error: unknown): string {
  const e = error as NodeJS.ErrnoException & { details?: { code?: unknown } };
  // a typed error of ours carries the filesystem's code in its details (its own code is ours)
  switch (typeof e?.details?.code === "string" ? e.details.code : e?.code) {
    case "ENOTDIR":
    case "EEXIST":
      return "a part of the path is a file, not a folder";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EROFS":
      return "read-only file system";
    case "ENOSPC":
      return "no space left on the device";
    case "ENOTSUP":
      return "a pseudo filesystem (procfs or sysfs)";
    default:
      return (e?.message ?? String(error)).split("\n")[0]!;
  }
}

/**
 * Creates `dir` if needed and checks it can be written; otherwise throws a {@link CacheError} whose message says
 * what the folder is for, why it cannot be used and `fix` (which option or variable moves it).
 *
 * @example
 * ```ts
 * await ensureWritableCacheDir("/tmp/x", { what: "embedding cache", fix: "Pass --cache-dir <dir>.", path: "options.cacheDir" });
 * ```
 */
export async function ensureWritableCacheDir(
  dir: string,
  context: { what: string; origin?: string; fix: string; path?: string },
): Promise<void> {
  try {
    await refusePseudoFilesystem(dir);
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    const origin = context.origin ? ` (${context.origin})` : "";
    throw new CacheError(
      `The ${context.what} folder ${dir}${origin} cannot be used (${fsProblem(error)}: ${(error as Error).message.split("\n")[0]}). ${context.fix}`,
      {
        ...(context.path ? { path: context.path } : {}),
        cause: error,
        details: { dir, code: (error as NodeJS.ErrnoException).code },
      },
    );
  }
}
