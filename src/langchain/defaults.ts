import { IrtRouterError } from "../errors.js";
import type { QueryEncoder } from "../encoders/types.js";
import type { Scorer } from "../scorer/types.js";

/** What the adapters module must provide for the router's defaults. */
interface DefaultAdapters {
  loadPretrained?: (options?: { encoder?: QueryEncoder }) => Promise<Scorer>;
  UseLiteEncoder?: new () => QueryEncoder;
}

/** Specifier kept in a variable so the pure `src/` build does not statically depend on `adapters/`. */
const ADAPTERS = "../../adapters/index.js";

/**
 * The router's defaults: the pretrained scorer with the offline encoder (USE-lite). Loaded with a
 * dynamic import on first use, so `src/` stays free of I/O until a default is actually needed.
 * Fails with a typed error that says how to pass a scorer explicitly.
 */
export async function loadDefaultScorer(): Promise<{ scorer: Scorer; encoder: QueryEncoder }> {
  let mod: DefaultAdapters;
  try {
    mod = (await import(/* @vite-ignore */ ADAPTERS)) as DefaultAdapters;
  } catch (error) {
    throw unavailable(`the adapters module could not be loaded (${(error as Error).message.split("\n")[0]})`, error);
  }
  if (typeof mod.loadPretrained !== "function" || typeof mod.UseLiteEncoder !== "function") {
    throw unavailable("this build has no pretrained scorer (adapters export no loadPretrained/UseLiteEncoder)");
  }
  try {
    const encoder = new mod.UseLiteEncoder();
    const scorer = await mod.loadPretrained({ encoder });
    return { scorer, encoder };
  } catch (error) {
    if (error instanceof IrtRouterError) throw error;
    throw unavailable(`loading it failed: ${(error as Error).message.split("\n")[0]}`, error);
  }
}

function unavailable(why: string, cause?: unknown): IrtRouterError {
  return new IrtRouterError(
    "ARTIFACT_FORMAT",
    `The default pretrained scorer is not available: ${why}. Pass a scorer explicitly: new IrtRouter({ models, scorer }).`,
    { path: "scorer", cause },
  );
}
