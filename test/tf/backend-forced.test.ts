import { afterEach, describe, expect, it, vi } from "vitest";
import { rejectedWith } from "../errors.js";

const saved = process.env.IRT_ROUTER_TF_BACKEND;
afterEach(() => {
  if (saved === undefined) delete process.env.IRT_ROUTER_TF_BACKEND;
  else process.env.IRT_ROUTER_TF_BACKEND = saved;
});

/** getTf of a fresh module (its runtime is cached per module instance), and the ValidationError class it throws. */
async function freshGetTf() {
  vi.resetModules();
  const { ValidationError } = await import("../../src/errors.js");
  return { getTf: (await import("../../adapters/tf.js")).getTf, ValidationError };
}

describe("IRT_ROUTER_TF_BACKEND", () => {
  it("forcing tensorflow without @tensorflow/tfjs-node installed gives a clear typed error, not a raw module-resolution error", async () => {
    process.env.IRT_ROUTER_TF_BACKEND = "tensorflow";
    const { getTf, ValidationError } = await freshGetTf();
    const error = await rejectedWith(ValidationError, getTf());
    expect(error.message).toMatch(/IRT_ROUTER_TF_BACKEND=tensorflow.*@tensorflow\/tfjs-node.*(npm install|unset)/);
  });

  it("rejects an unknown backend name instead of silently running on cpu", async () => {
    process.env.IRT_ROUTER_TF_BACKEND = "tfjs-node";
    const { getTf, ValidationError } = await freshGetTf();
    const error = await rejectedWith(ValidationError, getTf());
    expect(error.message).toMatch(/"wasm", "cpu" or "tensorflow"/);
  });

  it("cpu when forced", async () => {
    process.env.IRT_ROUTER_TF_BACKEND = "cpu";
    const { getTf } = await freshGetTf();
    expect((await getTf()).backend).toBe("cpu");
  });
});
