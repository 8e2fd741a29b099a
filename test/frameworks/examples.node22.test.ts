import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");

/** The examples that need Node 22, run as a user would (`npx tsx examples/<name>.ts`) under the Node 22 run's node. */
describe("Node 22 examples", () => {
  it("mastra: an agent's steps routed by the processor over HTTP, escalated after a 400, feedback by run", async () => {
    const { stdout } = await run(join(root, "node_modules", ".bin", "tsx"), [join("examples", "mastra.ts")], {
      cwd: root,
      timeout: 120_000,
      maxBuffer: 1 << 24,
    });
    expect(stdout).toMatch(/answer: \[gpt-4o-mini\] It is 21°C and sunny in Lisbon\./);
    const steps = stdout.split("\n").filter((l) => l.startsWith("step -> gpt-4o-mini (escalated from gpt-4o)"));
    expect(steps).toHaveLength(2);
    expect(stdout).toMatch(/cached tokens read/);
    expect(stdout).toMatch(/feedback: 2 event\(s\) recorded for run mastra-run-1/);
  });
});
