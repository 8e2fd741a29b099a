import { describe, expect, it } from "vitest";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { IrtRouter } from "../../src/langchain/router.js";
import { ValidationError } from "../../src/errors.js";
import { ToyScorer } from "./helpers.js";

describe("cached-input prices in the router options", () => {
  it("accepts cachedInputPer1M and rejects one above the input price, naming the field", () => {
    const model = new FakeListChatModel({ responses: ["x"] });
    const price = { inputPer1M: 3, outputPer1M: 15, cachedInputPer1M: 0.3 };
    expect(() => new IrtRouter({ models: { a: { model, price } }, scorer: new ToyScorer() })).not.toThrow();
    try {
      new IrtRouter({ models: { a: { model, price: { ...price, cachedInputPer1M: 4 } } }, scorer: new ToyScorer() });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).path).toBe("options.models.a.price.cachedInputPer1M");
    }
  });
});
