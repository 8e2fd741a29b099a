/**
 * `npm run build`'s JavaScript step: bundles each public entry point (the package's `exports` and the CLI) into
 * `dist/` with esbuild, code shared between entries split into `dist/chunks/`, dependencies left as imports. A fresh
 * process that routes then reads and compiles a few files instead of about 140 modules. The source maps carry the
 * TypeScript sources (src/ is not shipped), so stack traces and debuggers show the TypeScript. The declarations come
 * from `tsc` (tsconfig.build.json, declarations only) in the same layout, so the `types` paths are unchanged.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build, type BuildOptions } from "esbuild";

/** The output name of each entry point (`src/scorer/index`) and its TypeScript source. */
export function entryPoints(root: string): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    exports: Record<string, string | { import?: string }>;
  };
  const entries: Record<string, string> = { "bin/cli": join(root, "bin", "cli.ts") };
  for (const target of Object.values(pkg.exports)) {
    const file = typeof target === "string" ? target : target.import;
    if (!file?.startsWith("./dist/") || !file.endsWith(".js")) continue;
    const name = file.slice("./dist/".length, -".js".length);
    entries[name] = join(root, `${name}.ts`);
  }
  return entries;
}

/** The build's esbuild options (the tests build one file with them). */
export function bundleOptions(root: string): BuildOptions {
  return {
    entryPoints: entryPoints(root),
    outdir: join(root, "dist"),
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    chunkNames: "chunks/[name]-[hash]",
    sourcemap: true,
    sourcesContent: true,
    legalComments: "none",
    logLevel: "warning",
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const root = join(import.meta.dirname, "..");
  const result = await build({ ...bundleOptions(root), metafile: true });
  const files = Object.keys(result.metafile!.outputs).filter((f) => f.endsWith(".js"));
  console.error(`bundled ${Object.keys(entryPoints(root)).length} entry points into ${files.length} files under dist/`);
}
