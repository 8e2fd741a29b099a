import { afterEach, describe, expect, it, vi } from "vitest";
import { rejectedWith } from "../errors.js";

// The wasm binaries cannot be found (a broken install, a bundler that dropped them): wasm fails to initialise.
vi.mock("@tensorflow/tfjs-backend-wasm", async (importOriginal) => {
  const orig = await importOriginal<typeof import("@tensorflow/tfjs-backend-wasm")>();
  return { ...orig, setWasmPaths: () => orig.setWasmPaths("/nonexistent wasm dir/") };
});

afterEach(() => vi.restoreAllMocks());

describe("getTf when the wasm backend fails to initialise", () => {
  it("falls back to cpu with one clear message naming the reason, not raw emscripten/tfjs output", async () => {
    delete process.env.IRT_ROUTER_TF_BACKEND;
    const lines: string[] = [];
    const capture = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
    vi.spyOn(console, "warn").mockImplementation(capture);
    vi.spyOn(console, "error").mockImplementation(capture);
    vi.spyOn(console, "log").mockImplementation(capture);
    const { getTf } = await import("../../adapters/tf.js");
    const runtime = await getTf();
    expect(runtime.backend).toBe("cpu");
    const note = runtime.notes.find((n) => n.includes("wasm"));
    expect(note).toMatch(/wasm backend failed to initialise/);
    expect(note).toMatch(/ENOENT|nonexistent wasm dir/);
    expect(note).toMatch(/cpu/);
    const raw = lines.filter((l) => /Aborted\(|Initialization of backend|Make sure the server|at .*\.js:\d+/.test(l));
    expect(raw).toEqual([]);
    expect(lines.filter((l) => /wasm backend failed to initialise/.test(l))).toHaveLength(1);
    expect(runtime.tf.add(1, 2).dataSync()[0]).toBe(3);
  });
});

describe("IRT_ROUTER_TF_BACKEND=wasm when wasm fails to initialise", () => {
  it("throws a clear typed error instead of silently running on cpu", async () => {
    const saved = process.env.IRT_ROUTER_TF_BACKEND;
    process.env.IRT_ROUTER_TF_BACKEND = "wasm";
    try {
      vi.spyOn(console, "warn").mockImplementation(() => {});
      vi.spyOn(console, "error").mockImplementation(() => {});
      vi.resetModules();
      const { getTf } = await import("../../adapters/tf.js");
      const { ValidationError } = await import("../../src/errors.js");
      const error = await rejectedWith(ValidationError, getTf());
      expect(error.message).toMatch(/IRT_ROUTER_TF_BACKEND=wasm, but the wasm backend/);
    } finally {
      if (saved === undefined) delete process.env.IRT_ROUTER_TF_BACKEND;
      else process.env.IRT_ROUTER_TF_BACKEND = saved;
    }
  });
});
