import { describe, expect, it } from "vitest";
import { IrtRouterError } from "../../src/errors.js";
import { savedScorerMethod } from "../../src/eval/scorer-method.js";
import type { Scorer } from "../../src/scorer/types.js";

/** A 2-d "scorer" whose p for model k is x[k] (so predictions are checkable), with aliases. */
const fake: Scorer = {
  encoder: { id: "toy", dim: 2 },
  abilityDim: 1,
  models: [
    {
      id: "gpt-4-1106-preview",
      aliases: ["GPT-4-1106"],
      sources: [],
      ability: new Float32Array(1),
      nLabels: 1,
      accuracy: 1,
    },
    {
      id: "mixtral-8x7b",
      aliases: ["mistralai/Mixtral-8x7B-Instruct-v0.1"],
      sources: [],
      ability: new Float32Array(1),
      nLabels: 1,
      accuracy: 1,
    },
  ],
  itemParams: async () => ({ alpha: new Float32Array(1), beta: 0 }),
  ability(id) {
    const k = this.models.findIndex((c) => c.id === id || c.aliases.includes(id));
    if (k < 0) throw new IrtRouterError("UNKNOWN_MODEL", `unknown ${id}`);
    return this.models[k]!.ability;
  },
  async predict(x, ids) {
    const v = x as Float32Array;
    return ids!.map((id) => {
      const k = this.models.findIndex((c) => c.id === id || c.aliases.includes(id));
      return { model: this.models[k]!.id, p: v[k]! };
    });
  },
};

const data = {
  X: Float32Array.from([0.1, 0.9, 0.7, 0.2]),
  dim: 2,
  nItems: 2,
  nModels: 2,
  offsets: Int32Array.from([0, 2, 4]),
  model: Int32Array.from([0, 1, 0, 1]),
  y: Float32Array.from([0, 1, 1, 0]),
};

describe("savedScorerMethod", () => {
  it("maps dataset names through the catalog aliases and keeps the dataset's model order", async () => {
    const method = savedScorerMethod(fake, ["mistralai/Mixtral-8x7B-Instruct-v0.1", "GPT-4-1106"], "toy artifact");
    expect(method.seeded).toBe(false);
    const fitted = await method.fit(data, { train: [0], val: [1] }, { seed: 1 });
    expect(fitted.description).toContain("mistralai/Mixtral-8x7B-Instruct-v0.1 -> mixtral-8x7b");
    const p = await fitted.predict(data.X, [1, 0]);
    expect(Array.from(p)).toEqual([Math.fround(0.2), Math.fround(0.7), Math.fround(0.9), Math.fround(0.1)]);
  });

  it("names every dataset model the catalog does not know", () => {
    try {
      savedScorerMethod(fake, ["GPT-4-1106", "claude-v1", "yi-34b"], "toy artifact");
      expect.unreachable();
    } catch (error) {
      expect((error as IrtRouterError).code).toBe("UNKNOWN_MODEL");
      expect((error as Error).message).toMatch(/2 of this dataset's models \(claude-v1, yi-34b\)/);
    }
  });

  it("refuses embeddings of another size", async () => {
    const method = savedScorerMethod(fake, ["GPT-4-1106"], "toy artifact");
    await expect(
      method.fit({ ...data, dim: 4, X: new Float32Array(8) }, { train: [0], val: [1] }, { seed: 1 }),
    ).rejects.toThrow(/expects 2-d embeddings/);
  });
});
