import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { rollup } from "rollup";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { bundle, bundleOptions, coreMayImport, entryPoints } from "../scripts/bundle.js";

const root = join(import.meta.dirname, "..");

/** The files `npm pack` would put in the tarball (without building: dist/ is added by prepack). */
function packedFiles(): string[] {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
}

describe("the npm package", () => {
  it("ships the licence, the bin it runs, the pretrained scorer and the static encoder's table (with its notice), and no sources, tests or examples", () => {
    const files = packedFiles();
    for (const f of [
      "LICENSE",
      "README.md",
      "package.json",
      "bin/irt-router.js",
      "pretrained/manifest.json",
      "pretrained/weights.bin",
      "pretrained/catalog.json",
      "encoders/static/manifest.json",
      "encoders/static/table.bin",
      "encoders/static/vocab.json",
      "encoders/static/NOTICE",
      "pretrained/static/manifest.json",
      "pretrained/static/weights.bin",
      "pretrained/static/catalog.json",
    ])
      expect(files).toContain(f);
    expect(files.filter((f) => /\.ts$/.test(f) && !f.endsWith(".d.ts"))).toEqual([]);
    expect(files.filter((f) => /^(src|adapters|test|examples|bench)\//.test(f))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      files: string[];
      license: string;
      scripts: Record<string, string>;
    };
    expect(pkg.files).toEqual(expect.arrayContaining(["dist/src", "dist/adapters", "dist/bin", "dist/chunks"]));
    // npm pack builds (a tarball without dist/ would have no code)
    expect(pkg.scripts.prepack).toMatch(/npm run build/);
    expect(pkg.license).toBe("Apache-2.0");
  });

  it("LICENSE is the Apache License 2.0, verbatim", () => {
    const text = readFileSync(join(root, "LICENSE"), "utf8");
    // md5 of https://www.apache.org/licenses/LICENSE-2.0.txt
    expect(createHash("md5").update(text).digest("hex")).toBe("3b83ef96387f14655fc854ddc3c6bd57");
  });

  it("the bundled source maps carry their sources (src/ is not shipped)", async () => {
    // One entry bundled in memory with the build's own options.
    const file = join(root, "src", "errors.ts");
    const { output, ...input } = bundleOptions(root, { entries: { "src/errors": file } });
    const build = await rollup(input);
    const result = await build.generate(output);
    await build.close();
    const map = result.output.find((f) => f.fileName === "src/errors.js.map");
    expect(map?.type).toBe("asset");
    const json = JSON.parse(String(map!.type === "asset" ? map!.source : "")) as {
      sources: string[];
      sourcesContent?: string[];
    };
    expect(json.sources).toEqual(["../../src/errors.ts"]);
    expect(json.sourcesContent).toEqual([readFileSync(file, "utf8")]);
  });

  it("bundles what a router's first call needs into one chunk, with no peer package in it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "irt-router-bundle-"));
    try {
      await bundle(root, { outDir: dir });
      // the files of the package's own that importing `from` loads (static imports, followed)
      const loaded = (from: string): string[] => {
        const seen = new Set<string>();
        const visit = (file: string) => {
          if (seen.has(file)) return;
          seen.add(file);
          const code = readFileSync(file, "utf8");
          for (const [, spec] of code.matchAll(/^(?:import|export)\b[^'";]*?['"](\.{1,2}\/[^'"]+)['"]/gm))
            visit(join(dirname(file), spec!));
        };
        visit(join(dir, from));
        return [...seen].map((f) => f.slice(dir.length + 1));
      };
      const langchain = loaded("langchain.js");
      const core = langchain.filter((f) => /^chunks\/core-[\w-]+\.js$/.test(f));
      expect(core).toHaveLength(1);
      // a handful of files, not the forty a per-entry split gave (each costs the module loader about half a ms)
      expect(langchain.length).toBeLessThanOrEqual(4);
      // the default scorer's loading path is in it: the first call starts no second round of module loading
      const sources = (JSON.parse(readFileSync(join(dir, `${core[0]}.map`), "utf8")) as { sources: string[] }).sources;
      for (const file of ["adapters/artifact/load.ts", "adapters/encoders/static.ts", "src/core/engine.ts"])
        expect(sources.some((s) => s.endsWith(file))).toBe(true);
      // it imports Node's built-ins and zod only, never a peer, so every entry (the root loads it too) needs none (a
      // peer it uses, such as @opentelemetry/api for tracing, is imported dynamically, when used, and may be missing)
      expect(loaded("index.js")).toContain(core[0]);
      const code = readFileSync(join(dir, core[0]!), "utf8");
      const packages = [...code.matchAll(/^(?:import|export)\b[^'";]*?['"]([^'".][^'"]*)['"]/gm)].map((m) => m[1]!);
      expect(packages).toContain("zod");
      expect(packages.filter((p) => !coreMayImport(root)(p))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("the published declarations type-check with skipLibCheck false (none refers to a name stripInternal removed)", () => {
    mkdirSync(join(root, ".cache"), { recursive: true });
    // inside the project, so that the declarations' imports (zod, @langchain/core, ...) resolve from its node_modules
    const dir = mkdtempSync(join(root, ".cache", "dts-check-"));
    try {
      const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
      execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json"), "--outDir", dir], { cwd: root });
      const entries = Object.keys(entryPoints(root)).filter((name) => name !== "bin/cli");
      const check = join(dir, "check.ts");
      writeFileSync(check, entries.map((name, i) => `export * as e${i} from "./${name}.js";\n`).join(""));
      const r = spawnSync(
        process.execPath,
        [tsc, "--noEmit", "--skipLibCheck", "false", "--strict", "--module", "nodenext", "--moduleResolution"].concat([
          "nodenext",
          "--target",
          "es2022",
          "--types",
          "node",
          check,
        ]),
        { cwd: root, encoding: "utf8" },
      );
      // errors inside dependencies' own types (tfjs has some under skipLibCheck false) are theirs, not ours
      const ours = r.stdout.split("\n").filter((line) => line.includes(dir.slice(root.length + 1)));
      expect(ours).toEqual([]);
      expect(entries.length).toBeGreaterThan(10);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("bundles every export of package.json and the CLI, and tsc writes only their declarations", () => {
    const entries = entryPoints(root);
    expect(Object.keys(entries)).toEqual(
      expect.arrayContaining(["index", "src/scorer/index", "adapters/index", "bin/cli"]),
    );
    for (const source of Object.values(entries)) expect(readFileSync(source, "utf8").length).toBeGreaterThan(0);
    const config = ts.getParsedCommandLineOfConfigFile(
      join(root, "tsconfig.build.json"),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d: ts.Diagnostic) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
        },
      },
    )!;
    expect(config.options.emitDeclarationOnly).toBe(true);
    expect(config.options.stripInternal).toBe(true);
  });
});

describe("bin/irt-router.js", () => {
  // A package layout in a temp folder: the real bin script, a stand-in source CLI and compiled CLI that say which ran,
  // and tsx (linked from this checkout) when `tsx` is set.
  function layout(parts: { source?: boolean; compiled?: boolean; tsx?: boolean }): string {
    const dir = mkdtempSync(join(tmpdir(), "irt-router-bin-"));
    mkdirSync(join(dir, "bin"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "irt-router", type: "module" }));
    copyFileSync(join(root, "bin", "irt-router.js"), join(dir, "bin", "irt-router.js"));
    if (parts.source)
      writeFileSync(
        join(dir, "bin", "cli.ts"),
        'const ran: string = "source";\nprocess.stdout.write(`${ran} ${process.argv.slice(2).join(" ")}\\n`);\n',
      );
    if (parts.compiled) {
      mkdirSync(join(dir, "dist", "bin"), { recursive: true });
      writeFileSync(
        join(dir, "dist", "bin", "cli.js"),
        'process.stdout.write(`compiled ${process.argv.slice(2).join(" ")}\\n`);\n',
      );
    }
    if (parts.tsx) {
      mkdirSync(join(dir, "node_modules"));
      symlinkSync(join(root, "node_modules", "tsx"), join(dir, "node_modules", "tsx"), "dir");
    }
    return dir;
  }
  function runBin(dir: string): { status: number | null; stdout: string; stderr: string } {
    const r = spawnSync(process.execPath, [join(dir, "bin", "irt-router.js"), "--version"], { encoding: "utf8" });
    rmSync(dir, { recursive: true, force: true });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  it("in a checkout runs the TypeScript source, even with a (possibly stale) dist/ built by npm pack", () => {
    expect(runBin(layout({ source: true, compiled: true, tsx: true }))).toMatchObject({
      status: 0,
      stdout: "source --version\n",
    });
  });

  it("installed (no bin/cli.ts) runs the compiled CLI, and so does a checkout without tsx", () => {
    expect(runBin(layout({ compiled: true }))).toMatchObject({ status: 0, stdout: "compiled --version\n" });
    expect(runBin(layout({ compiled: true, tsx: true }))).toMatchObject({ status: 0, stdout: "compiled --version\n" });
    expect(runBin(layout({ source: true, compiled: true }))).toMatchObject({
      status: 0,
      stdout: "compiled --version\n",
    });
  });

  it("says what to do when it has nothing to run", () => {
    expect(runBin(layout({ source: true }))).toMatchObject({
      status: 1,
      stderr: expect.stringMatching(/tsx is not installed and dist\/ is not built: run `npm ci`/),
    });
    expect(runBin(layout({}))).toMatchObject({
      status: 1,
      stderr: expect.stringMatching(/no compiled CLI .*reinstall the package/),
    });
  });
});

/** The names (types included) an entry file exports, as the TypeScript compiler resolves them. */
function exportedNames(file: string): string[] {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  return checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)!)!).map((s) => s.name);
}

describe("the root entry point", () => {
  it("exports at most 40 names, types included (the rest lives in the subpaths)", () => {
    const file = join(root, "index.ts");
    const names = exportedNames(file);
    expect(names).toContain("RouterCore");
    expect(names).toContain("IrtRouterError");
    expect(names).not.toContain("IrtRouter"); // the LangChain face is irt-router/langchain
    expect(names.length, names.sort().join(", ")).toBeLessThanOrEqual(40);
  });
});

describe("the LangChain entry point", () => {
  it("irt-router/langchain exports the LangChain router and middleware, and @langchain/core is an optional peer", () => {
    const file = join(root, "langchain.ts");
    const names = exportedNames(file);
    for (const name of ["IrtRouter", "irtRouterMiddleware", "routeDecisionOf", "routingText", "MemoryFeedbackSink"])
      expect(names).toContain(name);
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(pkg.exports["./langchain"]).toEqual({ types: "./dist/langchain.d.ts", import: "./dist/langchain.js" });
    expect(pkg.peerDependenciesMeta["@langchain/core"]).toEqual({ optional: true });
    expect(pkg.dependencies["@langchain/core"]).toBeUndefined();
    // the AI SDK face: its own entry, and the AI SDK optional peers it needs the types of
    expect(pkg.exports["./ai-sdk"]).toEqual({ types: "./dist/ai-sdk.d.ts", import: "./dist/ai-sdk.js" });
    for (const name of ["ai", "@ai-sdk/provider"]) {
      expect(pkg.peerDependenciesMeta[name], name).toEqual({ optional: true });
      expect(pkg.dependencies[name], name).toBeUndefined();
    }
  });
});

describe("CI and the README", () => {
  it("runs exactly the test commands the README's quickstart gives, in that order, and keeps vega optional", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const quickstart = readme.slice(readme.indexOf("## Quickstart"), readme.indexOf("## Command line"));
    const given = [...quickstart.matchAll(/^(npm (?:test|run test:\S+))/gm)].map((m) => m[1]);
    expect(given).toEqual(["npm test", "npm run test:int"]);
    const ci = readFileSync(join(root, ".ci/run"), "utf8")
      .split("\n")
      .filter((l) => /^npm (test|run test:)/.test(l));
    expect(ci).toEqual(given);
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    for (const name of ["vega", "vega-lite"]) {
      expect(pkg.dependencies[name]).toBeUndefined();
      expect(pkg.peerDependenciesMeta[name]).toEqual({ optional: true });
      expect(pkg.devDependencies[name]).toBe(pkg.peerDependencies[name]);
    }
  });
});
