/**
 * The `langchain` package, loaded once when this module is first imported: an optional peer dependency, needed only
 * by `irtRouterMiddleware` (for `createAgent`), so `IrtRouter` and everything else import and run without it.
 */
import type * as LangChain from "langchain";
import { MissingDependencyError } from "../../errors.js";
import { isMissingPackage } from "../../util/missing-package.js";

/** The supported range of the optional peer, as package.json states it. */
export const LANGCHAIN_RANGE = ">=1.5.14 <2";

const loaded: typeof LangChain | undefined = await import("langchain").catch((error: unknown) => {
  if (isMissingPackage(error, "langchain")) return undefined;
  throw error;
});

/**
 * The `langchain` module, or a {@link MissingDependencyError} naming it and the install command when it is not installed
 * (`feature`: what needs it, e.g. "irtRouterMiddleware").
 */
export function langchainPackage(feature: string): typeof LangChain {
  if (loaded) return loaded;
  throw new MissingDependencyError(
    [`langchain@${LANGCHAIN_RANGE}`],
    `${feature} needs the optional package langchain, not installed. Install it with: npm install langchain ` +
      `(the agents it serves are langchain's createAgent). IrtRouter itself, as a chat model, needs only @langchain/core.`,
  );
}
