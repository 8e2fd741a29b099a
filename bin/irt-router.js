#!/usr/bin/env node
// Runs the compiled CLI when the package is built (dist/), else the TypeScript source through tsx
// (a fresh clone after `npm ci`).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiled = new URL("../dist/bin/cli.js", import.meta.url);
if (existsSync(fileURLToPath(compiled))) {
  await import(compiled.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(new URL("./cli.ts", import.meta.url).href);
}
