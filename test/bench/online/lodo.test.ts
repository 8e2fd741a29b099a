import { describe, expect, it } from "vitest";
import { pickMaxMin, renderLodo, type LodoResult } from "../../../bench/online/lodo-report.js";

describe("leave-one-dataset-out choice (bench/online/lodo-report.ts)", () => {
  const scores = {
    a: { score: [0.9, 0.5, 0.7] },
    b: { score: [0.2, 0.6, 0.65] },
    c: { score: [0.95, 0.55, 0.3] },
  };

  it("picks the setting with the best worst case, not the best mean", () => {
    // means: 0.683, 0.55, 0.55; worst cases: 0.2, 0.5, 0.3
    expect(pickMaxMin(scores, ["a", "b", "c"])).toBe(1);
    // over a and b only, setting 2 has the best worst case (0.65)
    expect(pickMaxMin(scores, ["a", "b"])).toBe(2);
  });

  it("picks only among the allowed settings", () => {
    expect(pickMaxMin(scores, ["a", "b", "c"], [true, false, true])).toBe(2);
  });

  it("renders each held-out dataset's pick from the other datasets and marks the default", () => {
    const r: LodoResult = {
      datasets: ["a", "b", "c"],
      seeds: [1],
      exploration: ["s0", "s1", "s2"],
      explorationAdmissible: [true, true, true],
      calibrationSettings: ["r0"],
      routing: Object.fromEntries(
        Object.entries(scores).map(([d, v]) => [
          d,
          {
            static: 0.5,
            oracle: 0.6,
            closed1000: v.score,
            closed3000: v.score,
            score: v.score,
            baselines3000: { sgdEpsilon: 0, epsilonGreedy: 0, greedy: 0 },
          },
        ]),
      ),
      calibration: Object.fromEntries(
        ["a", "b", "c"].map((d) => [
          d,
          {
            inflate: 10,
            pairs: 1,
            medians: [2],
            randomMedian: 4,
            ratio: [0.5],
            score: [-0.5],
            perPair: [[2]],
            random: [[4]],
          },
        ]),
      ),
      seconds: 1,
    };
    const md = renderLodo(r);
    expect(md).toContain("**s1** (default)");
    // held-out c: chosen on a and b -> s2, which scores 30% on c; c's own best is s0 (95%)
    expect(md).toContain("| c | s2 | 30% | s0 (95%) |");
  });
});
