#!/usr/bin/env node
// In a source checkout (bin/cli.ts beside this file, and tsx, a devDependency, installed by `npm ci`) the TypeScript
// source runs through tsx, so a dist/ left by `npm pack` (prepack builds it) or `npm run build` never runs stale after
// an edit. The npm package ships no bin/cli.ts: an installed package runs the compiled CLI (dist/).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiled = new URL("../dist/bin/cli.js", import.meta.url);
const source = new URL("./cli.ts", import.meta.url);

/** tsx's register(), or undefined when tsx is not installed; a tsx that is installed but fails to load is an error. */
async function tsxRegister() {
  try {
    return (await import("tsx/esm/api")).register;
  } catch (error) {
    if (error?.code === "ERR_MODULE_NOT_FOUND") return undefined;
    throw error;
  }
}

const checkout = existsSync(fileURLToPath(source));
const register = checkout ? await tsxRegister() : undefined;
if (register) {
  register();
  await import(source.href);
} else if (existsSync(fileURLToPath(compiled))) {
  await import(compiled.href);
} else if (checkout) {
  process.stderr.write(
    "irt-router: tsx is not installed and dist/ is not built: run `npm ci` (or `npm run build`) in the checkout.\n",
  );
  process.exit(1);
} else {
  process.stderr.write("irt-router: this installation has no compiled CLI (dist/bin/cli.js); reinstall the package.\n");
  process.exit(1);
}
