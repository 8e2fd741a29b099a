/**
 * A command whose code imports a peer package that is not installed (the demo's simulated chat models need
 * @langchain/core) fails with DEPENDENCY_MISSING naming the package, not Node's ERR_MODULE_NOT_FOUND stack. The
 * command registry is replaced so that loading a command fails as it does in an app without the peer.
 */
import { afterEach, describe, expect, it, vi } from "vitest";

const moduleNotFound = (specifier: string) =>
  Object.assign(new Error(`Cannot find package '${specifier}' imported from /app/node_modules/irt-router/dist/x.js`), {
    code: "ERR_MODULE_NOT_FOUND",
  });

vi.mock("../../adapters/cli/commands/index.js", () => ({
  commands: {
    demo: () => Promise.reject(moduleNotFound("@langchain/core")),
    other: () => Promise.reject(moduleNotFound("left-pad")),
  },
}));

const { main } = await import("../../adapters/cli/main.js");

afterEach(() => vi.restoreAllMocks());

describe("a CLI command that needs a peer package that is missing", () => {
  it("exits 1 with DEPENDENCY_MISSING naming the peer and its install command", async () => {
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    expect(await main(["demo"])).toBe(1);
    const text = err.mock.calls.map((c) => String(c[0])).join("");
    expect(text).toBe(
      "irt-router demo: [DEPENDENCY_MISSING] irt-router demo needs the package @langchain/core, which is not installed: npm install @langchain/core\n",
    );
  });

  it("a package that is not a peer of irt-router is not reported as one: the error goes on", async () => {
    await expect(main(["other"])).rejects.toMatchObject({ code: "ERR_MODULE_NOT_FOUND" });
  });
});
