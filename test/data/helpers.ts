import { expect } from "vitest";
import { modelMeans } from "../../src/data/csr.js";
import type { CorrectnessDataset } from "../../src/data/types.js";

/** Mean label of `model` over all items where it is observed. */
export function meanOf(ds: CorrectnessDataset, model: string): number {
  const row = modelMeans(ds).find((r) => r.model === model);
  expect(row, `model ${model}`).toBeDefined();
  return row!.mean;
}

/** The model with the highest mean label. */
export function bestSingle(ds: CorrectnessDataset): { model: string; mean: number } {
  return modelMeans(ds).reduce((a, b) => (b.mean > a.mean ? b : a));
}

/** Structural invariants of the CSR form. */
export function expectWellFormed(ds: CorrectnessDataset): void {
  const { offsets, model, y, cost } = ds.labels;
  expect(offsets.length).toBe(ds.items.length + 1);
  expect(offsets[0]).toBe(0);
  expect(offsets[ds.items.length]).toBe(model.length);
  expect(y.length).toBe(model.length);
  if (cost) expect(cost.length).toBe(model.length);
  let unsorted = 0;
  for (let i = 0; i < ds.items.length; i++) {
    for (let k = offsets[i]! + 1; k < offsets[i + 1]!; k++) if (!(model[k]! > model[k - 1]!)) unsorted++;
  }
  expect(unsorted, "entries out of model order within an item").toBe(0);
  expect(y.filter((v) => !(v >= 0 && v <= 1)).length, "labels outside [0, 1]").toBe(0);
  expect(new Set(ds.items.map((i) => i.id)).size).toBe(ds.items.length);
  expect(ds.source.sha256).toMatch(/^[0-9a-f]{64}$/);
}
