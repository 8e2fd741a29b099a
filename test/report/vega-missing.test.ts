import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { command as demo } from "../../adapters/cli/commands/demo.js";
import { loadVega } from "../../adapters/report/render.js";
import { MissingDependencyError } from "../../src/errors.js";
import { parseWith } from "../../src/util/validate.js";
import { rejectedWith } from "../errors.js";

// vega is an optional peer dependency: simulate an install without it.
vi.mock("vega", () => {
  throw new Error("Cannot find package 'vega' imported from render.ts");
});

const tmp = mkdtempSync(join(tmpdir(), "irt-router-novega-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("without the optional vega packages", () => {
  it("the report fails with a typed error naming the packages to install", async () => {
    const e = await rejectedWith(MissingDependencyError, loadVega());
    expect(e.code).toBe("DEPENDENCY_MISSING");
    expect(e.message).toMatch(/npm install --save-exact vega@6\.4\.0 vega-lite@6\.5\.0/);
  });

  it("the built-in demo still succeeds and says how to get its report", async () => {
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const dir = join(tmp, "report");
    try {
      expect(await demo.run(parseWith(demo.schema, { report: dir }, "options"), [])).toBe(0);
      const said = err.mock.calls.map((c) => String(c[0])).join("");
      expect(said).toMatch(/No report: .*npm install --save-exact vega@6\.4\.0 vega-lite@6\.5\.0/);
      expect(existsSync(join(dir, "index.html"))).toBe(false);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  }, 60_000);
});
