import { describe, expect, it } from "vitest";
import { stepCostUsd, expectedCostUsd } from "../../src/policy/expected-cost.js";
import { cachedInputRule, withCachedInputPrice, DEFAULT_CACHE_LIFETIME_MS } from "../../src/policy/cached-input.js";
import { modelPriceSchema } from "../../src/policy/price-schema.js";
import { ROUTERBENCH_PRICES } from "../../src/policy/prices.js";
import { MODEL_ALIASES } from "../../src/scorer/aliases.js";
import { parseWith } from "../../src/util/validate.js";
import { ValidationError } from "../../src/errors.js";

describe("stepCostUsd", () => {
  const price = { inputPer1M: 3, outputPer1M: 15, cachedInputPer1M: 0.3 };

  it("bills cached tokens at the cached-input price and the rest at the input price", () => {
    expect(stepCostUsd({ contextTokens: 10_000, cachedTokens: 8_000, outputTokens: 200, price })).toBeCloseTo(
      0.0114,
      12,
    );
    expect(stepCostUsd({ contextTokens: 10_000, outputTokens: 200, price })).toBeCloseTo(0.033, 12);
    expect(stepCostUsd({ contextTokens: 10_000, cachedTokens: 10_000, outputTokens: 0, price })).toBeCloseTo(0.003, 12);
  });

  it("gives no discount when the price has no cached-input price", () => {
    const plain = { inputPer1M: 3, outputPer1M: 15 };
    expect(stepCostUsd({ contextTokens: 1000, cachedTokens: 900, outputTokens: 10, price: plain })).toBeCloseTo(
      stepCostUsd({ contextTokens: 1000, outputTokens: 10, price: plain }),
      15,
    );
  });

  it("is what expectedCostUsd computes with nothing cached", () => {
    expect(stepCostUsd({ contextTokens: 500, outputTokens: 100, price })).toBe(
      expectedCostUsd({ inputTokens: 500, expectedOutputTokens: 100, price }),
    );
  });

  it("names the bad field", () => {
    expect(() => stepCostUsd({ contextTokens: 10, cachedTokens: 11, outputTokens: 0, price })).toThrow(/cachedTokens/);
    expect(() => stepCostUsd({ contextTokens: 10, cachedTokens: -1, outputTokens: 0, price })).toThrow(/cachedTokens/);
    expect(() => stepCostUsd({ contextTokens: Number.NaN, outputTokens: 0, price })).toThrow(/contextTokens/);
    expect(() => stepCostUsd({ contextTokens: 1, outputTokens: 0, price: { ...price, cachedInputPer1M: 4 } })).toThrow(
      /price\.cachedInputPer1M.*cannot exceed/,
    );
    try {
      stepCostUsd({ contextTokens: 1, outputTokens: 0, price: { ...price, cachedInputPer1M: -1 } });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).path).toBe("price.cachedInputPer1M");
    }
  });
});

describe("cached-input defaults per family", () => {
  it.each([
    ["claude-3-5-sonnet-20241022", 0.1],
    ["anthropic/claude-3-haiku-20240307", 0.1],
    ["claude-sonnet-4-5", 0.1],
    ["claude-v2", 1],
    ["claude-instant-v1", 1],
    ["claude-2.1", 1],
    ["gpt-5-mini", 0.1],
    ["gpt-4.1-nano", 0.25],
    ["o3", 0.25],
    ["o4-mini", 0.25],
    ["o3-mini", 0.5],
    ["gpt-4o-mini", 0.5],
    ["openai/gpt-4o-2024-08-06", 0.5],
    ["gpt-4o-2024-05-13", 1],
    ["o1", 0.5],
    ["gpt-4-1106-preview", 1],
    ["gpt-4-turbo", 1],
    ["gpt-3.5-turbo-1106", 1],
    ["mistralai/mixtral-8x7b-chat", 1],
    ["meta/llama-2-70b-chat", 1],
  ])("%s: cached input at %s of the input price", (id, share) => {
    expect(cachedInputRule(id).share).toBe(share);
  });

  it("fills the default in and keeps a price's own cached-input price", () => {
    expect(withCachedInputPrice("claude-3-haiku", { inputPer1M: 0.25, outputPer1M: 1.25 })).toEqual({
      inputPer1M: 0.25,
      outputPer1M: 1.25,
      cachedInputPer1M: 0.025,
    });
    expect(
      withCachedInputPrice("claude-3-haiku", { inputPer1M: 1, outputPer1M: 2, cachedInputPer1M: 0.7 }).cachedInputPer1M,
    ).toBe(0.7);
    expect(withCachedInputPrice("gpt-4-1106-preview", { inputPer1M: 10, outputPer1M: 30 }).cachedInputPer1M).toBe(10);
    expect(withCachedInputPrice("x", undefined)).toBeUndefined();
  });

  it("defaults the cache lifetime to Anthropic's 5 minutes", () => {
    expect(DEFAULT_CACHE_LIFETIME_MS).toBe(300_000);
  });
});

describe("price validation", () => {
  it("accepts a cached-input price up to the input price and names a bad one", () => {
    expect(parseWith(modelPriceSchema, { inputPer1M: 2, outputPer1M: 8, cachedInputPer1M: 0.5 }, "price")).toEqual({
      inputPer1M: 2,
      outputPer1M: 8,
      cachedInputPer1M: 0.5,
    });
    expect(() => parseWith(modelPriceSchema, { inputPer1M: 2, outputPer1M: 8, cachedInputPer1M: 3 }, "price")).toThrow(
      /price\.cachedInputPer1M: must not exceed inputPer1M/,
    );
    expect(() => parseWith(modelPriceSchema, { inputPer1M: 2, outputPer1M: 8, cachedInputPer1m: 1 }, "price")).toThrow(
      /did you mean "cachedInputPer1M"/,
    );
  });

  it("every list price passes it and carries its family default", () => {
    const prices = [
      ...Object.entries(ROUTERBENCH_PRICES),
      ...MODEL_ALIASES.flatMap((m) => (m.price ? [[m.id, m.price] as const] : [])),
    ];
    for (const [id, price] of prices) {
      expect(() => parseWith(modelPriceSchema, price, id)).not.toThrow();
    }
    for (const [id, price] of Object.entries(ROUTERBENCH_PRICES)) {
      expect(price.cachedInputPer1M).toBe(price.inputPer1M * cachedInputRule(id).share);
    }
  });
});
