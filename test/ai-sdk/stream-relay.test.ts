import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { generateText, simulateReadableStream, streamText } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { createIrtRouterModel } from "../../src/ai-sdk/index.js";
import { openStream } from "../../src/ai-sdk/stream-relay.js";
import { ModelFaultError } from "../../src/errors.js";
import { ToyScorer, quietLogger } from "../langchain/helpers.js";
import { usage } from "./mocks.js";

const answer = (text: string): LanguageModelV3StreamPart[] => [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: text },
  { type: "text-end", id: "t" },
  { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: usage(2000, 10) },
];
const streaming = (id: string, parts: readonly LanguageModelV3StreamPart[]) =>
  new MockLanguageModelV3({
    modelId: id,
    doStream: async () => ({ stream: simulateReadableStream({ chunks: [...parts] }) }),
  });
const routing = {
  scorer: new ToyScorer(),
  policy: { kind: "quality" as const },
  logger: quietLogger(),
  tracing: false,
};
const meta = (m: Record<string, Record<string, unknown>> | undefined) => m?.["irt-router"] as Record<string, any>;

/** Every part type of LanguageModelV3StreamPart and LanguageModelV4StreamPart that carries no output. */
const NO_OUTPUT: LanguageModelV3StreamPart[] = [
  { type: "stream-start", warnings: [] },
  { type: "response-metadata", id: "r1", modelId: "gpt-4" },
  { type: "raw", rawValue: { keepAlive: true } },
  { type: "ping" } as unknown as LanguageModelV3StreamPart, // LanguageModelV4's keep-alive (ai 7)
];

describe("a child's stream under the router", () => {
  it("falls back when the chosen child's stream ends before any output, and records that try as failed", async () => {
    const model = createIrtRouterModel({
      models: {
        "gpt-4": streaming("gpt-4", [{ type: "stream-start", warnings: [] }]),
        mixtral: streaming("mixtral", []),
        mistral: streaming("mistral", answer("It is 21C.")),
      },
      ...routing,
    });
    const result = streamText({ model, prompt: "Weather in Paris?", maxRetries: 0 });
    expect(await result.text).toBe("It is 21C.");
    expect(meta(await result.providerMetadata)).toMatchObject({
      chosen: "mistral",
      reason: "fallback",
      tried: ["gpt-4", "mixtral", "mistral"],
      costSource: "usage",
    });
    const decision = model.decisions()[0]!;
    expect(decision.attempts.map((a) => [a.id, a.ok, a.error])).toEqual([
      ["gpt-4", false, expect.stringMatching(/"gpt-4"'s stream ended before any output \(after stream-start\)/)],
      ["mixtral", false, expect.stringMatching(/"mixtral"'s stream ended before any output\.$/)],
      ["mistral", true, undefined],
    ]);
  });

  it("fails the call with a ModelFaultError when every child's stream ends before any output", async () => {
    const model = createIrtRouterModel({
      models: { "gpt-4": streaming("gpt-4", []), mixtral: streaming("mixtral", [NO_OUTPUT[0]!]) },
      ...routing,
    });
    const errors: unknown[] = [];
    const result = streamText({
      model,
      prompt: "Weather in Paris?",
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    await result.consumeStream();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ModelFaultError);
    expect(errors[0]).toMatchObject({ code: "MODEL_FAULT", details: { model: "mixtral", kind: "reply" } });
    const decision = model.decisions()[0]!;
    expect(decision.attempts.map((a) => [a.id, a.ok])).toEqual([
      ["gpt-4", false],
      ["mixtral", false],
    ]);
    expect(decision.realized).toBeUndefined(); // no estimated cost recorded as if it had answered
  });

  it.each(NO_OUTPUT.map((p) => [p.type, p] as const))(
    "reads past a %s part: a child that sends it, then an error, falls back",
    async (_type, part) => {
      const erroring = streaming("gpt-4", [part, { type: "error", error: new Error("overloaded (529)") }]);
      await expect(openStream(erroring, "gpt-4", { prompt: [] })).rejects.toThrow("overloaded (529)");
      const model = createIrtRouterModel({
        models: { "gpt-4": erroring, mixtral: streaming("mixtral", answer("from mixtral")) },
        ...routing,
      });
      const result = streamText({ model, prompt: "Weather in Paris?", maxRetries: 0 });
      expect(await result.text).toBe("from mixtral");
      expect(meta(await result.providerMetadata)).toMatchObject({ chosen: "mixtral", tried: ["gpt-4", "mixtral"] });
    },
  );

  it("commits to the child at its first output part, with the parts read before it relayed", async () => {
    const opened = await openStream(streaming("gpt-4", [...NO_OUTPUT, ...answer("hi").slice(1)]), "gpt-4", {
      prompt: [],
    });
    expect(opened.buffered.map((p) => p.type)).toEqual([...NO_OUTPUT.map((p) => p.type), "text-start"]);
    await opened.reader.cancel();
  });
});

describe("a child's reply with no output and finish reason error", () => {
  const errorFinish = {
    type: "finish",
    finishReason: { unified: "error", raw: "MALFORMED_FUNCTION_CALL" },
    usage: usage(2000, 0),
  } as const;

  it("falls back when a stream's first output part is a finish with reason error", async () => {
    const model = createIrtRouterModel({
      models: {
        "gpt-4": streaming("gpt-4", [{ type: "stream-start", warnings: [] }, errorFinish]),
        mixtral: streaming("mixtral", answer("It is 21C.")),
      },
      ...routing,
    });
    const result = streamText({ model, prompt: "Weather in Paris?", maxRetries: 0 });
    expect(await result.text).toBe("It is 21C.");
    expect(meta(await result.providerMetadata)).toMatchObject({ chosen: "mixtral", tried: ["gpt-4", "mixtral"] });
    expect(model.decisions()[0]!.attempts.map((a) => [a.id, a.ok, a.error])).toEqual([
      [
        "gpt-4",
        false,
        'ModelFaultError: model "gpt-4" replied with no output and finish reason "error" (the provider\'s reason: MALFORMED_FUNCTION_CALL).',
      ],
      ["mixtral", true, undefined],
    ]);
  });

  it("falls back when doGenerate returns no content with reason error; with none left returns that reply", async () => {
    const empty = (id: string) =>
      new MockLanguageModelV3({
        modelId: id,
        doGenerate: async () => ({
          content: [],
          finishReason: { unified: "error", raw: undefined },
          usage: usage(2000, 0),
          warnings: [],
        }),
      });
    const good = new MockLanguageModelV3({
      modelId: "mixtral",
      doGenerate: async () => ({
        content: [{ type: "text", text: "It is 21C." }],
        finishReason: { unified: "stop", raw: undefined },
        usage: usage(2000, 10),
        warnings: [],
      }),
    });
    const model = createIrtRouterModel({ models: { "gpt-4": empty("gpt-4"), mixtral: good }, ...routing });
    const { text, providerMetadata } = await generateText({ model, prompt: "Weather in Paris?", maxRetries: 0 });
    expect(text).toBe("It is 21C.");
    expect(meta(providerMetadata)).toMatchObject({ chosen: "mixtral", tried: ["gpt-4", "mixtral"] });

    // no model left: the reply as the provider gave it (as a direct call returns it), the decision recording both
    const none = createIrtRouterModel({ models: { "gpt-4": empty("gpt-4"), mixtral: empty("mixtral") }, ...routing });
    const last = await generateText({ model: none, prompt: "Weather in Paris?", maxRetries: 0 });
    expect([last.text, last.finishReason]).toEqual(["", "error"]);
    expect(meta(last.providerMetadata)).toMatchObject({ tried: ["gpt-4", "mixtral"] });
    expect(none.decisions()[0]!.attempts.map((a) => [a.id, a.ok])).toEqual([
      ["gpt-4", false],
      ["mixtral", false],
    ]);
    expect(none.decisions()[0]!.realized).toBeUndefined(); // not recorded as an answer
  });

  it("a stream whose only model finishes with error and no output is relayed as it is, recorded as failed", async () => {
    const errorFinish = {
      type: "finish",
      finishReason: { unified: "error", raw: "MALFORMED_FUNCTION_CALL" },
      usage: usage(2000, 0),
    } as const;
    const model = createIrtRouterModel({
      models: { "gpt-4": streaming("gpt-4", [{ type: "stream-start", warnings: [] }, errorFinish]) },
      ...routing,
    });
    const result = streamText({ model, prompt: "Weather in Paris?", maxRetries: 0 });
    expect([await result.text, await result.finishReason]).toEqual(["", "error"]); // threw a ModelFaultError
    expect(model.decisions()[0]!.attempts.map((a) => [a.id, a.ok])).toEqual([["gpt-4", false]]);
    expect(model.decisions()[0]!.realized).toBeUndefined();
  });

  it("keeps a reply with output whatever its finish reason, and an empty reply that finished otherwise", async () => {
    const partial = streaming("gpt-4", [...answer("half an answer").slice(0, 4), errorFinish]);
    const filtered = streaming("gpt-4", [
      { type: "stream-start", warnings: [] },
      { type: "finish", finishReason: { unified: "content-filter", raw: undefined }, usage: usage(2000, 0) },
    ]);
    for (const [child, text] of [
      [partial, "half an answer"],
      [filtered, ""],
    ] as const) {
      const model = createIrtRouterModel({
        models: { "gpt-4": child, mixtral: streaming("mixtral", answer("x")) },
        ...routing,
      });
      const result = streamText({ model, prompt: "Weather in Paris?", maxRetries: 0 });
      expect(await result.text).toBe(text);
      expect(meta(await result.providerMetadata)).toMatchObject({ chosen: "gpt-4", tried: ["gpt-4"] });
    }
  });
});
