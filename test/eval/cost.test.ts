import { describe, expect, it } from "vitest";
import {
  chooseLambdaUnderCap,
  costAwarePoint,
  costCurve,
  hullArea,
  matchCostFraction,
  singleModelPoint,
  upperHull,
  type CostLabelMatrix,
} from "../../src/eval/cost.js";
import { estimateExpectedCosts } from "../../src/eval/expected-cost.js";

describe("upper hull and its area", () => {
  it("integrates a straight line", () => {
    expect(
      hullArea(
        [
          { meanCost: 0, accuracy: 0.5 },
          { meanCost: 1, accuracy: 1 },
        ],
        0,
        1,
      ),
    ).toBeCloseTo(0.75, 12);
  });
  it("ignores points under the hull and keeps it flat after its most accurate point", () => {
    const pts = [
      { meanCost: 0, accuracy: 0.5 },
      { meanCost: 0.25, accuracy: 0.55 }, // under the segment (0, .5) -> (.5, .9)
      { meanCost: 0.5, accuracy: 0.9 },
      { meanCost: 1, accuracy: 0.8 }, // dominated: spending more never has to lose accuracy
    ];
    expect(upperHull(pts).map((p) => p.meanCost)).toEqual([0, 0.5]);
    // 0..0.5: trapezoid (0.5 + 0.9) / 2 x 0.5 = 0.35; 0.5..1: 0.9 x 0.5 = 0.45
    expect(hullArea(pts, 0, 1)).toBeCloseTo(0.8, 12);
  });
  it("normalises by the cost range and extends the hull flat beyond the curve", () => {
    const pts = [
      { meanCost: 2, accuracy: 0.6 },
      { meanCost: 4, accuracy: 0.8 },
    ];
    // [1, 2]: 0.6; [2, 4]: 0.7 x 2; [4, 5]: 0.8 -> (0.6 + 1.4 + 0.8) / 4 = 0.7
    expect(hullArea(pts, 1, 5)).toBeCloseTo(0.7, 12);
  });
});

describe("cost-aware routing", () => {
  // two items, two models; model 1 is expensive and always right, model 0 cheap and right on item 0
  const labels: CostLabelMatrix = {
    offsets: Int32Array.from([0, 2, 4]),
    model: Int32Array.from([0, 1, 0, 1]),
    y: Float32Array.from([1, 1, 0, 1]),
    cost: Float32Array.from([0.001, 0.02, 0.001, 0.03]),
  };
  const pred = Float32Array.from([0.6, 0.9, 0.4, 0.9]);

  it("decides on the EXPECTED cost and accounts the RECORDED one", () => {
    // expected says model 1 is cheap on item 1: the policy must follow it even though recorded is high
    const expected = [0.001, 0.01, 0.05, 0.0001];
    const p = costAwarePoint(labels, [0, 1], pred, expected, 2, 100);
    // item 0: 0.6 - 0.1 = 0.5 vs 0.9 - 1 = -0.1 -> model 0; item 1: 0.4 - 5 vs 0.9 - 0.01 -> model 1
    expect(p.accuracy).toBe(1);
    expect(p.meanCost).toBeCloseTo((0.001 + 0.03) / 2, 8);
  });

  it("traces the curve from quality-only to cheapest-only and finds the match point and the val-chosen lambda", () => {
    const expected = [0.001, 0.02, 0.001, 0.03];
    const curve = costCurve(labels, [0, 1], pred, expected, 2, [0, 10, 1000]);
    expect(curve[0]).toMatchObject({ lambda: 0, accuracy: 1 });
    expect(curve[0]!.meanCost).toBeCloseTo(0.025, 8);
    expect(curve[2]!.accuracy).toBe(0.5);
    const best = singleModelPoint(labels, [0, 1], 1);
    expect(best.accuracy).toBe(1);
    // lambda 10: item 0 -> 0.59 vs 0.7 (model 1); item 1 -> 0.39 vs 0.6 (model 1): accuracy 1 at full cost
    expect(matchCostFraction(curve, 1, best.meanCost)).toBeCloseTo(1, 8);
    expect(matchCostFraction(curve, 1.1, best.meanCost)).toBeNaN();
    expect(chooseLambdaUnderCap(curve, 0.5 * best.meanCost)).toBe(1000);
    expect(chooseLambdaUnderCap(curve, 0.0001)).toBeUndefined();
  });

  it("never leaves a chosen call without a recorded cost out of the spend: the mean is unknown and the calls are counted", () => {
    // model 1's cost on item 0 is unknown (a blank cost_usd)
    const gap: CostLabelMatrix = { ...labels, cost: Float32Array.from([0.001, NaN, 0.001, 0.03]) };
    const expected = [0.001, 0.02, 0.001, 0.03];
    const quality = costAwarePoint(gap, [0, 1], pred, expected, 2, 0); // chooses model 1 on both items
    expect(quality.accuracy).toBe(1);
    expect(quality.meanCost).toBeNaN();
    expect(quality.unknownCost).toBe(1);
    const single = singleModelPoint(gap, [0, 1], 1);
    expect(single).toMatchObject({ accuracy: 1, unknownCost: 1 });
    expect(single.meanCost).toBeNaN();
    // a point whose chosen calls all have a cost is as before
    const cheapest = costAwarePoint(gap, [0, 1], pred, expected, 2, 1000); // model 0 on both items
    expect(cheapest).not.toHaveProperty("unknownCost");
    expect(cheapest.meanCost).toBeCloseTo(0.001, 9);
    expect(singleModelPoint(gap, [1], 1)).not.toHaveProperty("unknownCost");
  });
});

describe("estimateExpectedCosts", () => {
  it("learns expected output tokens from TRAIN recorded costs only and prices every item ex ante", () => {
    const labels: CostLabelMatrix = {
      offsets: Int32Array.from([0, 2, 4, 6]),
      model: Int32Array.from([0, 1, 0, 1, 0, 1]),
      y: Float32Array.from([1, 1, 1, 1, 1, 1]),
      // item 2 (test) has an absurd recorded cost: it must not leak into the estimate
      cost: Float32Array.from([(100 * 1 + 10 * 2) / 1e6, 0.5, (300 * 1 + 30 * 2) / 1e6, 0.7, 99, 99]),
    };
    const tokens = [100, 300, 200];
    const est = estimateExpectedCosts(labels, [0, 1], tokens, [{ inputPer1M: 1, outputPer1M: 2 }, undefined], 2);
    expect(est.perModel[0]!.method).toBe("list-price");
    expect(est.perModel[0]!.expectedOutputTokens).toBeCloseTo(20, 4); // float32 recorded costs
    expect(est.perModel[1]!.method).toBe("train-mean");
    expect(est.perModel[1]!.meanTrainCost).toBeCloseTo(0.6, 6);
    expect(est.cost[2 * 2 + 0]).toBeCloseTo((200 * 1 + 20 * 2) / 1e6, 9);
    expect(est.cost[2 * 2 + 1]).toBeCloseTo(0.6, 6);
    expect(est.perModel.map((e) => [e.trainCalls, e.unknownTrainCost])).toEqual([
      [2, 0],
      [2, 0],
    ]);
  });

  it("counts the train calls without a recorded cost, and gives no estimate for a model with neither a price nor a recorded cost", () => {
    const labels: CostLabelMatrix = {
      offsets: Int32Array.from([0, 2, 4]),
      model: Int32Array.from([0, 1, 0, 1]),
      y: Float32Array.from([1, 1, 1, 1]),
      cost: Float32Array.from([0.002, NaN, NaN, NaN]),
    };
    const est = estimateExpectedCosts(labels, [0, 1], [10, 10], [undefined, undefined], 2);
    expect(est.perModel[0]).toMatchObject({ method: "train-mean", trainCalls: 1, unknownTrainCost: 1 });
    expect(est.perModel[0]!.meanTrainCost).toBeCloseTo(0.002, 9);
    expect(est.perModel[1]).toMatchObject({
      method: "none",
      reason: "no list price and no train call with a recorded cost",
      trainCalls: 0,
      unknownTrainCost: 2,
    });
    expect(est.cost[1]).toBeNaN();
  });

  it("a model with a list price but no recorded train cost has no estimate, for that reason (not 'no list price')", () => {
    const labels: CostLabelMatrix = {
      offsets: Int32Array.from([0, 1, 2]),
      model: Int32Array.from([0, 0]),
      y: Float32Array.from([1, 1]),
      cost: Float32Array.from([NaN, NaN]),
    };
    const est = estimateExpectedCosts(labels, [0, 1], [100, 100], [{ inputPer1M: 1, outputPer1M: 2 }], 1);
    expect(est.perModel[0]).toEqual({
      method: "none",
      reason: "a list price, but no train call with a recorded cost to learn its expected output tokens from",
      trainCalls: 0,
      unknownTrainCost: 2,
    });
    expect([...est.cost]).toEqual([NaN, NaN]);
    // a list price without an output price: the mean recorded train cost, and said why
    const free = estimateExpectedCosts(
      { ...labels, cost: Float32Array.from([0, 0]) },
      [0, 1],
      [100, 100],
      [{ inputPer1M: 0, outputPer1M: 0 }],
      1,
    );
    expect(free.perModel[0]).toMatchObject({
      method: "train-mean",
      reason: "its list price has no output price to learn output tokens with",
      meanTrainCost: 0,
    });
  });
});
