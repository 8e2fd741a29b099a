import { describe, expect, it } from "vitest";
import { OutputTokenTracker } from "../../src/policy/output-tokens.js";
import { ValidationError } from "../../src/errors.js";

describe("OutputTokenTracker", () => {
  it("starts at the prior and shrinks the observed mean toward it by the prior's weight", () => {
    const t = new OutputTokenTracker(256, 4);
    expect(t.estimate).toBe(256);
    t.observe(40);
    t.observe(60);
    expect(t.observed).toBe(2);
    expect(t.estimate).toBeCloseTo((4 * 256 + 100) / 6, 12);
    const plain = new OutputTokenTracker(256, 0);
    expect(plain.estimate).toBe(256);
    plain.observe(10);
    plain.observe(30);
    expect(plain.estimate).toBe(20);
  });

  it("ignores non-finite or negative lengths (reported as false) and rejects a bad prior", () => {
    const t = new OutputTokenTracker(100, 1);
    expect(t.observe(Number.NaN)).toBe(false);
    expect(t.observe(-3)).toBe(false);
    expect(t.observed).toBe(0);
    expect(t.estimate).toBe(100);
    expect(() => new OutputTokenTracker(-1, 1)).toThrow(ValidationError);
    expect(() => new OutputTokenTracker(10, Number.POSITIVE_INFINITY)).toThrow(ValidationError);
  });
});
