import { describe, expect, it } from "vitest";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { createAgent } from "langchain";
import { IrtRouter, irtRouterMiddleware, routeDecisionOf, type RouteDecision } from "../../../src/langchain/index.js";
import { FeedbackError } from "../../../src/errors.js";
import { HungModel, ToyScorer, quietLogger } from "../helpers.js";

/** Streams two chunks, then its connection drops. */
class DroppingStream extends BaseChatModel {
  _llmType() {
    return "dropping";
  }
  async _generate(): Promise<ChatResult> {
    throw new Error("not used");
  }
  override async *_streamResponseChunks(): AsyncGenerator<ChatGenerationChunk> {
    for (const text of ["Hel", "lo"]) yield new ChatGenerationChunk({ message: new AIMessageChunk(text), text });
    throw new Error("ECONNRESET: socket hang up");
  }
}

/** Answers with usage it cannot have had (negative output tokens), on invoke and stream. */
class BadUsageModel extends BaseChatModel {
  _llmType() {
    return "bad-usage";
  }
  async _generate(): Promise<ChatResult> {
    const message = new AIMessage({
      content: "ok",
      usage_metadata: { input_tokens: 5, output_tokens: -1, total_tokens: 4 },
    });
    return { generations: [{ message, text: "ok" }] };
  }
  override async *_streamResponseChunks(): AsyncGenerator<ChatGenerationChunk> {
    yield new ChatGenerationChunk({ message: new AIMessageChunk({ content: "o" }), text: "o" });
    const usage = { input_tokens: 5, output_tokens: -1, total_tokens: 4 };
    yield new ChatGenerationChunk({ message: new AIMessageChunk({ content: "k", usage_metadata: usage }), text: "k" });
  }
}

const decisionOfError = (error: unknown) => (error as { irtRouter?: RouteDecision }).irtRouter;

describe("a child that ignores its signal does not hang the router (each attempt is bounded)", () => {
  const make = (extra: Record<string, unknown> = {}) => {
    const hung = new HungModel({});
    const router = new IrtRouter({
      models: { "gpt-4": hung, mistral: new FakeListChatModel({ responses: ["fallback"] }) },
      scorer: new ToyScorer(),
      ...extra,
    });
    return { hung, router };
  };

  it("with no timeout on the call: the router's attemptTimeout, then the fallback", async () => {
    const { hung, router } = make({ attemptTimeout: 50 });
    const reply = await router.invoke("What is 1+1?");
    expect(reply.content).toBe("fallback");
    expect(hung.calls).toBe(1);
    const d = routeDecisionOf(reply)!;
    expect(d.attempts.map((a) => [a.id, a.ok])).toEqual([
      ["gpt-4", false],
      ["mistral", true],
    ]);
    expect(d.attempts[0]!.error).toMatch(/no answer within 50 ms/);
  });

  it("with invoke(..., { timeout }), withConfig({ timeout }) and stream(..., { timeout })", async () => {
    const { router } = make();
    expect((await router.invoke("What is 1+1?", { timeout: 50 })).content).toBe("fallback");
    expect((await router.withConfig({ timeout: 50 }).invoke("What is 1+1?")).content).toBe("fallback");
    let text = "";
    for await (const chunk of await router.stream("What is 1+1?", { timeout: 50 })) text += chunk.content;
    expect(text).toBe("fallback");
  });

  it("under the agent middleware, with the router's attemptTimeout: the next candidate answers the step", async () => {
    const { router } = make({ attemptTimeout: 50 });
    const agent = createAgent({
      model: new FakeListChatModel({ responses: ["unused"] }),
      tools: [],
      middleware: [irtRouterMiddleware({ router })],
    });
    const result = await agent.invoke({ messages: [{ role: "user", content: "What is 1+1?" }] });
    expect(result.messages.at(-1)!.content).toBe("fallback");
    expect(result.irtRouterRoutes[0]!.attempts.map((a) => [a.id, a.ok])).toEqual([
      ["gpt-4", false],
      ["mistral", true],
    ]);
  });

  it("with signal: AbortSignal.timeout(ms): the call is cancelled at that point (no other model: it is the caller's)", async () => {
    const { router } = make();
    const t0 = Date.now();
    const error = await router.invoke("What is 1+1?", { signal: AbortSignal.timeout(50) }).catch((e: unknown) => e);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect((error as Error).name).toBe("TimeoutError");
    expect(decisionOfError(error)?.attempts.map((a) => a.ok)).toEqual([false]);
  });
});

describe("child faults are recorded as they happened", () => {
  it("a stream that dies after 2 chunks is a failed attempt: the error carries the decision and feedback is refused", async () => {
    const router = new IrtRouter({ models: { mistral: new DroppingStream({}) }, scorer: new ToyScorer() });
    const chunks: string[] = [];
    const error = await (async () => {
      for await (const chunk of await router.stream("hi")) chunks.push(String(chunk.content));
    })().catch((e: unknown) => e);
    expect(chunks).toEqual(["Hel", "lo"]);
    expect((error as Error).message).toMatch(/ECONNRESET/);
    const decision = decisionOfError(error)!;
    expect(decision.attempts).toEqual([expect.objectContaining({ id: "mistral", ok: false })]);
    expect(router.decisions().at(-1)!.attempts[0]!.ok).toBe(false);
    await expect(router.feedback(decision.decisionId, true)).rejects.toBeInstanceOf(FeedbackError);
  });

  it("a child whose profile getter throws is left out with its reason; another model answers", async () => {
    const broken = new FakeListChatModel({ responses: ["never"] });
    Object.defineProperty(broken, "profile", {
      get() {
        throw new TypeError("Cannot read properties of undefined (reading 'maxInputTokens')");
      },
    });
    const router = new IrtRouter({
      models: { "gpt-4": broken, mistral: new FakeListChatModel({ responses: ["ok"] }) },
      scorer: new ToyScorer(),
    });
    const reply = await router.invoke("What is 1+1?");
    expect(reply.content).toBe("ok");
    const d = routeDecisionOf(reply)!;
    expect(d.excluded).toEqual([
      { id: "gpt-4", reason: expect.stringMatching(/profile could not be read \(TypeError/) },
    ]);
    expect(() => router.profile).not.toThrow();
  });

  it("a child returning {} as its message is a failed attempt, and the next model answers", async () => {
    const empty = new FakeListChatModel({ responses: ["x"] });
    empty.invoke = (async () => ({})) as never;
    const router = new IrtRouter({
      models: { "gpt-4": empty, mistral: new FakeListChatModel({ responses: ["real"] }) },
      scorer: new ToyScorer(),
    });
    const reply = await router.invoke("What is 1+1?");
    expect(reply.content).toBe("real");
    const d = routeDecisionOf(reply)!;
    expect(d.attempts.map((a) => [a.id, a.ok])).toEqual([
      ["gpt-4", false],
      ["mistral", true],
    ]);
    expect(d.attempts[0]!.error).toMatch(/MODEL_FAULT|returned an object with keys \[\] instead of a chat message/);
  });

  it("a reply with negative usage_metadata is kept; the usage is ignored and warned about once (invoke and stream)", async () => {
    const logger = quietLogger();
    const router = new IrtRouter({ models: { mistral: new BadUsageModel({}) }, scorer: new ToyScorer(), logger });
    const replies: BaseMessage[] = [await router.invoke("What is 1+1?"), await router.invoke("What is 2+2?")];
    expect(replies.map((r) => r.content)).toEqual(["ok", "ok"]);
    let streamed = "";
    for await (const chunk of await router.stream("What is 3+3?")) streamed += chunk.content;
    expect(streamed).toBe("ok");
    expect(logger.messages.filter((m) => /usage_metadata that cannot be counted/.test(m))).toHaveLength(1);
    expect(router.decisions().every((d) => d.attempts.every((a) => a.ok))).toBe(true);
  });
});
