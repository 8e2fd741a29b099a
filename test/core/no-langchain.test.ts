import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundle } from "../../scripts/bundle.js";
import { resolveImport, ROOT, specifiersOf } from "../structure/import-graph.js";

/** Packages of the framework faces: the root entry must load none of them, at run time or in its types. */
const FRAMEWORK = /^(langchain|@langchain\/[^/]+|ai|@ai-sdk\/[^/]+)(\/|$)/;

/** The bare (package) specifiers of every project file reachable from `entry` through relative imports. */
function packagesReachedFrom(entry: string): Map<string, string[]> {
  const seen = new Set<string>();
  const packages = new Map<string, string[]>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of specifiersOf(file)) {
      if (spec.startsWith(".")) {
        const target = resolveImport(file, spec);
        if (target) visit(target);
      } else packages.set(spec, [...(packages.get(spec) ?? []), file]);
    }
  };
  visit(entry);
  return packages;
}

describe("the root entry point without LangChain", () => {
  let dir: string;
  let hook: string;

  beforeAll(async () => {
    mkdirSync(join(ROOT, ".cache"), { recursive: true });
    // inside the project, so that the bundles' bare imports (zod, ...) resolve from its node_modules
    dir = mkdtempSync(join(ROOT, ".cache", "no-langchain-"));
    await bundle(ROOT, {
      entries: {
        index: join(ROOT, "index.ts"),
        langchain: join(ROOT, "langchain.ts"),
        "ai-sdk": join(ROOT, "ai-sdk.ts"),
      },
      outDir: dir,
      sourcemap: false,
    });
    hook = join(dir, "no-frameworks.mjs");
    const hooks = pathToFileURL(join(ROOT, "test", "encoders", "fixtures", "no-tfjs-hooks.mjs")).href;
    writeFileSync(
      hook,
      `import { register } from "node:module";\n` +
        `register(${JSON.stringify(hooks)}, import.meta.url, { data: { log: process.env.NO_TFJS_LOG, blocked: ${JSON.stringify(FRAMEWORK.source)} } });\n`,
    );
    writeFileSync(join(dir, "probe.mjs"), PROBE);
    writeFileSync(join(dir, "probe-ai-sdk.mjs"), PROBE_AI_SDK);
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the probe on one built entry in a process where every framework package fails to resolve. */
  function probe(
    entry: string,
    script = "probe.mjs",
  ): { status: number | null; stdout: string; stderr: string; imported: string[] } {
    const log = join(dir, `${entry}.log`);
    const r = spawnSync(process.execPath, ["--import", hook, join(dir, script), join(dir, `${entry}.js`)], {
      cwd: dir,
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, NO_TFJS_LOG: log },
    });
    const imported = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, imported };
  }

  it("the built root entry loads, routes a call, records its usage and takes feedback with no framework package", () => {
    const r = probe("index");
    expect(r.status, r.stderr).toBe(0);
    expect(r.imported).toEqual([]);
    expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!)).toEqual({
      models: ["strong", "cheap"],
      chosen: expect.stringMatching(/^(strong|cheap)$/),
      cost: "usage",
      events: 1,
    });
  });

  it("the built AI SDK entry loads and routes a call too: it needs the AI SDK's types only", () => {
    const r = probe("ai-sdk", "probe-ai-sdk.mjs");
    expect(r.status, r.stderr).toBe(0);
    expect(r.imported).toEqual([]);
    expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!)).toEqual({ text: "4", chosen: expect.any(String) });
  });

  it("the same process cannot load the LangChain entry (the hook does block @langchain/*)", () => {
    const r = probe("langchain");
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/Cannot find package '@langchain\/core'/);
    expect(r.imported.some((s) => s.startsWith("@langchain/core"))).toBe(true);
  });

  it("no file the root entry reaches names a framework package, not even in a type (so neither do its .d.ts)", () => {
    const offending = [...packagesReachedFrom("index.ts")].filter(([spec]) => FRAMEWORK.test(spec));
    expect(offending, offending.map(([s, f]) => `${s} <- ${f.join(", ")}`).join("\n")).toEqual([]);
    // and the walk does see one where there is one
    expect([...packagesReachedFrom("langchain.ts").keys()].some((s) => FRAMEWORK.test(s))).toBe(true);
  });
});

/** Loads the entry named by argv[2], routes one call among two models and prints what happened as JSON. */
const PROBE = `
const { RouterCore } = await import(process.argv[2]);
const ability = { strong: Float32Array.from([2]), cheap: Float32Array.from([0.2]) };
const scorer = {
  abilityDim: 1,
  models: [
    { id: "strong", aliases: [], ability: ability.strong, price: { inputPer1M: 10, outputPer1M: 30 } },
    { id: "cheap", aliases: [], ability: ability.cheap, price: { inputPer1M: 0.2, outputPer1M: 0.2 } },
  ],
  itemParams: async () => ({ alpha: Float32Array.from([1]), beta: 0.5 }),
  predict: async (_text, ids) => ids.map((model) => ({ model, p: 0.5 })),
  ability: (id) => ability[id],
};
const router = new RouterCore({
  models: [{ id: "strong" }, { id: "cheap" }],
  scorer,
  tracing: false,
  logger: { warn: () => {} },
});
const plan = await router.route({ messages: [{ role: "user", text: "What is 2+2?" }], runId: "r1" });
const cost = router.served(plan, plan.models[0], { inputTokens: 12, outputTokens: 3 });
const events = await router.feedback("r1", true, { source: "probe" });
console.log(JSON.stringify({ models: router.modelIds, chosen: plan.decision.chosen, cost: cost.source, events: events.length }));
`;

/** Loads the AI SDK entry named by argv[2] and routes one doGenerate call between two minimal LanguageModelV3s. */
const PROBE_AI_SDK = `
const { createIrtRouterModel } = await import(process.argv[2]);
const child = (modelId) => ({
  specificationVersion: "v3",
  provider: "probe",
  modelId,
  supportedUrls: {},
  doGenerate: async () => ({
    content: [{ type: "text", text: "4" }],
    finishReason: { unified: "stop", raw: undefined },
    usage: { inputTokens: { total: 5 }, outputTokens: { total: 1 } },
    warnings: [],
  }),
  doStream: async () => { throw new Error("not used"); },
});
const ability = { strong: Float32Array.from([2]), cheap: Float32Array.from([0.2]) };
const scorer = {
  abilityDim: 1,
  models: [
    { id: "strong", aliases: [], ability: ability.strong },
    { id: "cheap", aliases: [], ability: ability.cheap },
  ],
  itemParams: async () => ({ alpha: Float32Array.from([1]), beta: 0.5 }),
  predict: async (_text, ids) => ids.map((model) => ({ model, p: 0.5 })),
  ability: (id) => ability[id],
};
const model = createIrtRouterModel({
  models: { strong: child("strong"), cheap: child("cheap") },
  scorer,
  tracing: false,
  logger: { warn: () => {} },
});
const out = await model.doGenerate({ prompt: [{ role: "user", content: [{ type: "text", text: "2+2?" }] }] });
console.log(JSON.stringify({ text: out.content[0].text, chosen: out.providerMetadata["irt-router"].chosen }));
`;
