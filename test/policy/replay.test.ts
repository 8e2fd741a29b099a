import { describe, expect, it } from "vitest";
import {
  replayPolicy,
  replayAlways,
  bestUnderCap,
  logGrid,
  impliedOutputTokens,
  type ReplayTable,
} from "../../src/eval/policy-replay.js";
import { knnOutputTokens } from "../../src/policy/output-tokens.js";
import { ValidationError } from "../../src/errors.js";

// 3 models: "big" (good, dear), "mid", "small" (cheap). 4 items.
const models = ["big", "mid", "small"];
function table(over: Partial<ReplayTable> = {}): ReplayTable {
  return {
    models,
    nItems: 4,
    // item rows: p(big), p(mid), p(small)
    p: [0.9, 0.8, 0.3, 0.9, 0.5, 0.4, 0.6, 0.55, 0.5, 0.9, 0.85, 0.2],
    expectedCost: [0.01, 0.002, 0.0005, 0.01, 0.002, 0.0005, 0.01, 0.002, 0.0005, 0.01, 0.002, 0.0005],
    y: [1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0],
    cost: [0.012, 0.003, 0.0004, 0.011, 0.002, 0.0006, 0.009, 0.001, 0.0005, 0.01, 0.002, 0.0005],
    ...over,
  };
}

describe("replayPolicy", () => {
  it("quality picks the highest p and accounts recorded label and cost", () => {
    const r = replayPolicy({ kind: "quality" }, table());
    expect(Array.from(r.choices)).toEqual([0, 0, 0, 0]);
    expect(r.accuracy).toBe(0.75);
    expect(r.spendUsd).toBeCloseTo(0.042, 12);
    expect(r.share).toEqual({ big: 1, mid: 0, small: 0 });
    expect(r.setting).toBe("quality");
  });

  it("cost-aware decides on expected cost, accounts recorded cost", () => {
    const r = replayPolicy({ kind: "cost-aware", lambda: 20 }, table());
    // item 0: big .7 mid .76 small .29 -> mid; item 1: big .7 mid .46 -> big; item 2: big .4 mid .51 small .49 -> mid; item 3: mid .81
    expect(Array.from(r.choices)).toEqual([1, 0, 1, 1]);
    expect(r.accuracy).toBe(1);
    expect(r.spendUsd).toBeCloseTo(0.003 + 0.011 + 0.001 + 0.002, 12);
    expect(r.share.mid).toBeCloseTo(0.75, 12);
  });

  it("skips unobserved models and items without candidates", () => {
    const y = table().y as number[];
    const t = table({ y: [NaN, 1, 0, ...y.slice(3, 9), NaN, NaN, NaN] });
    const r = replayPolicy({ kind: "quality" }, t);
    expect(Array.from(r.choices)).toEqual([1, 0, 0, -1]);
    expect(r.items).toBe(3);
    expect(r.accuracy).toBeCloseTo(2 / 3, 12);
  });

  it("accounts the expected cost where the recorded one is unknown, and counts it", () => {
    const cost = [...(table().cost as number[])];
    cost[0] = NaN;
    const r = replayPolicy({ kind: "quality" }, table({ cost }));
    expect(r.unknownCostCalls).toBe(1);
    expect(r.spendUsd).toBeCloseTo(0.01 + 0.011 + 0.009 + 0.01, 12);
  });

  it("budget: the whole table is one run; spend so far moves it to cheaper models", () => {
    const r = replayPolicy({ kind: "budget", maxUsdPerRun: 0.025, pressure: 0.01 }, table());
    // items 0 and 1 go to big (0.023 spent, 0.002 left); item 2: only small fits (mid's 0.002 does too: <= remaining)
    expect(Array.from(r.choices).slice(0, 2)).toEqual([0, 0]);
    expect(r.choices[2]).not.toBe(0);
    expect(r.choices[3]).toBe(2); // remaining 0.001 after mid or 0.0015 after small: only small fits
  });

  it("rejects tables of the wrong shape", () => {
    expect(() => replayPolicy({ kind: "quality" }, table({ p: [0.5] }))).toThrow(/table\.p/);
  });
});

describe("replayAlways", () => {
  it("replays one model", () => {
    const r = replayAlways(table(), "small");
    expect(r.name).toBe("always:small");
    expect(r.accuracy).toBe(0.25);
    expect(r.spendUsd).toBeCloseTo(0.002, 12);
    expect(r.share.small).toBe(1);
  });

  it("names the models when given an unknown one", () => {
    expect(() => replayAlways(table(), "huge")).toThrow(ValidationError);
    expect(() => replayAlways(table(), "huge")).toThrow(/big, mid, small/);
  });
});

describe("bestUnderCap", () => {
  const pts = [
    { setting: "a", accuracy: 0.9, spendUsd: 10 },
    { setting: "b", accuracy: 0.8, spendUsd: 6 },
    { setting: "c", accuracy: 0.8, spendUsd: 5 },
    { setting: "d", accuracy: 0.6, spendUsd: 2 },
  ];

  it("takes the best accuracy under the cap; ties go to the higher spend", () => {
    expect(bestUnderCap(pts, 7, 0).setting).toBe("b");
    expect(bestUnderCap(pts, 5.5, 0).setting).toBe("c");
    expect(bestUnderCap(pts, 100, 0).setting).toBe("a");
  });

  it("smooths accuracy over neighbouring settings", () => {
    const noisy = [
      { setting: 1, accuracy: 0.75, spendUsd: 9 },
      { setting: 2, accuracy: 0.8, spendUsd: 8 },
      { setting: 3, accuracy: 0.8, spendUsd: 7 },
      { setting: 4, accuracy: 0.7, spendUsd: 6 },
      { setting: 5, accuracy: 0.82, spendUsd: 5 }, // a lone spike
      { setting: 6, accuracy: 0.7, spendUsd: 4 },
    ];
    expect(bestUnderCap(noisy, 100, 0).setting).toBe(5);
    expect(bestUnderCap(noisy, 100, 1).setting).toBe(2);
    expect(bestUnderCap(noisy, 100, 1).smoothedAccuracy).toBeCloseTo((0.75 + 0.8 + 0.8) / 3, 12);
  });

  it("falls back to the cheapest setting when none fits", () => {
    expect(bestUnderCap(pts, 1).setting).toBe("d");
  });

  it("needs at least one setting", () => {
    expect(() => bestUnderCap([], 1)).toThrow(ValidationError);
  });
});

describe("logGrid", () => {
  it("spans lo..hi log-evenly", () => {
    expect(logGrid(1, 100, 3)).toEqual([1, 10, 100]);
    expect(() => logGrid(0, 1, 3)).toThrow(ValidationError);
  });
});

describe("impliedOutputTokens", () => {
  it("recovers output tokens from recorded cost and list price, and flags prices above the records", () => {
    const t = {
      models: ["m"],
      nItems: 3,
      y: [1, 0, 1],
      cost: [(100 * 10 + 50 * 30) / 1e6, (200 * 10 + 10 * 30) / 1e6, (100 * 10) / 2e6],
    };
    const [o] = impliedOutputTokens(t, [0, 1, 2], [100, 200, 100], [{ inputPer1M: 10, outputPer1M: 30 }]);
    expect(o!.n).toBe(3);
    expect(o!.mean).toBeCloseTo((50 + 10 + 0) / 3, 9);
    expect(o!.median).toBeCloseTo(10, 9);
    expect(o!.belowInputCost).toBe(1);
  });
});

describe("knnOutputTokens", () => {
  it("averages the output lengths of the most similar train prompts", () => {
    // two directions: "multiple choice" (x axis, 1-token answers) and "code" (y axis, 200-token answers)
    const vectors = new Float32Array([1, 0, 0.9, 0.1, 1, 0.05, 0, 1, 0.1, 0.9, 0.95, 0, 0.05, 1]);
    const known = [1, 2, 1, 200, 210]; // per train row, one model
    const out = knnOutputTokens({
      vectors,
      dim: 2,
      trainRows: [0, 1, 2, 3, 4],
      targetRows: [5, 6],
      nModels: 1,
      k: 2,
      known: (r) => known[r]!,
    });
    expect(out[0]).toBeCloseTo(1, 9); // rows 0 and 2 are nearest to (0.95, 0)
    expect(out[1]).toBeCloseTo(205, 9);
  });

  it("falls back to the train mean when no neighbour has a known length", () => {
    const vectors = new Float32Array([1, 0, 0, 1, 1, 0.1]);
    const out = knnOutputTokens({
      vectors,
      dim: 2,
      trainRows: [0, 1],
      targetRows: [2],
      nModels: 1,
      k: 1,
      known: (r) => (r === 0 ? NaN : 40),
    });
    expect(out[0]).toBe(40);
  });

  it("rejects a k that is not a whole number (it ranked the wrong neighbours)", () => {
    const vectors = new Float32Array([1, 0, 0, 1, 1, 0.1]);
    let error: unknown;
    try {
      knnOutputTokens({ vectors, dim: 2, trainRows: [0, 1], targetRows: [2], nModels: 1, k: 1.5, known: () => 1 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe("k");
  });

  it("rejects vectors that are not whole rows", () => {
    expect(() =>
      knnOutputTokens({
        vectors: new Float32Array(3),
        dim: 2,
        trainRows: [0],
        targetRows: [0],
        nModels: 1,
        known: () => 1,
      }),
    ).toThrow(ValidationError);
  });
});
