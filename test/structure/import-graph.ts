/**
 * The import graph of the project's TypeScript sources as the TypeScript compiler sees it: every `import`,
 * `import type`, `export ... from` and literal `import()` of a relative module, resolved to a file. Used by the
 * structure tests (no cycles, maps that list exactly the files present) and by `test/core/no-langchain.test.ts`
 * (no framework package reached from the root entry).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "../..");

/** Every `.ts` file below `dir` (relative to the project root), sorted. */
export function tsFilesBelow(dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string): void => {
    for (const name of readdirSync(abs).sort()) {
      const path = join(abs, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(relative(ROOT, path));
    }
  };
  walk(join(ROOT, dir));
  return out;
}

/**
 * Every module specifier one file names in code (comments aside), relative or bare: imports (type-only included),
 * `export ... from`, `import("...")` calls (with or without an options argument) and `import("...")` types.
 */
export function specifiersOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const specs: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) specs.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length > 0 &&
      ts.isStringLiteral(node.arguments[0]!)
    ) {
      specs.push((node.arguments[0] as ts.StringLiteral).text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const lit = node.argument.literal;
      if (ts.isStringLiteral(lit)) specs.push(lit.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specs;
}

/** The relative module specifiers one file imports (type-only imports included). */
export function importsOf(file: string): string[] {
  return specifiersOf(file).filter((s) => s.startsWith("."));
}

/** Resolves a relative specifier of `from` to a project file (`.js` written for `.ts`, or a folder's index). */
export function resolveImport(from: string, spec: string): string | undefined {
  const base = join(dirname(from), spec);
  const candidates = [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")];
  return candidates.find((c) => {
    try {
      return statSync(join(ROOT, c)).isFile();
    } catch {
      return false;
    }
  });
}

/** File -> the project files it imports, for every `.ts` file below the given folders. */
export function importGraph(dirs: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap(tsFilesBelow)) {
    const targets = importsOf(file)
      .map((spec) => resolveImport(file, spec))
      .filter((t): t is string => t !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * The strongly connected components of more than one node (or a node importing itself), each sorted: every cycle of
 * the graph lies inside one of them (Tarjan's algorithm).
 */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  const strong = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        if (!graph.has(w)) continue;
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(comp.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) strong(v);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/**
 * The graph of one folder's parts: each immediate subfolder of `dir` is one node (everything below it collapsed), each
 * file directly in `dir` is a node of its own, and an edge is an import between two files below `dir` that lie in
 * different parts. A cycle here that holds a folder means two parts of `dir` import each other.
 */
export function partsGraph(graph: Map<string, string[]>, dir: string): Map<string, string[]> {
  const prefix = `${dir}/`;
  const partOf = (file: string): string | undefined => {
    if (!file.startsWith(prefix)) return undefined;
    const rest = file.slice(prefix.length);
    const slash = rest.indexOf("/");
    return slash < 0 ? file : prefix + rest.slice(0, slash);
  };
  const out = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = partOf(file);
    if (from === undefined) continue;
    const set = out.get(from) ?? new Set<string>();
    for (const t of targets) {
      const to = partOf(t);
      if (to !== undefined && to !== from) set.add(to);
    }
    out.set(from, set);
  }
  return new Map([...out].map(([k, v]) => [k, [...v].sort()]));
}

/** Every folder that holds a file of the graph, and every folder above it up to the given roots. */
export function foldersOf(graph: Map<string, string[]>): string[] {
  const dirs = new Set<string>();
  for (const file of graph.keys()) {
    for (let d = dirname(file); d !== "." && d !== ""; d = dirname(d)) dirs.add(d);
  }
  return [...dirs].sort();
}

/** The folder cycles of the tree: for every folder, the cycles among its parts that hold at least one folder. */
export function folderCycles(graph: Map<string, string[]>): string[][] {
  const out: string[][] = [];
  for (const dir of foldersOf(graph)) {
    const parts = partsGraph(graph, dir);
    for (const cycle of cyclesOf(parts)) if (cycle.some((node) => !node.endsWith(".ts"))) out.push(cycle);
  }
  return out;
}
