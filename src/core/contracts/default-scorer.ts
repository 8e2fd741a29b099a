import { ArtifactError, IrtRouterError } from "../../errors.js";
import type { QueryEncoder } from "../../encoders/types.js";
import type { Scorer } from "../../scorer/types.js";

/** Loads the scorer (and its encoder) a router uses when it is given none. */
export type DefaultScorerLoader = () => Promise<{ scorer: Scorer; encoder: QueryEncoder }>;

let loader: DefaultScorerLoader | undefined;

/**
 * Sets the loader of the router's default scorer. The package root (`irt-router`, index.ts) registers the
 * pretrained scorer with the offline encoder from `adapters/`; `src/` itself never imports `adapters/`.
 * Tests and embedders register their own, e.g. `registerDefaultScorerLoader(async () => ({ scorer, encoder }))`.
 */
export function registerDefaultScorerLoader(load: DefaultScorerLoader): void {
  loader = load;
}

/**
 * The router's defaults: the scorer of the registered loader (the pretrained scorer with the offline encoder
 * when the package root is imported). Called on first use, so no I/O happens until a default is actually needed.
 * Fails with a typed error that says how to pass a scorer explicitly.
 */
export async function loadDefaultScorer(): Promise<{ scorer: Scorer; encoder: QueryEncoder }> {
  if (!loader) {
    throw unavailable(
      "no default scorer loader is registered (the package root 'irt-router' registers the pretrained one; " +
        "code that imports the router from a deeper module path does not)",
    );
  }
  try {
    return await loader();
  } catch (error) {
    if (error instanceof IrtRouterError) {
      // Keep the loader's code (ARTIFACT_*, ENCODER_UNAVAILABLE, ...) and say what the router needed it for.
      throw new IrtRouterError(
        error.code,
        `The default pretrained scorer could not be loaded: ${error.message} ${HOW}`,
        {
          path: "scorer",
          file: error.file,
          details: error.details,
          cause: error,
        },
      );
    }
    throw unavailable(`loading it failed: ${(error as Error).message.split("\n")[0]}`, error);
  }
}

const HOW = "Pass a scorer explicitly: new IrtRouter({ models, scorer }).";

function unavailable(why: string, cause?: unknown): IrtRouterError {
  return new ArtifactError("ARTIFACT_FORMAT", `The default pretrained scorer is not available: ${why}. ${HOW}`, {
    path: "scorer",
    cause,
  });
}
