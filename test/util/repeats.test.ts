import { describe, expect, it } from "vitest";
import { firstRepeat } from "../../src/util/repeats.js";

describe("firstRepeat", () => {
  it("gives the first value seen again, with both positions", () => {
    expect(firstRepeat(["a", "b", "c", "b", "a"])).toEqual({ first: 1, at: 3, value: "b" });
    expect(firstRepeat([1, 2, 3])).toBeUndefined();
    expect(firstRepeat([])).toBeUndefined();
  });
});
