/**
 * Each settled call's decision record: realized cost from the usage the provider reported (cache reads and writes
 * included), the decision log written by `decisionSink` / `decisionLogFile` and read by `irt-router report
 * --decisions`, fallbacks, and shadow mode.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { fakeModel } from "@langchain/core/testing";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { IrtRouter, routeDecisionOf, type DecisionRecord } from "../../../src/langchain/index.js";
import { decisionLogFile } from "../../../adapters/report/decision-log-file.js";
import { parseDecisions } from "../../../src/report/inputs.js";
import { buildFigures } from "../../../src/report/build.js";
import { ValidationError } from "../../../src/errors.js";
import { ToyScorer, quietLogger } from "../../langchain/helpers.js";

/** Usage as an Anthropic-style provider reports it through LangChain: input includes cache reads and writes. */
const USAGE = {
  input_tokens: 1000,
  output_tokens: 100,
  total_tokens: 1100,
  input_token_details: { cache_read: 800, cache_creation: 100 },
};
const PRICE = { inputPer1M: 3, outputPer1M: 15, cachedInputPer1M: 0.3 };
/** (200 x 3 + 800 x 0.3 + 100 x 15) / 1e6: cache writes at the input price, cache reads at the cached price. */
const REALIZED = (200 * 3 + 800 * 0.3 + 100 * 15) / 1e6;

/** A child that reports USAGE, whole on invoke and split over two chunks when streamed. */
class CachingProvider extends BaseChatModel {
  _llmType() {
    return "caching-provider";
  }
  async _generate(): Promise<ChatResult> {
    const message = new AIMessage({ content: "answer", usage_metadata: USAGE });
    return { generations: [{ message, text: "answer" }] };
  }
  override async *_streamResponseChunks(): AsyncGenerator<ChatGenerationChunk> {
    yield new ChatGenerationChunk({ text: "ans", message: new AIMessageChunk({ content: "ans" }) });
    yield new ChatGenerationChunk({
      text: "wer",
      message: new AIMessageChunk({ content: "wer", usage_metadata: USAGE }),
    });
  }
}

const failing = () => fakeModel().alwaysThrow(new Error("503 overloaded"));
const router = (models: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  new IrtRouter({ models: models as never, scorer: new ToyScorer(), logger: quietLogger(), ...extra });

describe("realized cost", () => {
  it("from the reported usage: input, output, cache reads (cached price) and writes, on invoke and on a stream", async () => {
    const records: DecisionRecord[] = [];
    const r = router(
      { "gpt-4-1106-preview": { model: new CachingProvider({}), price: PRICE } },
      { decisionSink: (rec: DecisionRecord) => void records.push(rec) },
    );
    const reply = await r.invoke("What is 2+2?", { metadata: { irtRouterTask: "maths" } });
    expect(routeDecisionOf(reply)!.realized).toEqual({
      costUsd: REALIZED,
      source: "usage",
      inputTokens: 1000,
      outputTokens: 100,
      cacheReadTokens: 800,
      cacheWriteTokens: 100,
    });
    for await (const _ of await r.stream("And 3+3?")) void _;
    expect(records).toHaveLength(2);
    for (const rec of records) {
      expect(rec).toMatchObject({
        model: "gpt-4-1106-preview",
        realizedCostUsd: REALIZED,
        costSource: "usage",
        cacheReadTokens: 800,
        cacheWriteTokens: 100,
        answered: true,
        tried: ["gpt-4-1106-preview"],
      });
      expect(rec.expectedCostUsd).toBeGreaterThan(0);
      expect(rec).not.toHaveProperty("fallbackFrom");
    }
    expect(records[0]!.category).toBe("maths");
    expect(records[1]!.category).toBe("uncategorised");
  });

  it("without reported usage, the estimate stands in, and says so", async () => {
    const records: DecisionRecord[] = [];
    await router(
      { "mistral-7b-chat": new FakeListChatModel({ responses: ["x"] }) },
      { decisionSink: (rec: DecisionRecord) => void records.push(rec) },
    ).invoke("hi");
    expect(records[0]).toMatchObject({ costSource: "estimate", realizedCostUsd: records[0]!.expectedCostUsd });
  });
});

describe("the decision log", () => {
  it("decisionLogFile writes JSON lines that irt-router report --decisions reads, with the cost figure", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "decisions-")), "logs", "decisions.jsonl");
    const r = router(
      {
        "gpt-4-1106-preview": failing(),
        "mixtral-8x7b-chat": { model: new CachingProvider({}), price: PRICE },
      },
      { decisionSink: decisionLogFile(file) },
    );
    await r.invoke("What is 2+2?");
    await r.invoke("What is 3+3?");
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(lines).toHaveLength(2);
    const first = JSON.parse(lines[0]!) as DecisionRecord;
    expect(first).toMatchObject({
      model: "mixtral-8x7b-chat",
      fallbackFrom: "gpt-4-1106-preview",
      tried: ["gpt-4-1106-preview", "mixtral-8x7b-chat"],
      realizedCostUsd: REALIZED,
    });
    const { decisions } = parseDecisions(readFileSync(file, "utf8"), file);
    expect(decisions.rows[0]).toEqual({
      model: "mixtral-8x7b-chat",
      category: "uncategorised",
      expectedCostUsd: first.expectedCostUsd,
      realizedCostUsd: REALIZED,
      fallbackFrom: "gpt-4-1106-preview",
    });
    const { figures } = buildFigures({ scorerName: "test", abilities: [], decisions });
    const costs = figures.find((f) => f.id === "decision-costs")!;
    expect(costs.caption).toMatch(/Fallbacks: 2 of 2 calls/);
    expect(figures.map((f) => f.id)).toContain("routing-share");
  });

  it("a call every model failed is logged too, unanswered; a sink that throws is warned about once, never fails a call", async () => {
    const records: DecisionRecord[] = [];
    await expect(
      router(
        { "mistral-7b-chat": failing() },
        { decisionSink: (rec: DecisionRecord) => void records.push(rec) },
      ).invoke("hi"),
    ).rejects.toThrow(/503/);
    expect(records).toEqual([expect.objectContaining({ answered: false, tried: ["mistral-7b-chat"] })]);
    const logger = quietLogger();
    const r = new IrtRouter({
      models: { "mistral-7b-chat": new FakeListChatModel({ responses: ["ok"] }) },
      scorer: new ToyScorer(),
      logger,
      decisionSink: () => {
        throw new Error("disk full");
      },
    });
    expect((await r.invoke("a")).text).toBe("ok");
    expect((await r.invoke("b")).text).toBe("ok");
    expect(logger.messages.filter((m) => m.includes("disk full"))).toHaveLength(1);
  });
});

describe("shadow mode", () => {
  it("the fixed model answers; the router's choice and its expected cost are logged beside it", async () => {
    const records: DecisionRecord[] = [];
    const served = new FakeListChatModel({ responses: ["from the fixed model"] });
    const r = router(
      { "gpt-4-1106-preview": new FakeListChatModel({ responses: ["from gpt-4"] }), "mistral-7b-chat": served },
      { shadow: { serve: "mistral-7b-chat" }, decisionSink: (rec: DecisionRecord) => void records.push(rec) },
    );
    const reply = await r.invoke("Prove that sqrt(2) is irrational.");
    expect(reply.text).toBe("from the fixed model");
    const decision = routeDecisionOf(reply)!;
    expect(decision).toMatchObject({ chosen: "mistral-7b-chat", shadow: { chosen: "gpt-4-1106-preview" } });
    const routed = decision.candidates.find((c) => c.id === "gpt-4-1106-preview")!;
    expect(records[0]).toMatchObject({
      model: "mistral-7b-chat",
      routed: "gpt-4-1106-preview",
      routedP: routed.p,
      routedExpectedCostUsd: routed.expectedCost,
    });
    const { decisions } = parseDecisions(records.map((x) => JSON.stringify(x)).join("\n"), "shadow");
    const { figures } = buildFigures({ scorerName: "test", abilities: [], decisions });
    expect(figures.find((f) => f.id === "decision-costs")!.caption).toMatch(/router's choices \(shadow\)/);
  });

  it("a shadow model that is not registered is a ValidationError naming the option", () => {
    expect(() => router({ "mistral-7b-chat": failing() }, { shadow: { serve: "gpt-5" } })).toThrow(ValidationError);
    expect(() => router({ "mistral-7b-chat": failing() }, { shadow: { serve: "gpt-5" } })).toThrow(
      /options.shadow.serve "gpt-5" is not a registered model/,
    );
  });
});
