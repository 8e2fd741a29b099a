/** Where the installed irt-router package lives (its `pretrained/`, `encoders/` and `package.json`). */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

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
  packageRootMemo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  return packageRootMemo;
}
