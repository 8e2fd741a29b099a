import { describe, expect, it, vi } from "vitest";
import { loadVega } from "../../adapters/report/render.js";
import { DependencyMissingError } from "../../src/errors.js";
import { rejectedWith } from "../errors.js";

// vega is an optional peer dependency: simulate an install without it.
vi.mock("vega", () => {
  throw new Error("Cannot find package 'vega' imported from render.ts");
});

describe("report without the optional vega packages", () => {
  it("fails with a typed error naming the packages to install", async () => {
    const e = await rejectedWith(DependencyMissingError, loadVega());
    expect(e.code).toBe("DEPENDENCY_MISSING");
    expect(e.message).toMatch(/npm install --save-exact vega@6\.4\.0 vega-lite@6\.5\.0/);
  });
});
