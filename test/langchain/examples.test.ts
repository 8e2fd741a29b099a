import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Every TypeScript example of README.md and docs/*.md and every TSDoc `@example` of the routing code (src/langchain,
 * src/core, src/ai-sdk, src/mastra, src/openai-agents, src/runs) compiles under `tsc --strict`, against this checkout's sources as the `irt-router` package: `irt-router` and
 * each `irt-router/<sub>` resolve to the sources package.json "exports" point at (exportPaths). The names an example
 * takes as given (`gpt4`, `tools`, `router`, `models`, `messages`, ...) and the provider packages it imports, which are
 * not dependencies, are declared in a prelude.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const virtualDir = join(root, "test/langchain/__examples__");

const PRELUDE = `
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { IrtRouter, IrtRouterOptions } from "irt-router/langchain";
import type { EncoderInfo, QueryEncoder } from "irt-router/encoders";
import type { FeedbackEvent, RunStep } from "irt-router/learning";
import type { IrtMoeScorer } from "irt-router/scorer";
declare global {
  const gpt4: BaseChatModel;
  const mistral: BaseChatModel;
  const tools: StructuredToolInterface[];
  const getWeather: StructuredToolInterface;
  const router: IrtRouter;
  const models: IrtRouterOptions["models"];
  const scorer: IrtMoeScorer;
  const encoder: QueryEncoder;
  const artifact: { encoder: EncoderInfo };
  const decisionId: string;
  const runId: string;
  const result: { irtRouterRunId: string };
  const event: FeedbackEvent;
  const steps: RunStep[];
  const candidates: string[];
  const query: string;
  const question: string;
  const text: string;
  const texts: string[];
  const taskText: string;
  const messages: BaseMessage[];
  const messagesEndingWithAToolError: BaseMessage[];
  function runTests(): Promise<{ passed: boolean }>;
}
export {};
`;

interface Example {
  where: string;
  code: string;
}

function markdownExamples(file: string): Example[] {
  const text = readFileSync(join(root, file), "utf8");
  const out: Example[] = [];
  for (const m of text.matchAll(/```(?:ts|typescript)\n([\s\S]*?)```/g)) {
    out.push({ where: `${file}:${text.slice(0, m.index).split("\n").length}`, code: m[1]! });
  }
  return out;
}

function tsdocExamples(dir: string): Example[] {
  const out: Example[] = [];
  const names = readdirSync(join(root, dir), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  for (const name of names.sort()) {
    const text = readFileSync(join(root, dir, name), "utf8");
    for (const m of text.matchAll(/@example\s*\n\s*\*\s*```ts\n([\s\S]*?)\*\s*```/g)) {
      const code = m[1]!.replace(/^\s*\* ?/gm, "");
      out.push({ where: `${dir}/${name}:${text.slice(0, m.index).split("\n").length}`, code });
    }
  }
  return out;
}

/** The provider packages the examples import, which are not dependencies of irt-router (an ambient script). */
const PROVIDERS = `declare module "@langchain/openai" {
  import { BaseChatModel } from "@langchain/core/language_models/chat_models";
  import { Embeddings } from "@langchain/core/embeddings";
  export class ChatOpenAI extends BaseChatModel {
    constructor(fields?: { model?: string; temperature?: number; maxRetries?: number });
    _llmType(): string;
    _generate(...args: Parameters<BaseChatModel["_generate"]>): ReturnType<BaseChatModel["_generate"]>;
  }
  export class OpenAIEmbeddings extends Embeddings {
    constructor(fields?: { model?: string; dimensions?: number });
    embedDocuments(texts: string[]): Promise<number[][]>;
    embedQuery(text: string): Promise<number[]>;
  }
}
declare module "@langchain/anthropic" {
  import { BaseChatModel } from "@langchain/core/language_models/chat_models";
  export class ChatAnthropic extends BaseChatModel {
    constructor(fields?: { model?: string; temperature?: number; maxRetries?: number });
    _llmType(): string;
    _generate(...args: Parameters<BaseChatModel["_generate"]>): ReturnType<BaseChatModel["_generate"]>;
  }
}`;

/**
 * The `paths` that resolve `irt-router` and each `irt-router/<sub>` to this checkout's TypeScript sources, derived from
 * package.json "exports" (`"./x": { types: "./dist/<p>.d.ts" }` -> `<p>.ts`), so a new subpath needs no edit here.
 */
export function exportPaths(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    name: string;
    exports: Record<string, string | { types?: string }>;
  };
  const paths: Record<string, string[]> = {};
  for (const [key, target] of Object.entries(pkg.exports)) {
    const types = typeof target === "string" ? target : target.types;
    if (!types?.startsWith("./dist/") || !types.endsWith(".d.ts")) continue;
    const source = `${types.slice("./dist/".length, -".d.ts".length)}.ts`;
    expect(existsSync(join(root, source)), `package.json exports["${key}"]: ${source}`).toBe(true);
    paths[key === "." ? pkg.name : `${pkg.name}/${key.slice(2)}`] = [source];
  }
  return paths;
}

/** Type-checks the examples as modules of one program; returns each diagnostic as `where: message`. */
function typeCheck(examples: Example[]): string[] {
  const files = new Map<string, string>([
    [join(virtualDir, "prelude.ts"), PRELUDE],
    [join(virtualDir, "providers.d.ts"), PROVIDERS],
  ]);
  examples.forEach((e, i) => files.set(join(virtualDir, `example${i}.ts`), `${e.code}\nexport {};\n`));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2023.d.ts"],
    types: ["node"],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    esModuleInterop: true,
    baseUrl: root,
    paths: exportPaths(),
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => files.has(f) || fileExists(f);
  host.readFile = (f) => files.get(f) ?? readFile(f);
  host.getSourceFile = (f, lang, ...rest) =>
    files.has(f) ? ts.createSourceFile(f, files.get(f)!, lang) : getSourceFile(f, lang, ...rest);
  const program = ts.createProgram([...files.keys()], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && files.has(d.file.fileName))
    .map((d) => {
      const i = Number(/example(\d+)\.ts$/.exec(d.file!.fileName)?.[1] ?? -1);
      const line = d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line + 1;
      return `${examples[i]?.where ?? "prelude"} (+${line}): ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
}

/** README.md and every docs/*.md. */
function docFiles(): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort();
  return ["README.md", ...docs.map((f) => `docs/${f}`)];
}

describe("documentation examples", () => {
  it("maps every package.json export to its source", () => {
    const paths = exportPaths();
    expect(paths["irt-router"]).toEqual(["index.ts"]);
    expect(Object.keys(paths).length).toBeGreaterThanOrEqual(10);
  });

  it("every TypeScript example in README.md and docs/*.md and every @example of the routing code compiles under --strict", () => {
    const examples = [
      ...docFiles().flatMap(markdownExamples),
      ...["src/langchain", "src/core", "src/ai-sdk", "src/mastra", "src/openai-agents", "src/runs"]
        .filter((dir) => existsSync(join(root, dir)))
        .flatMap(tsdocExamples),
    ];
    expect(examples.length).toBeGreaterThanOrEqual(40);
    const aiSdk = examples.filter((e) => e.where.startsWith("docs/ai-sdk.md") || e.where.startsWith("src/ai-sdk/"));
    expect(aiSdk.length).toBeGreaterThanOrEqual(5);
    expect(typeCheck(examples)).toEqual([]);
  }, 600_000);
});
