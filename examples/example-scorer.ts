/**
 * Scorer for the offline examples: the pretrained scorer when it loads, else a small hand-set one
 * (so the examples still run on a checkout without the pretrained artifact). The hand-set scorer is a
 * real `Scorer` with transparent item parameters; it is an illustration, not a trained model.
 */
import type { ItemParams, Scorer } from "../index.js";
import type { CatalogEntry, ModelScore } from "../src/scorer/index.js"; // irt-router/scorer
import { IrtRouterError } from "../index.js";

export async function exampleScorer(): Promise<{ scorer: Scorer; kind: "pretrained" | "hand-set" }> {
  if (process.env.IRT_ROUTER_EXAMPLE_SCORER !== "hand-set") {
    try {
      const { loadPretrained } = await import("../adapters/artifact/index.js");
      const scorer = await loadPretrained();
      await scorer.itemParams("warm-up"); // loads the offline encoder now, not in the middle of the demo
      return { scorer, kind: "pretrained" };
    } catch (error) {
      console.log(
        `(pretrained scorer not available: ${(error as Error).message.split("\n")[0]}; using a hand-set scorer)`,
      );
    }
  }
  return { scorer: new HandSetScorer(), kind: "hand-set" };
}

/**
 * Maths, code and proofs are "hard": they get a larger discrimination alpha[0] and difficulty beta, so
 * strong models keep a high p while weak ones drop; longer prompts raise beta a little. Abilities: gpt-4 strongest on hard cues, mixtral middle, mistral weakest.
 */
class HandSetScorer implements Scorer {
  readonly encoder = { id: "hand-set-keywords", dim: 2 };
  readonly abilityDim = 2;
  readonly models: CatalogEntry[] = [
    entry("gpt-4-1106-preview", [2.2, 1.6], { inputPer1M: 10, outputPer1M: 30 }),
    entry("mistralai/mixtral-8x7b-chat", [0.9, 1.3], { inputPer1M: 0.6, outputPer1M: 0.6 }),
    entry("mistralai/mistral-7b-chat", [0.2, 1.0], { inputPer1M: 0.2, outputPer1M: 0.2 }),
  ];

  async itemParams(textOrEmbedding: string | Float32Array): Promise<ItemParams> {
    const text = typeof textOrEmbedding === "string" ? textOrEmbedding : "";
    const hard = /prove|integral|derivative|theorem|algorithm|complexity|regex|sql|python|code|\d+\s*[*/^]\s*\d+/i.test(
      text,
    )
      ? 1.5
      : 0;
    return {
      alpha: Float32Array.from([hard ? 1.5 : 0.3, 1]),
      beta: (hard ? 2 : 0) + Math.min(0.3, text.length / 4000),
    };
  }

  async predict(textOrEmbedding: string | Float32Array, modelIds?: readonly string[]): Promise<ModelScore[]> {
    const { alpha, beta } = await this.itemParams(textOrEmbedding);
    return (modelIds ?? this.models.map((m) => m.id)).map((id) => {
      const t = this.ability(id);
      return { model: id, p: 1 / (1 + Math.exp(-(alpha[0]! * t[0]! + alpha[1]! * t[1]! - beta))) };
    });
  }

  ability(modelId: string): Float32Array {
    const m = this.models.find((x) => x.id === modelId || x.aliases.includes(modelId));
    if (!m) throw new IrtRouterError("UNKNOWN_MODEL", `Unknown model "${modelId}".`);
    return m.ability;
  }
}

function entry(id: string, ability: number[], price: { inputPer1M: number; outputPer1M: number }): CatalogEntry {
  const short = id.split("/").pop()!;
  return {
    id,
    aliases: short === id ? [] : [short],
    sources: ["hand-set"],
    ability: Float32Array.from(ability),
    nLabels: 0,
    accuracy: NaN,
    price,
  };
}
