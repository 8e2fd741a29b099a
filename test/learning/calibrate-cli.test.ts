import { describe, expect, it } from "vitest";
import { command } from "../../adapters/cli/commands/calibrate.js";
import { sampleItems } from "../../adapters/learning/probe-bank.js";
import { ValidationError } from "../../src/errors.js";
import { parseWith } from "../../src/util/validate.js";

describe("probe bank sampling", () => {
  it("is seeded, sorted, within range, honours the filter and the size", () => {
    const a = sampleItems(1000, 50, 3);
    expect(sampleItems(1000, 50, 3)).toEqual(a);
    expect(sampleItems(1000, 50, 4)).not.toEqual(a);
    expect(a).toHaveLength(50);
    expect([...a].sort((x, y) => x - y)).toEqual(a);
    expect(new Set(a).size).toBe(50);
    const even = sampleItems(1000, 2000, 1, (i) => i % 2 === 0);
    expect(even).toHaveLength(500);
    expect(even.every((i) => i % 2 === 0)).toBe(true);
  });
});

describe("irt-router calibrate arguments", () => {
  const parse = (v: Record<string, unknown>) => parseWith(command.schema, v, "options");

  it("accepts a replay run with defaults", () => {
    const a = parse({ model: "m", budget: "40", replay: "Yi-34B" });
    expect(a).toMatchObject({
      model: "m",
      budget: 40,
      probes: "mmlu-pro-29models",
      strategy: "accuracy",
      "bank-size": 1000,
    });
  });

  it("needs exactly one answer source and a positive budget", () => {
    expect(() => parse({ model: "m", budget: "40" })).toThrow(/exactly one of --replay/);
    expect(() => parse({ model: "m", budget: "40", replay: "x", endpoint: "http://localhost:8000/v1" })).toThrow(
      ValidationError,
    );
    expect(() => parse({ model: "m", budget: "0", replay: "x" })).toThrow(/options\.budget/);
    expect(() => parse({ model: "m", budget: "5", endpoint: "not a url" })).toThrow(/options\.endpoint/);
    expect(() => parse({ model: "m", budget: "5", replay: "x", strategy: "greedy" })).toThrow(/options\.strategy/);
  });
});
