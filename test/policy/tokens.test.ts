import { describe, expect, it } from "vitest";
import { getEncoding } from "js-tiktoken";
import { estimateTokens } from "../../src/policy/tokens.js";
import { ValidationError } from "../../src/errors.js";

const samples = [
  "What is the capital of France?",
  'Write a python function to find the first repeated character in a given string.\nassert first_repeated_char("abcabc") == "a"',
  "The trophy doesn't fit into the brown suitcase because the _ is too large.\nOption1: trophy\nOption2: suitcase",
  "Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. How much in dollars does she make every day at the farmers' market?",
  "下列关于中国古代科举制度的说法，正确的是\nA. 始于唐朝\nB. 始于隋朝\nC. 始于宋朝\nD. 始于汉朝",
  "def f(x):\n    return [i ** 2 for i in range(x) if i % 3 == 0]\n",
];

describe("estimateTokens", () => {
  it("returns 0 for empty text and a positive integer otherwise", () => {
    expect(estimateTokens("")).toBe(0);
    for (const s of samples) {
      const n = estimateTokens(s);
      expect(Number.isInteger(n)).toBe(true);
      expect(n).toBeGreaterThan(0);
    }
  });

  it("lands within 30% of cl100k_base on English, code and Chinese samples", () => {
    const enc = getEncoding("cl100k_base");
    for (const s of samples) {
      const real = enc.encode(s).length;
      const rel = Math.abs(estimateTokens(s) - real) / real;
      expect(rel, `${s.slice(0, 30)}: est ${estimateTokens(s)} real ${real}`).toBeLessThan(0.3);
    }
  });

  it("grows with the text", () => {
    expect(estimateTokens(samples[3]!.repeat(4))).toBeGreaterThan(3 * estimateTokens(samples[3]!));
  });

  it("rejects non-strings with a typed error", () => {
    expect(() => estimateTokens(42 as never)).toThrow(ValidationError);
    expect(() => estimateTokens(null as never)).toThrow(/got null/);
  });
});
