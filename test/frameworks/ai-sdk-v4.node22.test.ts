import { generateText, stepCountIs, streamText, tool } from "ai-v7";
import { MockLanguageModelV4, simulateReadableStream } from "ai-v7/test";
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider-v4";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createIrtRouterModel, irtPrepareStep, IrtRouterModelV4 } from "../../src/ai-sdk/index.js";
import { stepCostUsd } from "../../src/policy/index.js";
import { ValidationError } from "../../src/errors.js";
import { PRICES, toyRouting } from "./helpers.js";

/**
 * The AI SDK 7 face (Node 22: `ai` 7 needs it): `createIrtRouterModel` over `MockLanguageModelV4` children returns a
 * `LanguageModelV4` that `ai` 7's `generateText` runs. The toy scorer with the quality policy ranks gpt-4 first,
 * then mixtral, then mistral.
 */
const GPT4 = { ...PRICES["gpt-4"], cachedInputPer1M: 1 };

const usage = (input: number, output: number, cacheRead = 0): LanguageModelV4Usage => ({
  inputTokens: { total: input, noCache: input - cacheRead, cacheRead, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});
const call = (id: string, city: string): LanguageModelV4Content => ({
  type: "tool-call",
  toolCallId: id,
  toolName: "weather",
  input: JSON.stringify({ city }),
});

/** A tool loop's replies, step k to whichever child serves it: three tool calls then the answer. */
function script(failing: ReadonlySet<string> = new Set()) {
  const replies: { content: LanguageModelV4Content[]; usage: LanguageModelV4Usage }[] = [
    { content: [call("c1", "Paris")], usage: usage(10_000, 100) },
    { content: [call("c2", "Lyon")], usage: usage(10_000, 100, 8000) },
    { content: [call("c3", "Nice")], usage: usage(10_000, 100, 9000) },
    { content: [{ type: "text", text: "Sunny in all three." }], usage: usage(10_000, 100, 9500) },
  ];
  let step = 0;
  const served: string[] = [];
  const prompts: LanguageModelV4CallOptions["prompt"][] = [];
  const child = (id: string) =>
    new MockLanguageModelV4({
      modelId: id,
      doGenerate: async (options) => {
        if (failing.has(id)) throw new Error(`${id} is down`);
        prompts.push(options.prompt);
        const reply = replies[Math.min(step++, replies.length - 1)]!;
        served.push(id);
        const calls = reply.content.some((c) => c.type === "tool-call");
        return {
          content: reply.content,
          finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined },
          usage: reply.usage,
          warnings: [],
        };
      },
    });
  const router = createIrtRouterModel({
    models: {
      "gpt-4": { model: child("gpt-4"), price: GPT4 },
      mixtral: { model: child("mixtral"), price: PRICES.mixtral },
      mistral: { model: child("mistral"), price: PRICES.mistral },
    },
    ...toyRouting(),
  });
  return { router, served, prompts };
}

const weather = tool({
  description: "Current weather of a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => `21°C and sunny in ${city}`,
});

const meta = (m: unknown) => (m as Record<string, Record<string, any>> | undefined)?.["irt-router"] ?? {};

describe("createIrtRouterModel with LanguageModelV4 children (ai 7)", () => {
  it("is a LanguageModelV4 that routes every step of a 4-step generateText tool loop, each decision in the step's providerMetadata", async () => {
    const { router, served } = script();
    expect(router).toBeInstanceOf(IrtRouterModelV4);
    expect(router.specificationVersion).toBe("v4");
    const result = await generateText({
      model: router,
      tools: { weather },
      prompt: "Weather in Paris, Lyon and Nice?",
      stopWhen: stepCountIs(6),
      providerOptions: { "irt-router": { runId: "v4-run" } },
    });
    expect(result.steps).toHaveLength(4);
    expect(result.text).toBe("Sunny in all three.");
    expect(served).toEqual(["gpt-4", "gpt-4", "gpt-4", "gpt-4"]);
    const steps = result.steps.map((s) => meta(s.providerMetadata));
    expect(steps.map((s) => [s.chosen, s.runId])).toEqual(Array(4).fill(["gpt-4", "v4-run"]));
    expect(new Set(steps.map((s) => s.decisionId)).size).toBe(4);
    expect(await router.feedback("v4-run", true, { source: "grader" })).toHaveLength(4);
  });

  it("bills the cache-read tokens the provider reports at the cached-input price (realized cost)", async () => {
    const { router } = script();
    const result = await generateText({
      model: router,
      tools: { weather },
      prompt: "Weather in Paris, Lyon and Nice?",
      stopWhen: stepCountIs(6),
      providerOptions: { "irt-router": { runId: "v4-cache" } },
    });
    const second = meta(result.steps[1]!.providerMetadata);
    expect(second).toMatchObject({ costSource: "usage", inputTokens: 10_000, cacheReadTokens: 8000 });
    expect(second.realizedCostUsd).toBeCloseTo(
      stepCostUsd({ contextTokens: 10_000, cachedTokens: 8000, outputTokens: 100, price: GPT4 }),
      12,
    );
    const decision = router.decisions().find((d) => d.decisionId === second.decisionId)!;
    expect(decision.realized).toMatchObject({ source: "usage", cacheReadTokens: 8000 });
  });

  it("falls back when a child throws: the next model serves and the failed try is in the decision", async () => {
    const { router, served } = script(new Set(["gpt-4"]));
    const result = await generateText({ model: router, tools: { weather }, prompt: "Weather in Paris?" });
    expect(served).toEqual(["mixtral"]);
    const step = meta(result.providerMetadata);
    expect(step.chosen).toBe("mixtral");
    expect(step.fallbackFrom).toBe("gpt-4");
    const decision = router.decisions().at(-1)!;
    expect(decision.attempts.map((a) => [a.id, a.ok, a.error])).toEqual([
      ["gpt-4", false, "Error: gpt-4 is down"],
      ["mixtral", true, undefined],
    ]);
  });

  it("routes each step through irtPrepareStep with planned LanguageModelV4s", async () => {
    const { router, served, prompts } = script();
    const prepared: string[] = [];
    const prepare = irtPrepareStep(router, { runId: "v4-prepare", needs: { tools: true } });
    const result = await generateText({
      model: router,
      tools: { weather },
      prompt: "Weather in Paris, Lyon and Nice?",
      stopWhen: stepCountIs(6),
      prepareStep: async (input) => {
        const step = await prepare(input);
        prepared.push(step.model.specificationVersion);
        return step;
      },
    });
    expect(result.steps).toHaveLength(4);
    expect(prepared).toEqual(["v4", "v4", "v4", "v4"]);
    expect(served).toHaveLength(4);
    expect(router.decisions().map((d) => d.runId)).toEqual(Array(4).fill("v4-prepare"));
    // the third step's prompt carries the router's tags of the earlier replies (which model wrote them)
    const assistant = prompts[2]!.filter((m) => m.role === "assistant");
    expect(assistant).toHaveLength(2);
    expect(JSON.stringify(assistant)).toContain('"irt-router":{"model":"gpt-4"');
  });

  it("falls back when a child's stream pings (a keep-alive, no output) then errors before any output", async () => {
    const streaming = (id: string, parts: LanguageModelV4StreamPart[]) =>
      new MockLanguageModelV4({
        modelId: id,
        doStream: async () => ({ stream: simulateReadableStream({ chunks: parts }) }),
      });
    const router = createIrtRouterModel({
      models: {
        "gpt-4": streaming("gpt-4", [
          { type: "stream-start", warnings: [] },
          { type: "ping" },
          { type: "error", error: new Error("overloaded (529)") },
        ]),
        mixtral: streaming("mixtral", [
          { type: "stream-start", warnings: [] },
          { type: "ping" },
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "from mixtral" },
          { type: "text-end", id: "t" },
          { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: usage(100, 10) },
        ]),
      },
      ...toyRouting(),
    });
    const result = streamText({ model: router, prompt: "What is 2+2?", maxRetries: 0 });
    expect(await result.text).toBe("from mixtral");
    expect(meta(await result.providerMetadata)).toMatchObject({ chosen: "mixtral", tried: ["gpt-4", "mixtral"] });
    expect(
      router
        .decisions()
        .at(-1)!
        .attempts.map((a) => [a.id, a.ok, a.error]),
    ).toEqual([
      ["gpt-4", false, "Error: overloaded (529)"],
      ["mixtral", true, undefined],
    ]);
  });

  it("passes a URL every V4 child reads itself (its supportedUrls) to the child as a URL", async () => {
    const reader = (id: string) =>
      new MockLanguageModelV4({
        modelId: id,
        supportedUrls: { "application/pdf": [/^gs:\/\//] },
        doGenerate: async (options) => {
          // LanguageModelV4's file data is tagged: { type: "url", url } for a URL passed as it is
          const file = (options.prompt[0]!.content as { type: string; data?: { type: string; url?: URL } }[]).find(
            (p) => p.type === "file",
          );
          const got = file?.data?.type === "url" ? `URL ${file.data.url!.href}` : (file?.data?.type ?? "none");
          return {
            content: [{ type: "text", text: got }],
            finishReason: { unified: "stop", raw: undefined },
            usage: usage(100, 10),
            warnings: [],
          };
        },
      });
    const router = createIrtRouterModel({
      models: { "gpt-4": reader("gpt-4"), mixtral: reader("mixtral") },
      ...toyRouting(),
    });
    expect(await router.supportedUrls).toEqual({ "application/pdf": [/^gs:\/\//] });
    const result = await generateText({
      model: router,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Summarize" },
            { type: "file", data: new URL("gs://bucket/report.pdf"), mediaType: "application/pdf" },
          ],
        },
      ],
    });
    expect(result.text).toBe("URL gs://bucket/report.pdf");
  });

  it("refuses children of both versions together", () => {
    const v3Like = { specificationVersion: "v3", provider: "p", modelId: "a", supportedUrls: {} };
    const v4 = new MockLanguageModelV4({ modelId: "b" });
    expect(() => createIrtRouterModel({ models: { a: v3Like, b: v4 } } as never)).toThrow(ValidationError);
  });
});
