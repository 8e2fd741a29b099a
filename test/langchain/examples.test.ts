import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Every TypeScript example of the LangChain docs (README, docs/langchain.md) and every TSDoc `@example` in
 * src/langchain compiles under `tsc --strict`, against this checkout's sources as the `irt-router` package. The names an
 * example takes as given (`gpt4`, `tools`, `router`, ...) and the provider packages it imports, which are not
 * dependencies, are declared in a prelude.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const virtualDir = join(root, "test/langchain/__examples__");

const PRELUDE = `
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { IrtRouter } from "irt-router/langchain";
import type { IrtMoeScorer } from "irt-router/scorer";
declare global {
  const gpt4: BaseChatModel;
  const mistral: BaseChatModel;
  const tools: StructuredToolInterface[];
  const getWeather: StructuredToolInterface;
  const router: IrtRouter;
  const scorer: IrtMoeScorer;
  const decisionId: string;
  const runId: string;
  const result: { irtRouterRunId: string };
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
  for (const m of text.matchAll(/```ts\n([\s\S]*?)```/g)) {
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
const PROVIDERS = ["@langchain/openai:ChatOpenAI", "@langchain/anthropic:ChatAnthropic"]
  .map((entry) => {
    const [module, name] = entry.split(":");
    return `declare module "${module}" {
  import { BaseChatModel } from "@langchain/core/language_models/chat_models";
  export class ${name} extends BaseChatModel {
    constructor(fields?: { model?: string; temperature?: number });
    _llmType(): string;
    _generate(...args: Parameters<BaseChatModel["_generate"]>): ReturnType<BaseChatModel["_generate"]>;
  }
}`;
  })
  .join("\n");

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
    paths: {
      "irt-router": ["src/index.ts"],
      "irt-router/adapters": ["adapters/index.ts"],
      "irt-router/*": ["src/*/index.ts"],
    },
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

describe("documentation examples", () => {
  it("every LangChain example in the docs and every @example in src/langchain compiles under --strict", () => {
    const examples = [
      ...markdownExamples("README.md"),
      ...markdownExamples("docs/langchain.md"),
      ...tsdocExamples("src/langchain"),
    ];
    expect(examples.length).toBeGreaterThanOrEqual(10);
    expect(typeCheck(examples)).toEqual([]);
  }, 600_000);
});
