import { ArtifactError, IrtRouterError } from "../errors.js";
import type { QueryEncoder } from "../encoders/types.js";
import type { Scorer } from "../scorer/types.js";

interface ArtifactModule {
  loadPretrained?: (options?: { encoder?: QueryEncoder }) => Promise<Scorer>;
}
interface UseLiteModule {
  UseLiteEncoder?: { load(): Promise<QueryEncoder> };
}

// Specifiers kept in variables so the pure `src/` modules do not statically depend on `adapters/`.
const ARTIFACT = "../../adapters/artifact/index.js";
const USE_LITE = "../../adapters/encoders/use-lite.js";

/**
 * The router's defaults: the pretrained scorer with the offline encoder (USE-lite). Loaded with a
 * dynamic import on first use, so `src/` stays free of I/O until a default is actually needed.
 * Fails with a typed error that says how to pass a scorer explicitly.
 */
export async function loadDefaultScorer(): Promise<{ scorer: Scorer; encoder: QueryEncoder }> {
  let artifact: ArtifactModule;
  let useLite: UseLiteModule;
  try {
    [artifact, useLite] = await Promise.all([
      import(/* @vite-ignore */ ARTIFACT) as Promise<ArtifactModule>,
      import(/* @vite-ignore */ USE_LITE) as Promise<UseLiteModule>,
    ]);
  } catch (error) {
    throw unavailable(`the adapters could not be loaded (${(error as Error).message.split("\n")[0]})`, error);
  }
  if (typeof artifact.loadPretrained !== "function" || typeof useLite.UseLiteEncoder?.load !== "function") {
    throw unavailable("this build has no loadPretrained/UseLiteEncoder adapter");
  }
  try {
    const encoder = await useLite.UseLiteEncoder.load();
    const scorer = await artifact.loadPretrained({ encoder });
    return { scorer, encoder };
  } catch (error) {
    if (error instanceof IrtRouterError) {
      // Keep the loader's code (ARTIFACT_*, ENCODER_UNAVAILABLE, ...) and say what the router needed it for.
      throw new IrtRouterError(error.code, `The default pretrained scorer could not be loaded: ${error.message} ${HOW}`, {
        path: "scorer",
        file: error.file,
        cause: error,
      });
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
