/**
 * The `langchain` package, an optional peer dependency needed only by `irtRouterMiddleware` (for `createAgent`).
 * Nothing here imports it when `irt-router/langchain` loads: `IrtRouter` and everything else import and run without
 * it, and an application that has it installed does not pay for its ~145 modules unless it uses the middleware. The
 * middleware object is LangChain's plain branded config (see {@link createMiddleware}); `langchain` itself is imported
 * only by an agent step that needs its structured-output classes, by which time the application has loaded it.
 */
import type * as LangChain from "langchain";
import { MissingDependencyError } from "../../errors.js";
import { isMissingPackage } from "../../util/missing-package.js";

/** The supported range of the optional peer, as package.json states it. */
export const LANGCHAIN_RANGE = ">=1.5.14 <2";

/**
 * LangChain's brand of an agent middleware: its `MIDDLEWARE_BRAND` is `Symbol.for("AgentMiddleware")`, a registered
 * symbol, so this is the same symbol (test/langchain/agent/langchain-package.test.ts checks it against langchain's).
 */
export const MIDDLEWARE_BRAND: symbol = Symbol.for("AgentMiddleware");

/**
 * LangChain's `createMiddleware` without importing `langchain`: it returns the config with the middleware brand, as
 * langchain's own does (the contract test compares the two on the router's middleware and runs a real `createAgent`
 * with it). Typed as langchain's, so the middleware's inferred type is LangChain's `AgentMiddleware`.
 */
export const createMiddleware = ((config: Record<string, unknown>) => ({
  [MIDDLEWARE_BRAND]: true,
  name: config.name,
  stateSchema: config.stateSchema,
  contextSchema: config.contextSchema,
  wrapToolCall: config.wrapToolCall,
  wrapModelCall: config.wrapModelCall,
  beforeAgent: config.beforeAgent,
  beforeModel: config.beforeModel,
  afterModel: config.afterModel,
  afterAgent: config.afterAgent,
  tools: config.tools,
  streamTransformers: config.streamTransformers,
})) as unknown as typeof LangChain.createMiddleware;

let loading: Promise<typeof LangChain> | undefined;

/**
 * Checks that `langchain` is installed, without importing it (the package is resolved, not loaded), or throws a
 * {@link MissingDependencyError} naming it and the install command (`feature`: what needs it, e.g.
 * "irtRouterMiddleware"). Where the runtime cannot resolve without loading (no `import.meta.resolve`), the check is
 * left to {@link loadLangchain}.
 */
export function assertLangchainInstalled(feature: string): void {
  if (loading) return;
  const resolve = (import.meta as { resolve?: (specifier: string) => string }).resolve;
  if (typeof resolve !== "function") return;
  try {
    resolve("langchain");
  } catch (error) {
    if (isMissingPackage(error, "langchain")) throw missingLangchain(feature);
    throw error;
  }
}

/** The `langchain` module, imported once on first use; a {@link MissingDependencyError} when it is not installed. */
export function loadLangchain(feature: string): Promise<typeof LangChain> {
  loading ??= import("langchain").catch((error: unknown) => {
    loading = undefined;
    throw isMissingPackage(error, "langchain") ? missingLangchain(feature) : error;
  });
  return loading;
}

function missingLangchain(feature: string): MissingDependencyError {
  return new MissingDependencyError(
    [`langchain@${LANGCHAIN_RANGE}`],
    `${feature} needs the optional package langchain, not installed. Install it with: npm install langchain ` +
      `(the agents it serves are langchain's createAgent). IrtRouter itself, as a chat model, needs only @langchain/core.`,
  );
}
