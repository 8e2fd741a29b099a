import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const CHILD = join(import.meta.dirname, "fixtures", "host-handlers.ts");

/** Runs the fixture host application with the wasm backend forced; its exit code and output. */
function host(mode: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", CHILD, mode], {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, IRT_ROUTER_TF_BACKEND: "wasm" },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// The emscripten module behind the wasm backend adds process-wide listeners that rethrow every uncaught error and
// unhandled rejection: an application that handles its own errors would be killed (exit code 7) by one it handled.
describe("the wasm backend leaves the host process's error handling alone", () => {
  it("an uncaught exception the application handles does not end the process", () => {
    const r = host("throw");
    expect(r.stdout).toContain("backend wasm");
    expect(r.stdout).toContain("alive uncaught:app bug in a timer");
    expect(r.status).toBe(0);
  });

  it("an unhandled rejection the application handles does not end the process", () => {
    const r = host("reject");
    expect(r.stdout).toContain("backend wasm");
    expect(r.stdout).toContain("alive rejection:ignored rejection");
    expect(r.status).toBe(0);
  });

  it("disposing the wasm backend keeps the application's handlers", () => {
    const r = host("dispose");
    expect(r.stdout).toContain("backend wasm");
    expect(r.stdout).toContain("listeners true true");
    expect(r.status).toBe(0);
  });
});
