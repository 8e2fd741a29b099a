/**
 * The default scorer of `new IrtRouter({ models })` without a `scorer` option: the pretrained IRT-MoE scorer with the
 * offline USE-lite encoder. The package root (index.ts) registers this loader with the router; the modules are
 * imported on first use, so an application that passes its own scorer never loads tfjs or the encoder's weights.
 */
import type { QueryEncoder } from "../src/encoders/types.js";
import type { Scorer } from "../src/scorer/types.js";

/**
 * Loads the pretrained scorer and the encoder it was trained with.
 *
 * @example
 * ```ts
 * const { scorer, encoder } = await loadDefaultScorer();
 * const router = new IrtRouter({ models, scorer, encoder });
 * ```
 */
export async function loadDefaultScorer(): Promise<{ scorer: Scorer; encoder: QueryEncoder }> {
  const [{ loadPretrained }, { UseLiteEncoder }] = await Promise.all([
    import("./artifact/index.js"),
    import("./encoders/use-lite.js"),
  ]);
  const encoder = await UseLiteEncoder.load();
  const scorer = await loadPretrained({ encoder });
  return { scorer, encoder };
}
