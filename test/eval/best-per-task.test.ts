import { describe, expect, it } from "vitest";
import { bestPerTaskModels, bestPerTaskScores } from "../../src/eval/best-per-task.js";
import type { LabelMatrix } from "../../src/eval/types.js";

/** Items 0-5 train, 6-9 test; model 0 is right on "math", model 1 on "code"; model 0 has more right overall. */
function labels(): { data: LabelMatrix; categories: (string | undefined)[] } {
  const categories = ["math", "math", "math", "code", "code", "math", "math", "code", "code", undefined];
  const offsets = [0];
  const model: number[] = [];
  const y: number[] = [];
  categories.forEach((c, i) => {
    model.push(0, 1);
    y.push(c === "code" ? 0 : 1, c === "code" ? 1 : i % 2);
    offsets.push(model.length);
  });
  return {
    data: {
      offsets: Int32Array.from(offsets),
      model: Int32Array.from(model),
      y: Float32Array.from(y),
      nItems: 10,
    } as LabelMatrix,
    categories,
  };
}

describe("best-per-task reference", () => {
  const train = [0, 1, 2, 3, 4, 5];
  const test = [6, 7, 8, 9];

  it("picks the best train model of each category, the best single model elsewhere", () => {
    const { data, categories } = labels();
    const best = bestPerTaskModels(data, train, categories, 2);
    expect(Object.fromEntries(best.byTask)).toEqual({ math: 0, code: 1 });
    expect(best.fallback).toBe(0);
  });

  it("scores each test item with its category's model, beating the best single model here", () => {
    const { data, categories } = labels();
    const scores = bestPerTaskScores(data, train, test, categories, 2)!;
    expect(Array.from(scores)).toEqual([1, 1, 1, 1]); // math -> 0 (right), code -> 1 (right), none -> best single 0
    expect(bestPerTaskScores(data, train, test, undefined, 2)).toBeUndefined();
    expect(bestPerTaskScores(data, train, test, Array(10).fill(undefined), 2)).toBeUndefined();
  });
});
