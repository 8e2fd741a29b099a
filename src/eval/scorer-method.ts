import { IrtRouterError, ValidationError } from "../errors.js";
import type { Scorer } from "../scorer/types.js";
import { IRT_MOE } from "./evaluate.js";
import type { RoutingMethod } from "./types.js";

/**
 * A saved scorer (e.g. the pretrained artifact) as an evaluation method: nothing is trained;
 * the dataset's model names are mapped through the scorer's catalog aliases and each test
 * embedding is scored with `scorer.predict`. Throws UNKNOWN_MODEL listing every dataset model
 * the catalog does not know, and ENCODER_MISMATCH-style validation when the embedding size differs.
 *
 * @example
 * ```ts
 * const scorer = await loadPretrained();
 * const report = await evaluate(dataset, { methods: [savedScorerMethod(scorer, dataset.models, "pretrained")] });
 * ```
 */
export function savedScorerMethod(
  scorer: Scorer,
  models: readonly string[],
  source: string,
  name = IRT_MOE,
): RoutingMethod {
  const missing = models.filter((m) => {
    try {
      scorer.ability(m);
      return false;
    } catch (error) {
      if (error instanceof IrtRouterError && error.code === "UNKNOWN_MODEL") return true;
      throw error;
    }
  });
  if (missing.length > 0) {
    throw new IrtRouterError(
      "UNKNOWN_MODEL",
      `The scorer from ${source} does not know ${missing.length} of this dataset's models (${missing.join(", ")}); its catalog has ` +
        `${scorer.models.map((c) => c.id).join(", ")}. Evaluate a scorer trained on this dataset (omit --model) or add the names as catalog aliases.`,
      { details: { missing } },
    );
  }
  const canonical = models.map((m) => scorer.models.find((c) => c.id === m || c.aliases.includes(m))?.id ?? m);
  return {
    name,
    seeded: false,
    async fit(data) {
      if (data.dim !== scorer.encoder.dim) {
        throw new ValidationError(
          `The scorer from ${source} expects ${scorer.encoder.dim}-d embeddings (encoder "${scorer.encoder.id}") but the dataset was embedded with ${data.dim} dims.`,
          { path: "model" },
        );
      }
      return {
        description: `saved scorer from ${source} (encoder ${scorer.encoder.id}); dataset models mapped to ${canonical.map((c, m) => (c === models[m] ? c : `${models[m]} -> ${c}`)).join(", ")}; not trained here`,
        async predict(X, rows) {
          const out = new Float32Array(rows.length * models.length);
          for (let r = 0; r < rows.length; r++) {
            const i = rows[r]!;
            const scores = await scorer.predict(X.subarray(i * data.dim, (i + 1) * data.dim), models);
            scores.forEach((s, m) => (out[r * models.length + m] = s.p));
          }
          return out;
        },
      };
    },
  };
}
