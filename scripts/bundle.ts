/**
 * `npm run build`'s JavaScript step: bundles each public entry point (the package's `exports` and the CLI) into
 * `dist/` with rollup (TypeScript through esbuild's transform), dependencies left as imports, and source maps that
 * carry the TypeScript sources (src/ is not shipped), so stack traces and debuggers show the TypeScript. The
 * declarations come from `tsc` (tsconfig.build.json, declarations only) in the same layout, so the `types` paths are
 * unchanged.
 *
 * Shared code goes to `dist/chunks/`. What a router needs for its first routed call (the engine, policy, scorer, the
 * default scorer's loading path and the static encoder: every module the LangChain entry reaches statically, and those
 * the default scorer loads, that imports no peer package) is one chunk, `core`: a fresh process that routes then
 * reads and links a handful of files instead of about forty (each costs Node's module loader about half a
 * millisecond, and the default scorer's load path was a second round of them during the first call; a model the
 * scorer has no row for still loads the current-models catalog then). Every entry shares that chunk, so no
 * module is bundled twice (one class identity for every error and store); an entry that needs only part of it (for
 * example `irt-router/policy`) loads all of it. The rest is split per entry as the bundler finds it shared.
 */
import { existsSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { rollup, type ManualChunksOption, type OutputOptions, type Plugin, type RollupOptions } from "rollup";
import esbuild from "rollup-plugin-esbuild";

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

/**
 * Whether a module of the `core` chunk may import `specifier` statically: Node's built-ins and the package's own
 * `dependencies` (zod), never a peer (a framework face's, or an optional one such as ioredis or tfjs). Every entry
 * loads the chunk, so one peer imported there would be needed by every entry.
 */
export function coreMayImport(root: string): (specifier: string) => boolean {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  const allowed = Object.keys(pkg.dependencies ?? {});
  return (specifier) =>
    specifier.startsWith("node:") ||
    builtinModules.includes(specifier) ||
    allowed.some((name) => specifier === name || specifier.startsWith(`${name}/`));
}

/** Where the `core` chunk's modules are gathered from: the LangChain entry and what the default scorer loads. */
const CORE_SEEDS = ["langchain.ts", "adapters/artifact/load.ts", "adapters/encoders/static.ts"];

/** Resolves the sources' `./x.js` specifiers to the TypeScript file beside them (`./x.ts`). */
function typescriptSources(): Plugin {
  return {
    name: "typescript-sources",
    resolveId(source, importer) {
      if (!importer || !source.startsWith(".")) return null;
      const path = resolve(dirname(importer), source);
      if (path.endsWith(".js") && existsSync(`${path.slice(0, -3)}.ts`)) return `${path.slice(0, -3)}.ts`;
      return existsSync(path) ? path : null;
    },
  };
}

/**
 * The `core` chunk (see the module comment): the modules reached by static imports from {@link CORE_SEEDS}, less
 * every module from which a peer package is reached by static imports ({@link coreMayImport}).
 */
function coreChunk(root: string): ManualChunksOption {
  let core: Set<string> | undefined;
  return (id, { getModuleInfo }) => {
    core ??= (() => {
      const reached = new Set<string>();
      const queue = CORE_SEEDS.map((seed) => join(root, seed));
      while (queue.length > 0) {
        const next = queue.pop()!;
        const info = getModuleInfo(next);
        if (reached.has(next) || !info || info.isExternal) continue;
        reached.add(next);
        queue.push(...info.importedIds);
      }
      // bound to a peer: imports one statically, or imports a module that is (propagated up the importers)
      const may = coreMayImport(root);
      const bound = new Set<string>();
      const pending = [...reached].filter((m) =>
        getModuleInfo(m)!.importedIds.some((dep) => getModuleInfo(dep)?.isExternal && !may(dep)),
      );
      while (pending.length > 0) {
        const next = pending.pop()!;
        if (bound.has(next)) continue;
        bound.add(next);
        pending.push(...getModuleInfo(next)!.importers);
      }
      return new Set([...reached].filter((id) => !bound.has(id)));
    })();
    return core.has(id) ? "core" : undefined;
  };
}

/** The build's rollup options for `entries` (default: every entry point), written under `outDir` (default `dist/`). */
export function bundleOptions(
  root: string,
  options: { entries?: Record<string, string>; outDir?: string; sourcemap?: boolean } = {},
): RollupOptions & { output: OutputOptions } {
  return {
    input: options.entries ?? entryPoints(root),
    // packages (zod, @langchain/core, node: builtins) stay imports: only the project's own files are bundled
    external: (id) => !id.startsWith(".") && !isAbsolute(id) && !id.startsWith("\0"),
    plugins: [
      typescriptSources(),
      esbuild({ target: "node20", sourceMap: options.sourcemap ?? true, tsconfig: join(root, "tsconfig.build.json") }),
    ],
    // import cycles between modules are part of the sources (checked by the structure tests), not a bundling problem
    onwarn(warning, warn) {
      if (warning.code !== "CIRCULAR_DEPENDENCY") warn(warning);
    },
    output: {
      dir: options.outDir ?? join(root, "dist"),
      format: "es",
      entryFileNames: "[name].js",
      chunkFileNames: "chunks/[name]-[hash].js",
      manualChunks: coreChunk(root),
      sourcemap: options.sourcemap ?? true,
    },
  };
}

/** Bundles with {@link bundleOptions}; returns the files written (paths relative to the output folder). */
export async function bundle(root: string, options: Parameters<typeof bundleOptions>[1] = {}): Promise<string[]> {
  const { output, ...input } = bundleOptions(root, options);
  const build = await rollup(input);
  try {
    const result = await build.write(output);
    return result.output.map((file) => file.fileName);
  } finally {
    await build.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const root = join(import.meta.dirname, "..");
  const files = (await bundle(root)).filter((f) => f.endsWith(".js"));
  console.error(`bundled ${Object.keys(entryPoints(root)).length} entry points into ${files.length} files under dist/`);
}
