import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export type Tf = typeof import("@tensorflow/tfjs");

export interface TfRuntime {
  tf: Tf;
  /** Backend in use: "tensorflow" (tfjs-node, when the user has it installed), "wasm" (default) or "cpu". */
  backend: string;
  /** Why a faster backend was not used, if one was tried and failed. */
  notes: string[];
}

let runtime: Promise<TfRuntime> | undefined;

/**
 * The project's tfjs, initialised once per process.
 *
 * Order: `@tensorflow/tfjs-node` if the user installed it (optional accelerator, never a
 * dependency), else `@tensorflow/tfjs` on the wasm backend (SIMD, single thread in Node),
 * else the plain cpu backend. `IRT_ROUTER_TF_BACKEND=wasm|cpu|tensorflow` forces one.
 * A backend that fails to start degrades to the next one and the reason is kept in `notes`.
 */
export function getTf(): Promise<TfRuntime> {
  runtime ??= init();
  return runtime;
}

async function init(): Promise<TfRuntime> {
  const forced = process.env.IRT_ROUTER_TF_BACKEND;
  const notes: string[] = [];
  const require = createRequire(import.meta.url);
  if (!forced || forced === "tensorflow") {
    try {
      const name = "@tensorflow/tfjs-node";
      const tfNode = (await import(/* @vite-ignore */ name)) as Tf;
      await tfNode.setBackend("tensorflow");
      await tfNode.ready();
      return { tf: tfNode, backend: "tensorflow", notes };
    } catch (error) {
      if (forced === "tensorflow") throw error;
      notes.push(`@tensorflow/tfjs-node not used: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  const tf = (await import("@tensorflow/tfjs")) as Tf;
  // The tfjs bundle logs a hint about tfjs-node on first use; it is not actionable here.
  tf.env().set("IS_NODE", true);
  if (!forced || forced === "wasm") {
    try {
      const wasm = await import("@tensorflow/tfjs-backend-wasm");
      const dir = dirname(require.resolve("@tensorflow/tfjs-backend-wasm/package.json"));
      wasm.setWasmPaths(`${join(dir, "dist")}/`);
      if (await tf.setBackend("wasm")) {
        await tf.ready();
        return { tf, backend: "wasm", notes };
      }
      notes.push("wasm backend did not initialise");
    } catch (error) {
      if (forced === "wasm") throw error;
      notes.push(`wasm backend not used: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  await tf.setBackend("cpu");
  await tf.ready();
  return { tf, backend: "cpu", notes };
}
