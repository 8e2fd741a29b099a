import { describe, expect, it } from "vitest";
import { summarise } from "../../src/eval/format.js";
import type { EvalReport, MethodReport } from "../../src/eval/evaluate.js";

function row(name: string, routingAccuracy: number, diff: number | null, ci: [number, number] | null): MethodReport {
  return {
    name,
    kind: name === "best-single" || name === "random" || name === "oracle" ? "reference" : "learned",
    description: [""],
    seeds: [1],
    routingAccuracy,
    routingAccuracySd: 0,
    routingCi95: [routingAccuracy - 0.01, routingAccuracy + 0.01],
    diffVsIrtMoe: diff,
    diffVsIrtMoeCi95: ci,
    accuracy: null,
    auc: null,
    brier: null,
    ece: null,
    aucSd: null,
    eceSd: null,
    gapClosed: 0,
    trainSeconds: null,
    inferMsPerQuery: null,
    perSeed: [],
  };
}

function report(methods: MethodReport[]): EvalReport {
  return {
    dataset: "d",
    counts: { train: 1, val: 1, test: 1 },
    seeds: [1],
    bootstrap: { resamples: 100, seed: 0 },
    models: ["a"],
    bestSingleModel: "a",
    methods,
    categories: [],
  };
}

describe("summarise", () => {
  it("says irt-moe ties for the top whatever the order of the rows", () => {
    const irt = row("irt-moe", 0.8, 0, [0, 0]);
    const knn = row("knn", 0.8, 0, [-0.01, 0.01]);
    const rest = [row("best-single", 0.7, -0.1, [-0.12, -0.08]), row("oracle", 0.95, 0.15, [0.13, 0.17])];
    for (const methods of [
      [irt, knn, ...rest],
      [knn, irt, ...rest],
    ]) {
      const text = summarise(report(methods));
      expect(text).toMatch(/irt-moe ties for the highest mean routing accuracy .* with knn/);
      expect(text).not.toMatch(/does NOT have the highest/);
    }
  });

  it("says irt-moe is not on top when another method is higher", () => {
    const text = summarise(report([row("knn", 0.82, 0.02, [0.01, 0.03]), row("irt-moe", 0.8, 0, [0, 0])]));
    expect(text).toMatch(/irt-moe does NOT have the highest mean routing accuracy: knn/);
  });
});
