import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./import-graph.js";

/**
 * Folder maps that cannot drift: every section of CONTRIBUTING.md or bench/README.md headed by a folder in backticks
 * (`### \`src/core/routing/\``) lists that folder's entries, one `- \`name\`` line each (a subfolder with a
 * trailing slash), and must list exactly the files and folders present.
 */
const MAP_FILES = ["CONTRIBUTING.md", "bench/README.md"];

interface FolderMap {
  readonly doc: string;
  readonly folder: string;
  readonly listed: string[];
}

/** The folder maps of one markdown text. */
export function folderMaps(doc: string, text: string): FolderMap[] {
  const out: FolderMap[] = [];
  const sections = text.split(/^#{2,4} /m).slice(1);
  for (const section of sections) {
    const head = /^`([^`]+)\/`\s*$/m.exec(section.split("\n")[0]!);
    if (!head) continue;
    const listed = [...section.matchAll(/^- `([^`]+)`/gm)].map((m) => m[1]!);
    out.push({ doc, folder: head[1]!, listed });
  }
  return out;
}

/** The entries of a folder as a map lists them: files, and folders with a trailing slash. */
function entriesOf(folder: string): string[] {
  return readdirSync(join(ROOT, folder))
    .filter((name) => !name.startsWith("."))
    .map((name) => (statSync(join(ROOT, folder, name)).isDirectory() ? `${name}/` : name))
    .sort();
}

describe("folder maps", () => {
  const maps = MAP_FILES.flatMap((doc) => folderMaps(doc, readFileSync(join(ROOT, doc), "utf8")));

  it("finds the maps of src/core and src/langchain folders and of every bench study", () => {
    const folders = maps.map((m) => m.folder);
    for (const f of [
      "src/core",
      "src/core/routing",
      "src/langchain",
      "src/langchain/model",
      "src/stats",
      "bench/agent",
    ]) {
      expect(folders).toContain(f);
    }
  });

  it("each map lists exactly the files present", () => {
    const drift = maps.flatMap((m) => {
      const present = entriesOf(m.folder);
      const listed = [...m.listed].sort();
      const missing = present.filter((e) => !listed.includes(e)).map((e) => `${m.doc} ${m.folder}/: missing ${e}`);
      const stale = listed.filter((e) => !present.includes(e)).map((e) => `${m.doc} ${m.folder}/: no such ${e}`);
      return [...missing, ...stale];
    });
    expect(drift, drift.join("\n")).toEqual([]);
  });

  it("reads a map's entries and catches drift", () => {
    const [map] = folderMaps(
      "x.md",
      "# t\n\n### `src/a/`\n\nText.\n\n- `one.ts`: one.\n- `sub/`: below.\n\n## other\n- `x`",
    );
    expect(map).toEqual({ doc: "x.md", folder: "src/a", listed: ["one.ts", "sub/"] });
  });
});
