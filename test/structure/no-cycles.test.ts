import { describe, expect, it } from "vitest";
import { cyclesOf, folderCycles, importGraph } from "./import-graph.js";

/**
 * No import cycles, type-only imports included: a file cycle makes the modules' order of evaluation depend on which
 * one is imported first, and a folder cycle means neither folder can be understood (or moved) without the other.
 */
describe("import structure", () => {
  const graph = importGraph(["src", "adapters"]);

  it("reads the whole tree", () => {
    expect(graph.size).toBeGreaterThan(200);
    expect(graph.get("src/index.ts")?.length).toBeGreaterThan(5);
  });

  it("has no file import cycle in src/ or adapters/", () => {
    const cycles = cyclesOf(graph).map((c) => c.join(" <-> "));
    expect(cycles, `file import cycles:\n${cycles.join("\n")}`).toEqual([]);
  });

  it("has no folder import cycle in src/ or adapters/", () => {
    const cycles = folderCycles(graph).map((c) => c.join(" <-> "));
    expect(cycles, `folder import cycles:\n${cycles.join("\n")}`).toEqual([]);
  });

  it("finds a cycle when there is one", () => {
    const g = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    expect(cyclesOf(g)).toEqual([["a.ts", "b.ts", "c.ts"]]);
    expect(
      cyclesOf(
        new Map([
          ["x/a.ts", ["y/b.ts"]],
          ["y/b.ts", []],
        ]),
      ),
    ).toEqual([]);
    const folders = new Map([
      ["r/x/a.ts", ["r/y/b.ts"]],
      ["r/y/b.ts", ["r/x/c.ts"]],
      ["r/x/c.ts", []],
      ["r/index.ts", ["r/x/a.ts"]],
    ]);
    expect(folderCycles(folders)).toEqual([["r/x", "r/y"]]);
  });
});
