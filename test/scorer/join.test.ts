import { describe, expect, it } from "vitest";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { buildCatalog, datasetModelNames, ModelResolver } from "../../src/scorer/catalog.js";
import { embeddedLabelsOf, joinDatasets } from "../../src/scorer/dataset.js";

/** A tiny dataset: `n` items, every model observed on every item, label = (item + model) % 2. */
function tiny(name: string, models: string[], n: number): CorrectnessDataset {
  const offsets = new Int32Array(n + 1);
  const model: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    models.forEach((_, m) => {
      model.push(m);
      y.push((i + m) % 2);
    });
    offsets[i + 1] = model.length;
  }
  return {
    name,
    models,
    items: Array.from({ length: n }, (_, i) => ({ id: String(i), text: `q${i}` })),
    labels: { offsets, model: Int32Array.from(model), y: Float32Array.from(y) },
    source: { dir: "/nowhere", files: [], sha256: name },
  };
}

const parts = [
  { dataset: tiny("small", ["gpt-4-1106-preview", "claude-v1"], 20), vectors: new Float32Array(20 * 2), dim: 2 },
  { dataset: tiny("large", ["gpt-4-1106-preview", "mixtral"], 200), vectors: new Float32Array(200 * 2), dim: 2 },
];

describe("joinDatasets + buildCatalog", () => {
  it("shares one ability row per model across datasets by default", () => {
    const joined = joinDatasets(parts);
    expect(joined.data.nModels).toBe(3);
    expect(joined.parts[0]!.modelIndex[0]).toBe(joined.parts[1]!.modelIndex[0]);
  });

  it("with shareAbilities false gives each (model, dataset) its own row; the row from the dataset with more models (then more labels) keeps the id", () => {
    const joined = joinDatasets(parts, undefined, { shareAbilities: false });
    expect(joined.data.nModels).toBe(4);
    const [smallGpt4] = joined.parts[0]!.modelIndex;
    const [largeGpt4] = joined.parts[1]!.modelIndex;
    expect(smallGpt4).not.toBe(largeGpt4);
    const theta = Float32Array.from({ length: 4 }, (_, k) => k);
    const catalog = buildCatalog(theta, 1, joined.stats);
    const ids = catalog.map((e) => e.id);
    expect(ids).toContain("gpt-4-1106-preview");
    expect(ids).toContain("gpt-4-1106-preview@small");
    const resolver = new ModelResolver(catalog);
    // equal model counts: the bare name goes to the row with more labels; qualified names reach each source's row
    expect(resolver.indexOf("gpt-4-1106-preview")).toBe(largeGpt4);
    expect(resolver.indexOf("gpt-4-1106-preview@small")).toBe(smallGpt4);
    expect(resolver.indexOf("gpt-4-1106-preview@large")).toBe(largeGpt4);
    expect(datasetModelNames(catalog, ["gpt-4-1106-preview", "claude-v1"], "small")).toEqual([
      "gpt-4-1106-preview@small",
      "claude-v1",
    ]);
  });

  it("gives the canonical id to the row from the dataset with the most models, even with fewer labels", () => {
    const wide = {
      dataset: tiny("wide", ["gpt-4-1106-preview", "a", "b", "c"], 10),
      vectors: new Float32Array(10 * 2),
      dim: 2,
    };
    const narrow = { dataset: tiny("narrow", ["gpt-4-1106-preview"], 300), vectors: new Float32Array(300 * 2), dim: 2 };
    const joined = joinDatasets([narrow, wide], undefined, { shareAbilities: false });
    const catalog = buildCatalog(new Float32Array(joined.data.nModels), 1, joined.stats);
    const resolver = new ModelResolver(catalog);
    expect(resolver.indexOf("gpt-4-1106-preview")).toBe(joined.parts[1]!.modelIndex[0]);
    expect(catalog.map((e) => e.id)).toContain("gpt-4-1106-preview@narrow");
  });
});

describe("embeddedLabelsOf", () => {
  it("is one dataset as training data: its labels, and its models as the dataset lists them", () => {
    const ds = tiny("aliased", ["gpt-4-1106-preview", "gpt-4"], 5);
    const X = new Float32Array(5 * 2);
    const data = embeddedLabelsOf(ds, X, 2);
    expect(data).toMatchObject({ X, dim: 2, nItems: 5, nModels: 2, models: ["gpt-4-1106-preview", "gpt-4"] });
    expect([data.offsets, data.model, data.y]).toEqual([ds.labels.offsets, ds.labels.model, ds.labels.y]);
  });
});
