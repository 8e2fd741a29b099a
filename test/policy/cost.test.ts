import { describe, expect, it } from "vitest";
import { expectedCostUsd } from "../../src/policy/expected-cost.js";
import { ROUTERBENCH_PRICES, listPrice } from "../../src/policy/prices.js";
import { modelPriceSchema } from "../../src/policy/price-schema.js";
import { ValidationError } from "../../src/errors.js";

describe("expectedCostUsd", () => {
  it("prices input and output tokens per 1M", () => {
    const price = { inputPer1M: 10, outputPer1M: 30 };
    expect(expectedCostUsd({ inputTokens: 500, expectedOutputTokens: 100, price })).toBeCloseTo(0.008, 15);
    expect(expectedCostUsd({ inputTokens: 0, expectedOutputTokens: 0, price })).toBe(0);
  });

  it("names the bad field", () => {
    const price = { inputPer1M: 1, outputPer1M: 2 };
    expect(() => expectedCostUsd({ inputTokens: -1, expectedOutputTokens: 0, price })).toThrow(/inputTokens/);
    expect(() => expectedCostUsd({ inputTokens: 1, expectedOutputTokens: NaN, price })).toThrow(/expectedOutputTokens/);
    expect(() =>
      expectedCostUsd({ inputTokens: 1, expectedOutputTokens: 1, price: { inputPer1M: 1, outputPer1M: -2 } }),
    ).toThrow(/price\.outputPer1M/);
    expect(() => expectedCostUsd({ inputTokens: 1, expectedOutputTokens: 1, price: undefined as never })).toThrow(
      ValidationError,
    );
  });
});

describe("RouterBench list prices", () => {
  it("covers the 11 RouterBench models", () => {
    expect(Object.keys(ROUTERBENCH_PRICES).sort()).toEqual(
      [
        "gpt-4-1106-preview",
        "gpt-3.5-turbo-1106",
        "claude-v1",
        "claude-v2",
        "claude-instant-v1",
        "meta/llama-2-70b-chat",
        "meta/code-llama-instruct-34b-chat",
        "mistralai/mixtral-8x7b-chat",
        "mistralai/mistral-7b-chat",
        "WizardLM/WizardLM-13B-V1.2",
        "zero-one-ai/Yi-34B-Chat",
      ].sort(),
    );
    for (const p of Object.values(ROUTERBENCH_PRICES)) {
      expect(p.inputPer1M).toBeGreaterThan(0);
      expect(p.outputPer1M).toBeGreaterThanOrEqual(p.inputPer1M);
    }
  });

  it("every price is a valid price (the table is code, checked here rather than parsed at import)", () => {
    for (const [id, price] of Object.entries(ROUTERBENCH_PRICES)) {
      expect(modelPriceSchema.safeParse(price).success, id).toBe(true);
      expect(Object.isFrozen(price), id).toBe(true);
    }
    expect(modelPriceSchema.safeParse({ inputPer1M: -1, outputPer1M: 1 }).success).toBe(false);
  });

  it("looks prices up by id, case-insensitively and by the name after the provider", () => {
    expect(listPrice("gpt-4-1106-preview")).toEqual({ inputPer1M: 10, outputPer1M: 30, cachedInputPer1M: 10 });
    expect(listPrice("WIZARDLM/wizardlm-13b-v1.2")).toEqual(ROUTERBENCH_PRICES["WizardLM/WizardLM-13B-V1.2"]);
    expect(listPrice("mixtral-8x7b-chat")).toEqual(ROUTERBENCH_PRICES["mistralai/mixtral-8x7b-chat"]);
    expect(listPrice("unknown-model")).toBeUndefined();
    expect(listPrice("toString")).toBeUndefined();
  });
});
