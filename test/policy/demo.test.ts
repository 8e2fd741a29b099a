import { describe, expect, it } from "vitest";
import { runDemo } from "../../src/eval/policy-demo.js";
import { ValidationError } from "../../src/errors.js";
import type { ReplayTable } from "../../src/eval/policy-replay.js";
import { trainingRng } from "../../src/util/random.js";
import { thrownBy } from "../errors.js";

const models = ["gpt-4-1106-preview", "mid", "cheap"];

function randomTable(seed: number, nItems: number): ReplayTable {
  const rng = trainingRng(seed);
  const p: number[] = [];
  const expectedCost: number[] = [];
  const y: number[] = [];
  const cost: number[] = [];
  for (let i = 0; i < nItems; i++) {
    const hard = rng.next() < 0.4;
    const base = [0.92, hard ? 0.4 : 0.85, hard ? 0.2 : 0.7];
    const c = [0.005, 0.0004, 0.0001];
    for (let m = 0; m < 3; m++) {
      p.push(base[m]!);
      expectedCost.push(c[m]!);
      y.push(rng.next() < base[m]! ? 1 : 0);
      cost.push(c[m]! * (0.8 + 0.4 * rng.next()));
    }
  }
  return { models, nItems, p, expectedCost, y, cost };
}

describe("runDemo", () => {
  it("chooses settings on validation only: changing test outcomes never changes a setting", () => {
    const val = randomTable(1, 300);
    const test = randomTable(2, 300);
    const flipped = { ...test, y: (test.y as number[]).map((v) => 1 - v) };
    const a = runDemo(val, test);
    const b = runDemo(val, flipped);
    expect(a.rows.map((r) => r.setting)).toEqual(b.rows.map((r) => r.setting));
    expect(a.rows.find((r) => r.name === "cost-aware")!.accuracy).not.toBe(
      b.rows.find((r) => r.name === "cost-aware")!.accuracy,
    );
  });

  it("keeps the main cost-aware row within its validation spend cap, and the cheaper one below it", () => {
    const val = randomTable(3, 300);
    const report = runDemo(val, randomTable(4, 300));
    const main = report.rows.find((r) => r.name === "cost-aware")!;
    const cheap = report.rows.find((r) => r.name === "cost-aware (cheaper)")!;
    const gptVal = report.rows.find((r) => r.name === "quality")!; // quality ~ always GPT-4 here
    expect(main.chosenOn!.valSpendUsd).toBeLessThanOrEqual(0.5 * gptVal.chosenOn!.valSpendUsd + 1e-12);
    expect(cheap.chosenOn!.valSpendUsd).toBeLessThanOrEqual(0.2 * gptVal.chosenOn!.valSpendUsd + 1e-12);
    expect(report.cheapestModel).toBe("cheap");
    expect(report.curve[0]!.lambda).toBe(0);
    expect(report.curve.at(-1)!.spendFraction).toBeLessThan(report.curve[0]!.spendFraction);
  });

  it("rejects tables with different models or an unknown reference model", () => {
    const t = randomTable(5, 20);
    expect(() => runDemo(t, { ...t, models: ["a", "b", "c"] })).toThrow(/same models/);
    expect(() => runDemo(t, t, { referenceModel: "claude" })).toThrow(/Reference model/);
  });

  it("validates its settings into a ValidationError naming the field", () => {
    const t = randomTable(6, 30);
    const bad: [Record<string, unknown>, string][] = [
      [{ mainCap: -0.5 }, "settings.mainCap"],
      [{ cheapCap: NaN }, "settings.cheapCap"],
      [{ lambdas: [] }, "settings.lambdas"],
      [{ taus: [0.5, 1.5] }, "settings.taus.1"],
      [{ pressures: [0] }, "settings.pressures.0"],
      [{ mainCapp: 0.5 }, "settings.mainCapp"],
    ];
    for (const [settings, path] of bad) {
      let error: unknown;
      try {
        runDemo(t, t, settings as never);
      } catch (e) {
        error = e;
      }
      expect(error, path).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).path).toBe(path);
    }
  });

  it("keeps the default of a setting given as undefined", () => {
    const val = randomTable(7, 100);
    const test = randomTable(8, 100);
    const a = runDemo(val, test);
    const b = runDemo(val, test, { mainCap: undefined, lambdas: undefined });
    expect(b.rows.map((r) => r.setting)).toEqual(a.rows.map((r) => r.setting));
  });

  it("names the reference model when it has no recorded cost on validation (the caps would be 0)", () => {
    const val = randomTable(7, 100);
    const free = { ...val, cost: (val.cost as number[]).map((c, k) => (k % 3 === 0 ? 0 : c)) };
    const error = thrownBy(ValidationError, () => runDemo(free, randomTable(8, 100), { referenceModel: models[0] }));
    expect(error.path).toBe("settings.referenceModel");
    expect(error.message).toMatch(/spent \$0 on the validation split/);
  });
});
