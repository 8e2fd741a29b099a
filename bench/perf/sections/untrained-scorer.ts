/**
 * An untrained IrtMoeScorer of the default shape over the given model ids, embedding with `encoder`: the same
 * arithmetic as a trained scorer, its weights held in a WebAssembly arena as a loaded scorer's are (the same kernel),
 * so the same cost per query. For timing sections that must not depend on the pretrained artifact (or its model set).
 */
import type { QueryEncoder } from "../../../src/encoders/types.js";
import { inArena } from "../../../src/scorer/dense-kernel.js";
import { DEFAULT_IRT_MOE_CONFIG, IrtMoeScorer, initWeights } from "../../../src/scorer/index.js";
import { trainingRng } from "../../../src/util/random.js";

export function untrainedScorer(encoder: QueryEncoder, ids: readonly string[]): IrtMoeScorer {
  const c = DEFAULT_IRT_MOE_CONFIG;
  const shape = { inDim: encoder.dim, experts: c.experts, hidden: c.hidden, out: c.out, abilityDim: c.abilityDim };
  const weights = inArena(initWeights(trainingRng(7), shape, ids));
  const d = c.abilityDim;
  const catalog = ids.map((id, m) => ({
    id,
    aliases: [],
    sources: ["bench"],
    ability: weights.theta.slice(m * d, (m + 1) * d),
    nLabels: 0,
    accuracy: NaN,
  }));
  return new IrtMoeScorer({
    weights,
    catalog,
    encoderInfo: { id: encoder.id, dim: encoder.dim },
    temperature: 1,
    encoder,
  });
}
