import { describe, expect, it } from "vitest";
import { clusterOrder, paretoFrontier, pca2, reliabilityBins } from "../../src/report/stats.js";
import { modelLabels } from "../../src/report/names.js";

describe("clusterOrder", () => {
  it("puts members of the same cluster next to each other", () => {
    // Two tight groups interleaved in input order: {0, 2, 4} near (0, 0), {1, 3} near (10, 10).
    const rows = [
      [0, 0],
      [10, 10],
      [0.1, 0],
      [10.2, 10],
      [0, 0.2],
    ];
    const order = clusterOrder(rows);
    expect([...order].sort()).toEqual([0, 1, 2, 3, 4]);
    const groupOf = (i: number) => (rows[i]![0]! > 5 ? "b" : "a");
    const runs = order.map(groupOf).join("");
    expect(runs === "aaabb" || runs === "bbaaa").toBe(true);
  });

  it("orders a chain along the chain (nearest neighbours adjacent)", () => {
    const rows = [[0], [3], [1], [6], [2]];
    const values = clusterOrder(rows).map((i) => rows[i]![0]!);
    const sorted = [...values].sort((a, b) => a - b);
    expect(values[0]! < values[4]! ? values : [...values].reverse()).toEqual(sorted);
  });

  it("handles no rows and one row", () => {
    expect(clusterOrder([])).toEqual([]);
    expect(clusterOrder([[1, 2]])).toEqual([0]);
  });
});

describe("pca2", () => {
  it("finds the direction of largest spread first and reports the variance shares", () => {
    // Points on a line along (1, 1, 0) plus a small spread along (0, 0, 1).
    const rows = [-2, -1, 0, 1, 2].map((t, i) => [t, t, i % 2 === 0 ? 0.1 : -0.1]);
    const { points, explained } = pca2(rows);
    const first = points.map((p) => p[0]);
    // Projection on the unit vector (1, 1, 0)/sqrt 2 of the centred points: t * sqrt 2 (sign fixed positive).
    first.forEach((v, i) => expect(v).toBeCloseTo([-2, -1, 0, 1, 2][i]! * Math.SQRT2, 4));
    expect(explained[0]).toBeGreaterThan(0.98);
    expect(explained[0] + explained[1]).toBeCloseTo(1, 6);
    points.forEach((p, i) => expect(Math.abs(p[1])).toBeCloseTo(Math.abs(rows[i]![2]! - 0.02), 4));
  });
});

describe("reliabilityBins", () => {
  it("bins by predicted p with the mean p, the observed rate and the count; p = 1 in the last bin", () => {
    const p = [0.05, 0.08, 0.55, 0.52, 0.58, 1];
    const y = [0, 1, 1, 1, 0, 1];
    const bins = reliabilityBins(p, y, 10);
    expect(bins.map((b) => b.lower)).toEqual([0, 0.5, 0.9]);
    expect(bins[0]).toMatchObject({ count: 2, observed: 0.5 });
    expect(bins[0]!.predicted).toBeCloseTo(0.065, 10);
    expect(bins[1]).toMatchObject({ count: 3 });
    expect(bins[1]!.observed).toBeCloseTo(2 / 3, 10);
    expect(bins[2]).toMatchObject({ count: 1, observed: 1, predicted: 1 });
  });
});

describe("paretoFrontier", () => {
  it("keeps the points nothing cheaper beats, cheapest first", () => {
    const pts = [
      { name: "a", cost: 1, accuracy: 0.5 },
      { name: "b", cost: 2, accuracy: 0.4 },
      { name: "c", cost: 3, accuracy: 0.7 },
      { name: "d", cost: 0.5, accuracy: 0.3 },
      { name: "e", cost: 3, accuracy: 0.6 },
    ];
    expect(paretoFrontier(pts)).toEqual(["d", "a", "c"]);
  });
});

describe("modelLabels", () => {
  it("cuts long ids in the middle and keeps labels unique", () => {
    const long = "mixtral-8x7b-instruct-v0.1@routerbench-subset-11models";
    const labels = modelLabels([long, "mixtral-8x7b-instruct-v0.1@routellm-2models", "a", "a"], 30);
    expect(labels[0]).toMatch(/^mixtral-8x7b-i.*11models$/);
    expect(labels[0]!.length).toBeLessThanOrEqual(30);
    expect(new Set(labels).size).toBe(4);
  });
});
