/**
 * The AI SDK face in an app without LangChain (issue 38): packs the package (`npm pack`, which builds it), installs
 * the tarball with only `ai`, `@ai-sdk/openai` and `zod` into an empty app from npm's local cache (`--prefer-offline`,
 * as test/cli/installed.int.test.ts does), checks that no LangChain package came with it (`npm ls @langchain/core` is
 * empty), and runs examples/ai-sdk.ts there as plain JavaScript importing `irt-router/ai-sdk` (its types stripped by
 * esbuild, nothing bundled): a routed tool loop over real HTTP against the example's loopback server. About 1.5-3
 * minutes (the build and the install), hence an int test (`npm run test:int`).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { transformSync } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPackedApp, repo } from "../packed-app.js";

const DEPS = ["ai@6.0.333", "@ai-sdk/openai@3.0.141", "zod@4.6.7"];

const root = mkdtempSync(join(tmpdir(), "irt-router-ai-sdk-app-"));
const app = join(root, "app");
afterAll(() => rmSync(root, { recursive: true, force: true }));

beforeAll(() => {
  installPackedApp(root, DEPS);
  // The example as a user's app has it: the package import instead of the repository's entry file.
  const source = readFileSync(join(repo, "examples", "ai-sdk.ts"), "utf8");
  const imported = source.replace(/from "\.\.\/ai-sdk\.js"/, 'from "irt-router/ai-sdk"');
  expect(imported).not.toBe(source);
  writeFileSync(join(app, "example.mjs"), transformSync(imported, { loader: "ts", format: "esm" }).code);
}, 900_000);

describe("irt-router/ai-sdk in an app with ai and @ai-sdk/openai and no LangChain", () => {
  it("has no LangChain package installed: npm ls @langchain/core is empty", () => {
    const ls = spawnSync("npm", ["ls", "@langchain/core", "langchain", "--all", "--json"], {
      cwd: app,
      encoding: "utf8",
    });
    const tree = JSON.parse(ls.stdout) as { dependencies?: Record<string, unknown> };
    expect(tree.dependencies ?? {}).toEqual({});
    for (const name of ["@langchain/core", "langchain"]) {
      expect(existsSync(join(app, "node_modules", name)), name).toBe(false);
    }
    expect(existsSync(join(app, "node_modules", "irt-router", "package.json"))).toBe(true);
  });

  it("runs the AI SDK example: a routed tool loop with a fallback, cache reads and feedback", () => {
    const r = spawnSync(process.execPath, ["example.mjs"], { cwd: app, encoding: "utf8", timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/feedback: 3 event\(s\) recorded for run ai-sdk-run-1/);
    expect(r.stdout).toMatch(/http requests: /);
  });
});
