#!/usr/bin/env node
// Runs the compiled CLI (dist/, what the npm package ships), else, in a source checkout that has not been built,
// the TypeScript source through tsx (a devDependency: present after `npm ci`).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiled = new URL("../dist/bin/cli.js", import.meta.url);
const source = new URL("./cli.ts", import.meta.url);
if (existsSync(fileURLToPath(compiled))) {
  await import(compiled.href);
} else if (existsSync(fileURLToPath(source))) {
  let register;
  try {
    ({ register } = await import("tsx/esm/api"));
  } catch {
    process.stderr.write("irt-router: dist/ is not built and tsx is not installed: run `npm ci` (or `npm run build`) in the checkout.\n");
    process.exit(1);
  }
  register();
  await import(source.href);
} else {
  process.stderr.write("irt-router: this installation has no compiled CLI (dist/bin/cli.js); reinstall the package.\n");
  process.exit(1);
}
