import { describe, expect, it } from "vitest";
import { CsrBuilder, csrFromTriplets, entryIndex, modelMeans, observedCounts } from "../../src/data/csr.js";
import { selectItems } from "../../src/data/select.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { ValidationError } from "../../src/errors.js";

function dataset(labels: CorrectnessDataset["labels"], nItems: number, models = ["a", "b", "c"]): CorrectnessDataset {
  return {
    name: "t",
    models,
    items: Array.from({ length: nItems }, (_, i) => ({ id: String(i), text: "x" })),
    labels,
    source: { dir: "", files: [], sha256: "" },
  };
}

describe("CSR building", () => {
  it("CsrBuilder rejects a duplicate (item, model) pair instead of storing it twice", () => {
    const b = new CsrBuilder(false);
    b.add(1, 1);
    b.add(0, 0);
    b.add(1, 0);
    b.endItem();
    expect(() => b.build()).toThrow(ValidationError);
  });

  it("csrFromTriplets rejects duplicate pairs and out-of-range or non-integer indices", () => {
    expect(() => csrFromTriplets(2, [0, 1, 0], [2, 0, 2], [1, 0, 0])).toThrow(ValidationError);
    expect(() => csrFromTriplets(2, [0, -1], [0, 1], [1, 0])).toThrow(ValidationError);
    expect(() => csrFromTriplets(2, [0, 2], [0, 1], [1, 0])).toThrow(ValidationError);
    expect(() => csrFromTriplets(2, [0, 0.5], [0, 1], [1, 0])).toThrow(ValidationError);
    expect(() => csrFromTriplets(2, [0, 1], [0, -1], [1, 0])).toThrow(ValidationError);
    // the offending field is named
    expect(() => csrFromTriplets(2, [0, 1, 0], [2, 0, 2], [1, 0, 0])).toThrow(
      expect.objectContaining({ path: "items.0" }),
    );
    expect(() => csrFromTriplets(2, [0, 2], [0, 1], [1, 0])).toThrow(expect.objectContaining({ path: "item.1" }));
  });

  it("csrFromTriplets rejects arrays of different lengths, naming the one that differs", () => {
    expect(() => csrFromTriplets(2, [0, 1], [0], [1, 0])).toThrow(expect.objectContaining({ path: "model" }));
    expect(() => csrFromTriplets(2, [0, 1], [0, 1], [1])).toThrow(expect.objectContaining({ path: "y" }));
    expect(() => csrFromTriplets(2, [0, 1], [0, 1], [1, 0], [0.1])).toThrow(expect.objectContaining({ path: "cost" }));
  });

  it("keeps items and models without labels, sorts each row by model, and carries y and cost along", () => {
    const labels = csrFromTriplets(4, [2, 0, 2, 2], [2, 1, 0, 1], [0.5, 1, 0, 1], [3, 1, 2, 4]);
    expect(Array.from(labels.offsets)).toEqual([0, 1, 1, 4, 4]);
    expect(Array.from(labels.model)).toEqual([1, 0, 1, 2]);
    expect(Array.from(labels.y)).toEqual([1, 0, 1, 0.5]);
    expect(Array.from(labels.cost!)).toEqual([1, 2, 4, 3]);
    const ds = dataset(labels, 4, ["a", "b", "c", "unlabelled"]);
    expect(Array.from(observedCounts(ds))).toEqual([1, 2, 1, 0]);
    expect(modelMeans(ds)[3]).toMatchObject({ count: 0 });
    expect(Number.isNaN(modelMeans(ds)[3]!.mean)).toBe(true);
    expect(entryIndex(ds, 1, 0)).toBe(-1);
    expect(entryIndex(ds, 2, 2)).toBe(3);

    const b = new CsrBuilder(true);
    b.endItem();
    b.add(2, 1, 5);
    b.add(0, 0);
    b.endItem();
    const built = b.build();
    expect(Array.from(built.offsets)).toEqual([0, 0, 2]);
    expect(Array.from(built.model)).toEqual([0, 2]);
    expect(Array.from(built.cost!).map(String)).toEqual(["NaN", "5"]);
  });

  it("selectItems rejects an index outside the dataset", () => {
    const ds = dataset(csrFromTriplets(2, [0, 1], [0, 1], [1, 0]), 2);
    expect(selectItems(ds, [1, 0]).items.map((i) => i.id)).toEqual(["1", "0"]);
    expect(() => selectItems(ds, [2])).toThrow(ValidationError);
    expect(() => selectItems(ds, [-1])).toThrow(ValidationError);
  });
});
