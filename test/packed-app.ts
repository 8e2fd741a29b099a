/**
 * An app that installed the packed package, for the int tests of what a user installs: `npm pack` (which builds the
 * package) into `root`, then an empty ESM app in `root/app` that installs the tarball and `deps` from npm's local cache
 * (`--prefer-offline`, as bench/perf/sections/install.ts does). Returns the app's folder.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root. */
export const repo = join(dirname(fileURLToPath(import.meta.url)), "..");

export function installPackedApp(root: string, deps: readonly string[]): string {
  const app = join(root, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--pack-destination", root], {
      cwd: repo,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 1 << 26,
    }),
  ) as { filename: string }[];
  const tarball = join(root, packed[0]!.filename);
  const args = ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball, ...deps];
  execFileSync("npm", args, { cwd: app, stdio: ["ignore", "pipe", "pipe"] });
  return app;
}
