import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");

/** The files `npm pack` would put in the tarball (without building: dist/ is added by prepack). */
function packedFiles(): string[] {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
}

describe("the npm package", () => {
  it("ships the licence, the bin it runs and the pretrained scorer, and no sources, tests or examples", () => {
    const files = packedFiles();
    for (const f of ["LICENSE", "README.md", "package.json", "bin/irt-router.js", "pretrained/manifest.json", "pretrained/weights.bin", "pretrained/catalog.json"])
      expect(files).toContain(f);
    expect(files.filter((f) => /\.ts$/.test(f) && !f.endsWith(".d.ts"))).toEqual([]);
    expect(files.filter((f) => /^(src|adapters|test|examples|bench)\//.test(f))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { files: string[]; license: string; scripts: Record<string, string> };
    expect(pkg.files).toEqual(expect.arrayContaining(["dist/src", "dist/adapters", "dist/bin"]));
    // npm pack builds (a tarball without dist/ would have no code)
    expect(pkg.scripts.prepack).toMatch(/npm run build/);
    expect(pkg.license).toBe("Apache-2.0");
  });

  it("LICENSE is the Apache License 2.0, verbatim", () => {
    const text = readFileSync(join(root, "LICENSE"), "utf8");
    // md5 of https://www.apache.org/licenses/LICENSE-2.0.txt
    expect(createHash("md5").update(text).digest("hex")).toBe("3b83ef96387f14655fc854ddc3c6bd57");
  });

  it("the compiled source maps carry their sources (src/ is not shipped)", () => {
    // One file compiled with the build's own options (tsconfig.build.json as tsc reads it), its output kept in memory.
    const host = {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d: ts.Diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    };
    const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.build.json"), {}, host)!;
    const file = join(root, "src", "errors.ts");
    const program = ts.createProgram([file], config.options);
    const written = new Map<string, string>();
    const result = program.emit(program.getSourceFile(file), (name, text) => written.set(name, text));
    expect(result.emitSkipped).toBe(false);
    const mapFile = [...written.keys()].find((name) => name.endsWith("errors.js.map"))!;
    expect(mapFile).toBe(join(root, "dist", "src", "errors.js.map"));
    const map = JSON.parse(written.get(mapFile)!) as { sources: string[]; sourcesContent?: string[] };
    expect(map.sources).toEqual(["../../src/errors.ts"]);
    expect(map.sourcesContent).toEqual([readFileSync(file, "utf8")]);
  });
});
