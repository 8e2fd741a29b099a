import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "../structure/import-graph.js";

/**
 * Every TypeScript example of docs/ai-sdk.md and every TSDoc `@example` in src/ai-sdk compiles under `--strict`
 * against this checkout's sources as `irt-router/ai-sdk` and the installed `ai` and `@ai-sdk/*` packages.
 */
function examples(): { where: string; code: string }[] {
  const out: { where: string; code: string }[] = [];
  const doc = readFileSync(join(ROOT, "docs/ai-sdk.md"), "utf8");
  for (const m of doc.matchAll(/```ts\n([\s\S]*?)```/g))
    out.push({ where: `docs/ai-sdk.md:${doc.slice(0, m.index).split("\n").length}`, code: m[1]! });
  for (const name of readdirSync(join(ROOT, "src/ai-sdk")).filter((f) => f.endsWith(".ts"))) {
    const text = readFileSync(join(ROOT, "src/ai-sdk", name), "utf8");
    for (const m of text.matchAll(/@example\s*\n\s*\*\s*```ts\n([\s\S]*?)\*\s*```/g)) {
      const code = m[1]!.replace(/^\s*\* ?/gm, "");
      out.push({ where: `src/ai-sdk/${name}:${text.slice(0, m.index).split("\n").length}`, code });
    }
  }
  return out;
}

function typeCheck(list: { where: string; code: string }[]): string[] {
  const dir = join(ROOT, "test/ai-sdk/__examples__");
  const files = new Map(list.map((e, i) => [join(dir, `example${i}.ts`), `${e.code}\nexport {};\n`]));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
    types: ["node"],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    baseUrl: ROOT,
    paths: { "irt-router": ["src/index.ts"], "irt-router/ai-sdk": ["src/ai-sdk/index.ts"] },
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
      return `${list[i]?.where} (+${line}): ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
}

describe("AI SDK documentation examples", () => {
  it("every example of docs/ai-sdk.md and every @example in src/ai-sdk compiles under --strict", () => {
    const list = examples();
    expect(list.length).toBeGreaterThanOrEqual(5);
    expect(typeCheck(list)).toEqual([]);
  }, 300_000);
});
