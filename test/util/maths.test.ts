import { describe, expect, it } from "vitest";
import { logit, sigmoid } from "../../src/util/maths.js";

describe("logit", () => {
  it("inverts sigmoid inside the clip and is finite at 0 and 1", () => {
    for (const p of [0.01, 0.3, 0.5, 0.9]) expect(sigmoid(logit(p, 1e-6))).toBeCloseTo(p, 12);
    expect(logit(0.5, 1e-4)).toBe(0);
    expect(logit(1, 1e-4)).toBeCloseTo(Math.log(9999), 9);
    expect(logit(0, 0.01)).toBeCloseTo(-Math.log(99), 9);
    expect(logit(-3, 0.01)).toBe(logit(0, 0.01));
  });
});
