/**
 * The checked-in API reports (etc/api/<entry>.api.md), one per entry point of package.json `exports`.
 * `tsx scripts/api.ts update` (npm run api:update) builds the declarations and rewrites the reports;
 * `tsx scripts/api.ts check` (npm run api:check) does the same and fails when a report differs from the checked-in one.
 * Needs no dist/: the declarations are built into .cache/api-dts (git-ignored).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Extractor, ExtractorConfig, ExtractorLogLevel, type IConfigFile } from "@microsoft/api-extractor";

const root = join(import.meta.dirname, "..");
// Outside node_modules: API Extractor takes anything under node_modules for another package.
const out = join(root, ".cache", "api-dts");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const reportFolder = join(root, "etc", "api");

const mode = process.argv[2];
if (mode !== "update" && mode !== "check") {
  console.error("usage: tsx scripts/api.ts update|check");
  process.exit(2);
}

/** Each entry point: its report name (root for ".", else the subpath) and its declaration file in `out`. */
function entries(): { name: string; dts: string }[] {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    exports: Record<string, string | { types?: string }>;
  };
  return Object.entries(pkg.exports).flatMap(([key, value]) => {
    if (typeof value === "string" || !value.types) return [];
    return [
      { name: key === "." ? "root" : key.replace(/^\.\//, ""), dts: join(out, value.types.replace(/^\.\/dist\//, "")) },
    ];
  });
}

function runTsc(args: string[]): void {
  const result = spawnSync(process.execPath, [tsc, ...args], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`tsc ${args.join(" ")} failed (exit ${result.status})`);
}

/** The package's declarations, and declarations for `@langchain/protocol` (it ships a .ts file as its types,
 * which API Extractor cannot analyse; the compiler options below map the package to these). */
function buildDeclarations(): void {
  rmSync(out, { recursive: true, force: true });
  runTsc([
    "-p",
    "tsconfig.build.json",
    "--emitDeclarationOnly",
    "--outDir",
    out,
    "--sourceMap",
    "false",
    "--inlineSources",
    "false",
  ]);
  const protocol = createRequire(join(root, "node_modules", "@langchain", "core", "package.json")).resolve(
    "@langchain/protocol",
  );
  runTsc([
    protocol,
    "--declaration",
    "--emitDeclarationOnly",
    "--skipLibCheck",
    "--target",
    "ES2022",
    "--outDir",
    join(out, "protocol"),
  ]);
}

function configOf(name: string, dts: string): IConfigFile {
  return {
    projectFolder: root,
    mainEntryPointFilePath: dts,
    compiler: {
      overrideTsconfig: {
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          lib: ["ES2023"],
          types: ["node"],
          skipLibCheck: true,
          strict: true,
          paths: { "@langchain/protocol": [join(out, "protocol", "protocol.d.ts")] },
        },
        files: [dts],
      },
    },
    apiReport: { enabled: true, reportFileName: name, reportFolder, reportTempFolder: join(out, "reports") },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    newlineKind: "lf",
    messages: {
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
      // Findings (a type used but not exported, ...) go into the report, where a review sees them.
      extractorMessageReporting: {
        default: { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
        "ae-missing-release-tag": { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
      },
      tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
    },
  };
}

buildDeclarations();
mkdirSync(reportFolder, { recursive: true });
const stale: string[] = [];
for (const { name, dts } of entries()) {
  const config = ExtractorConfig.prepare({
    configObject: configOf(name, dts),
    configObjectFullPath: join(root, "api-extractor.json"),
    packageJsonFullPath: join(root, "package.json"),
  });
  const result = Extractor.invoke(config, { localBuild: mode === "update", messageCallback: quietInfo });
  // update: a changed or new report is the point (API Extractor warns about it); only errors fail
  const failed = mode === "update" ? result.errorCount > 0 : !result.succeeded || result.apiReportChanged;
  if (failed) stale.push(name);
}
if (stale.length > 0) {
  console.error(
    mode === "check"
      ? `API report out of date for: ${stale.join(", ")}. Run \`npm run api:update\` and commit etc/api/.`
      : `API Extractor failed for: ${stale.join(", ")}`,
  );
  process.exit(1);
}
console.log(`API reports ${mode === "check" ? "up to date" : "written"} in etc/api/`);

/** Keeps the output to warnings and errors. */
function quietInfo(message: { logLevel: string; handled: boolean }): void {
  if (message.logLevel === "info" || message.logLevel === "verbose") message.handled = true;
}
