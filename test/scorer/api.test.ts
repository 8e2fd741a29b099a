import { describe, expect, it, vi } from "vitest";
import { EmbeddingProviderError, EncoderInputError, ValidationError } from "../../src/errors.js";
import type { QueryEncoder } from "../../src/encoders/types.js";
import { ModelResolver } from "../../src/scorer/catalog.js";
import { itemParamsOf } from "../../src/scorer/forward.js";
import { IrtMoeScorer } from "../../src/scorer/scorer.js";
import type { CatalogEntry } from "../../src/scorer/types.js";
import { toyScorerParts } from "./helpers.js";
import { rejectedWith, thrownBy } from "../errors.js";

const ENC = { id: "test-encoder@1", dim: 8 };
const vec = Float32Array.from([0.1, -0.2, 0.3, 0.05, 0, 0.7, -0.4, 0.2]);

const parts = () => toyScorerParts(4, ["gpt-4-1106-preview", "mixtral-8x7b-instruct-v0.1", "meta-llama-3-8b"]);

function scorer(options: { temperature?: number; encoder?: QueryEncoder } = {}): IrtMoeScorer {
  return new IrtMoeScorer({
    ...parts(),
    encoderInfo: ENC,
    temperature: "temperature" in options ? options.temperature! : 1,
    encoder: options.encoder,
  });
}

describe("IrtMoeScorer public API: bad input", () => {
  it.each([Infinity, -Infinity, "2", null])("rejects the temperature %s, naming the field", (t) => {
    const error = thrownBy(ValidationError, () => scorer({ temperature: t as number }));
    expect(error.path).toBe("temperature");
  });

  it("rejects a model id listed twice instead of scoring it twice", async () => {
    const s = scorer();
    const error = await rejectedWith(
      ValidationError,
      s.predict(vec, ["meta-llama-3-8b", "gpt-4-1106-preview", "meta-llama-3-8b"]),
    );
    expect(error.path).toBe("modelIds.2");
    expect(error.message).toMatch(/"meta-llama-3-8b" twice \(modelIds\[0\] and modelIds\[2\]\)/);
    thrownBy(ValidationError, () => s.predictSync(vec, ["gpt-4-1106-preview", "gpt-4-1106-preview"]));
    // distinct names of one model (id and alias) are still scored in the order asked
    const both = await s.predict(vec, ["gpt-4-1106-preview", "openai/gpt-4-1106-preview"]);
    expect(both.map((x) => x.model)).toEqual(["gpt-4-1106-preview", "gpt-4-1106-preview"]);
  });

  it("rejects a model id that is not a string with a typed error naming its index", async () => {
    const s = scorer();
    const error = await rejectedWith(ValidationError, s.predict(vec, ["gpt-4-1106-preview", 42 as unknown as string]));
    expect(error.path).toBe("modelIds.1");
    const ability = thrownBy(ValidationError, () => s.ability(undefined as unknown as string));
    expect(ability.path).toBe("modelId");
  });

  it("rejects empty query text without calling the encoder", async () => {
    const embed = vi.fn(async (texts: string[]) => texts.map(() => vec.slice()));
    const s = scorer({ encoder: { ...ENC, embed } });
    for (const call of [() => s.predict(""), () => s.itemParams("")]) {
      const error = await rejectedWith(EncoderInputError, call());
      expect(error.path).toBe("textOrEmbedding");
    }
    expect(embed).not.toHaveBeenCalled();
  });

  it("names the encoder when it returns no vector or one of the wrong length", async () => {
    const none = scorer({ encoder: { ...ENC, embed: async () => [] } });
    const e1 = await rejectedWith(EmbeddingProviderError, none.predict("hello"));
    expect(e1.message).toMatch(/test-encoder@1.*0 results/);
    const short = scorer({ encoder: { ...ENC, embed: async (t) => t.map(() => new Float32Array(4)) } });
    const e2 = await rejectedWith(EmbeddingProviderError, short.predict("hello"));
    expect(e2.message).toMatch(/"test-encoder@1" reports dim 8 but returned a vector of length 4/);
  });

  it("rejects a catalog that uses one id for two ability rows", () => {
    const { weights, catalog } = parts();
    const dup = catalog.map((e, m) => (m === 2 ? { ...e, id: catalog[0]!.id } : e));
    const error = thrownBy(
      ValidationError,
      () => new IrtMoeScorer({ weights, catalog: dup, encoderInfo: ENC, temperature: 1 }),
    );
    expect(error.path).toBe("catalog.2.id");
  });
});

describe("model resolution", () => {
  it("resolves a model's own id to its row even when an earlier entry lists that id as an alias", () => {
    const entry = (id: string, aliases: string[]): CatalogEntry => ({
      id,
      aliases,
      sources: [],
      ability: new Float32Array(1),
      nLabels: 0,
      accuracy: 0,
    });
    const resolver = new ModelResolver([entry("a", ["b", "shared"]), entry("b", ["shared"])]);
    expect(resolver.indexOf("b")).toBe(1);
    expect(resolver.indexOf("B")).toBe(1);
    expect(resolver.indexOf("a")).toBe(0);
  });
});

describe("inference math", () => {
  it("p = sigmoid((alpha . theta_m - beta) / T), the temperature dividing the whole logit", () => {
    const T = 2.5;
    const s = scorer({ temperature: T });
    const { alpha, beta } = itemParamsOf(s.weights, vec);
    const scores = s.predictSync(vec, ["meta-llama-3-8b", "gpt-4-1106-preview"]);
    scores.forEach(({ model, p }) => {
      const theta = s.ability(model);
      let z = -beta;
      for (let k = 0; k < theta.length; k++) z += alpha[k]! * theta[k]!;
      expect(p).toBeCloseTo(1 / (1 + Math.exp(-z / T)), 6);
    });
    expect(scores.map((x) => x.model)).toEqual(["meta-llama-3-8b", "gpt-4-1106-preview"]);
  });
});
