/**
 * The chat-model contract LangChain's standard unit and integration tests check, written for the router: a drop-in
 * chat model must behave like any other one. Children are offline fakes that call tools and report usage.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createAgent, modelFallbackMiddleware } from "langchain";
import { AIMessage, AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { InMemoryCache } from "@langchain/core/caches";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ChatResult } from "@langchain/core/outputs";
import { fakeModel } from "@langchain/core/testing";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { IrtRouter, irtRouterMiddleware, routeDecisionOf } from "../../../src/langchain/index.js";
import { FeedbackError, ValidationError } from "../../../src/errors.js";
import { ToolCallingFake, ToyScorer } from "../helpers.js";

const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, {
  name: "get_weather",
  description: "Weather of a city",
  schema: z.object({ city: z.string() }),
});

/** A provider-like fake: counts its calls, reports usage, and has provider-style options (temperature, maxTokens). */
class ProviderFake extends BaseChatModel {
  calls = 0;
  constructor(
    private readonly answer: string,
    readonly temperature = 0,
    readonly maxTokens = 256,
  ) {
    super({});
  }
  _llmType() {
    return "provider-fake";
  }
  override getLsParams(options: this["ParsedCallOptions"]) {
    return {
      ...super.getLsParams(options),
      ls_provider: "fakeprovider",
      ls_model_name: "fake-1",
      ls_temperature: this.temperature,
      ls_max_tokens: this.maxTokens,
    };
  }
  async _generate(): Promise<ChatResult> {
    this.calls++;
    const message = new AIMessage({
      content: this.answer,
      usage_metadata: { input_tokens: 7, output_tokens: 3, total_tokens: 10 },
    });
    return { generations: [{ message, text: this.answer }] };
  }
}

const router = (models: Record<string, BaseChatModel>, extra: Record<string, unknown> = {}) =>
  new IrtRouter({ models, scorer: new ToyScorer(), ...extra });

describe("IrtRouter as a LangChain chat model", () => {
  it("constructor: provider options belong to the children, which keep them; on the router they are refused by name", () => {
    const child = new ProviderFake("a", 0.2, 100);
    const r = router({ mistral: child });
    expect(r.modelIds).toEqual(["mistral"]);
    expect(
      () => new IrtRouter({ models: { mistral: child }, scorer: new ToyScorer(), temperature: 0 } as never),
    ).toThrow(ValidationError);
    expect(
      () => new IrtRouter({ models: { mistral: child }, scorer: new ToyScorer(), temperature: 0 } as never),
    ).toThrow(/temperature/);
  });

  it("LangSmith parameters: the chosen child's for a call, the parameters the children share otherwise", async () => {
    const r = router({ "gpt-4": new ProviderFake("a", 0, 512), mistral: new ProviderFake("b", 0, 256) });
    const shared = r.getLsParams({ stop: ["END"] } as never);
    expect(shared).toMatchObject({
      ls_provider: "irt-router",
      ls_model_type: "chat",
      ls_temperature: 0,
      ls_stop: ["END"],
    });
    expect(shared.ls_max_tokens).toBeUndefined(); // they differ
    const starts: Record<string, unknown>[] = [];
    const handler = BaseCallbackHandler.fromMethods({
      handleChatModelStart: (_l, _m, _id, _p, _e, _t, metadata) => void starts.push(metadata ?? {}),
    });
    await r.invoke("What is 2+2?", { callbacks: [handler] });
    expect(starts[0]).toMatchObject({ ls_provider: "fakeprovider", ls_model_name: "fake-1", ls_max_tokens: 512 });
    expect((starts[0]!.irtRouter as { chosen: string }).chosen).toBe("gpt-4");
  });

  it("LangSmith parameters: the six standard keys, always present (undefined when not known), planned or not", async () => {
    const standard = ["ls_max_tokens", "ls_model_name", "ls_model_type", "ls_provider", "ls_stop", "ls_temperature"];
    const fakes = { a: new FakeListChatModel({ responses: ["x"] }), b: new FakeListChatModel({ responses: ["y"] }) };
    const shared = router(fakes).getLsParams({} as never);
    expect(Object.keys(shared).sort()).toEqual(standard);
    expect(shared).toMatchObject({ ls_provider: "irt-router", ls_model_type: "chat" });
    // a planned call reports the chosen child's parameters, with the keys the child leaves out present too
    const metadata: Record<string, unknown>[] = [];
    const handler = BaseCallbackHandler.fromMethods({
      handleChatModelStart: (_l, _m, _id, _p, _e, _t, md) => void metadata.push(md ?? {}),
    });
    await router(fakes).invoke("hi", { callbacks: [handler], stop: ["END"] });
    for (const key of standard) expect(Object.keys(metadata[0]!)).toContain(key);
    expect(metadata[0]).toMatchObject({ ls_provider: "FakeListChatModel", ls_stop: ["END"] });
  });

  it("streamEvents v2: the router's events are its chosen child's own, in order, with the decision on the end's output", async () => {
    type Event = { event: string; data: Record<string, unknown> };
    const eventsOf = async (model: BaseChatModel, callOptions: Record<string, unknown>) => {
      const events: Event[] = [];
      for await (const e of model.streamEvents("Hello", { ...callOptions, version: "v2" })) events.push(e);
      const chunks = events
        .filter((e) => e.event === "on_chat_model_stream")
        .map((e) => String((e.data.chunk as AIMessageChunk).content));
      return { kinds: events.map((e) => e.event), chunks, output: events.at(-1)!.data.output as AIMessageChunk };
    };
    for (const callOptions of [{}, { metadata: { irtRouterRunId: "run-1" }, tags: ["t"], stop: ["\n\n"] }]) {
      // the reference: the same LangChain chat model, called alone
      const bare = await eventsOf(new FakeListChatModel({ responses: ["Hello there"] }), callOptions);
      const models = {
        a: new FakeListChatModel({ responses: ["Hello there"] }),
        b: new FakeListChatModel({ responses: ["Hi"] }),
      };
      const routed = await eventsOf(router(models), callOptions);
      expect(routed.kinds[0]).toBe("on_chat_model_start");
      expect(routed.kinds.at(-1)).toBe("on_chat_model_end");
      expect(routed.kinds).toEqual(bare.kinds);
      expect(routed.chunks).toEqual(bare.chunks);
      expect(routed.chunks.length).toBeGreaterThan(1);
      expect(AIMessageChunk.isInstance(routed.output)).toBe(true);
      expect([routed.output.text, routed.chunks.join("")]).toEqual(["Hello there", "Hello there"]);
      expect(routeDecisionOf(routed.output)?.chosen).toBe("a");
    }
  });

  it("invoke, stream and batch answer with the chosen child's reply and the typed decision", async () => {
    const r = router({ mistral: new FakeListChatModel({ responses: ["hello there"] }) });
    const reply = await r.invoke("hi");
    expect(AIMessage.isInstance(reply) || AIMessageChunk.isInstance(reply)).toBe(true);
    expect(routeDecisionOf(reply)?.chosen).toBe("mistral");
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await r.stream("hi")) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(routeDecisionOf(chunks.reduce((a, b) => a.concat(b)))?.chosen).toBe("mistral");
    const batch = await r.batch(["a", "b"]);
    expect(batch.map((m) => m.content)).toEqual(["hello there", "hello there"]);
    expect(routeDecisionOf(new AIMessage("not routed"))).toBeUndefined();
  });

  it("tool calling: bound tools reach the chosen child, and its tool calls come back", async () => {
    const r = router({ mistral: new ToolCallingFake({ city: "Oslo" }) });
    const reply = await r.bindTools([weather]).invoke("Weather in Oslo?");
    expect(reply.tool_calls).toEqual([expect.objectContaining({ name: "get_weather", args: { city: "Oslo" } })]);
  });

  it("structured output, with and without includeRaw", async () => {
    const Schema = z.object({ answer: z.number() });
    const r = router({ mistral: new ToolCallingFake({ answer: 42 }) });
    expect(await r.withStructuredOutput(Schema).invoke("6 x 7?")).toEqual({ answer: 42 });
    const raw = await r.withStructuredOutput(Schema, { includeRaw: true }).invoke("6 x 7?");
    expect(raw.parsed).toEqual({ answer: 42 });
    expect(routeDecisionOf(raw.raw)?.chosen).toBe("mistral");
  });

  it("bindTools and withStructuredOutput do not combine, and both errors say the same", () => {
    const r = router({ mistral: new ToolCallingFake({}) });
    const one = (() => {
      try {
        (r.bindTools([weather]) as IrtRouter).withStructuredOutput(z.object({ a: z.string() }));
      } catch (e) {
        return e as ValidationError;
      }
    })();
    const other = (() => {
      try {
        (r.withStructuredOutput(z.object({ a: z.string() })) as unknown as IrtRouter).bindTools([weather]);
      } catch (e) {
        return e as ValidationError;
      }
    })();
    expect(one).toBeInstanceOf(ValidationError);
    expect(other).toBeInstanceOf(ValidationError);
    expect(one!.message).toBe(other!.message);
    expect(one!.message).toMatch(/do not combine.*createAgent\(\{ tools, responseFormat \}\)/);
  });

  it("usage metadata of the child is on the reply", async () => {
    const reply = await router({ mistral: new ProviderFake("x") }).invoke("hi");
    expect(reply.usage_metadata).toMatchObject({ input_tokens: 7, output_tokens: 3 });
  });

  it("cache: invoke, stream, batch and generate read and write it; a cached reply keeps its decision", async () => {
    const child = new ProviderFake("cached answer");
    const r = router({ mistral: child }, { cache: new InMemoryCache() });
    const first = await r.invoke("What is the capital of France?");
    const again = await r.invoke("What is the capital of France?");
    expect(child.calls).toBe(1);
    expect(routeDecisionOf(again)?.decisionId).toBe(routeDecisionOf(first)?.decisionId);
    let streamed = "";
    for await (const chunk of await r.stream("What is the capital of France?")) streamed += chunk.content;
    expect([streamed, child.calls]).toEqual(["cached answer", 1]);
    for await (const _ of await r.stream("A streamed question")) void _;
    expect(child.calls).toBe(2);
    await r.invoke("A streamed question"); // written by the stream
    await r.batch(["What is the capital of France?", "A streamed question"]);
    const result = await r.generate([
      [new HumanMessage("A new one")],
      [new HumanMessage("What is the capital of France?")],
    ]);
    expect(result.generations.map((g) => g[0]!.text)).toEqual(["cached answer", "cached answer"]);
    expect(child.calls).toBe(3);
    // inside an agent, through the router made by bindTools
    const agent = createAgent({ model: r, tools: [] });
    await agent.invoke({ messages: [{ role: "user", content: "Agent question" }] });
    await agent.invoke({ messages: [{ role: "user", content: "Agent question" }] });
    expect(child.calls).toBe(4);
    // `router.cache = ...` after construction applies as well
    const lateChild = new ProviderFake("late");
    const late = router({ mistral: lateChild });
    late.cache = new InMemoryCache();
    await late.invoke("q");
    await late.invoke("q");
    expect(lateChild.calls).toBe(1);
  });

  it("streamEvents: the router is the chat model, with the child's parameters and the decision, each token once", async () => {
    const r = router({ mistral: new FakeListChatModel({ responses: ["abc"] }) });
    const events: { event: string; name: string; metadata: Record<string, unknown>; chunk?: string }[] = [];
    for await (const e of r.streamEvents("hi", { version: "v2" })) {
      const chunk = e.data?.chunk as AIMessageChunk | undefined;
      events.push({
        event: e.event,
        name: e.name,
        metadata: e.metadata,
        chunk: chunk ? String(chunk.content) : undefined,
      });
    }
    expect(events[0]).toMatchObject({ event: "on_chat_model_start", name: "IrtRouter" });
    expect(events.at(-1)).toMatchObject({ event: "on_chat_model_end", name: "IrtRouter" });
    const tokens = events.filter((e) => e.event === "on_chat_model_stream");
    expect(tokens.map((e) => e.chunk).join("")).toBe("abc");
    expect(new Set(tokens.map((e) => e.name))).toEqual(new Set(["IrtRouter"]));
    expect(events[0]!.metadata.ls_provider).toBe("FakeListChatModel"); // the chosen child's LangSmith parameters
    expect((events[0]!.metadata.irtRouter as { chosen: string }).chosen).toBe("mistral");
    // nested in a chain, as a chat model: one start per model run, the router's
    const nested = r.withConfig({ runName: "step" });
    const names: string[] = [];
    for await (const e of nested.streamEvents("hi", { version: "v2" }))
      if (e.event === "on_chat_model_start") names.push(e.name);
    expect(names).toEqual(["step"]);
  });

  it("callbacks see the router's chat-model run, with the child's nested under it", async () => {
    const runs: { name: string; parent?: string; id: string }[] = [];
    const handler = BaseCallbackHandler.fromMethods({
      handleChatModelStart: (llm, _m, id, parent) => void runs.push({ name: llm.id.at(-1)!, parent, id }),
    });
    await router({ mistral: new FakeListChatModel({ responses: ["x"] }) }).invoke("hi", { callbacks: [handler] });
    expect(runs.map((r) => r.name)).toEqual(["IrtRouter", "FakeListChatModel"]);
    expect(runs[1]!.parent).toBe(runs[0]!.id);
  });

  it("abort: an aborted call rejects and tries no other model", async () => {
    const other = new ProviderFake("other");
    const controller = new AbortController();
    controller.abort();
    await expect(
      router({ "gpt-4": new ProviderFake("x"), mistral: other }).invoke("hi", { signal: controller.signal }),
    ).rejects.toThrow();
    expect(other.calls).toBe(0);
  });

  it("a candidate without a price under a cost-ranking policy is a ValidationError naming the model and the fix", async () => {
    const models = { "gpt-4": new ProviderFake("a"), "my-local-llm": new ProviderFake("b") };
    for (const policy of [
      { kind: "cost-aware", lambda: 20 },
      { kind: "budget", maxUsdPerRun: 1 },
    ]) {
      const r = new IrtRouter({
        models,
        scorer: new ToyScorer(),
        policy: policy as never,
        logger: { warn: () => undefined },
      });
      const error = await r.invoke("hi").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).path).toBe("options.models.my-local-llm.price");
      expect((error as Error).message).toMatch(/"my-local-llm" has no price.*inputPer1M: 0, outputPer1M: 0/);
    }
    const free = new IrtRouter({
      models: {
        "gpt-4": models["gpt-4"],
        "my-local-llm": { model: models["my-local-llm"], price: { inputPer1M: 0, outputPer1M: 0 } },
      },
      scorer: new ToyScorer(),
      policy: { kind: "cost-aware", lambda: 20 },
      logger: { warn: () => undefined },
    });
    expect(routeDecisionOf(await free.invoke("hi"))).toBeDefined();
    // the quality policy does not rank by cost: an unpriced model is allowed there (with a warning)
    expect(
      routeDecisionOf(
        await new IrtRouter({ models, scorer: new ToyScorer(), logger: { warn: () => undefined } }).invoke("hi"),
      ),
    ).toBeDefined();
  });

  it("@langchain/core and langchain (optional, for the middleware) are peer dependencies, pinned for development", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as Record<
      string,
      Record<string, string>
    >;
    for (const name of ["@langchain/core", "langchain"]) {
      expect(pkg.peerDependencies?.[name]).toMatch(/^>=\d/);
      expect(pkg.dependencies?.[name]).toBeUndefined();
      expect(pkg.devDependencies?.[name]).toMatch(/^\d+\.\d+\.\d+$/);
    }
    // @langchain/langgraph is not imported by the package (langchain brings it for createAgent); tests use it
    expect(pkg.peerDependencies?.["@langchain/langgraph"]).toBeUndefined();
    expect(pkg.devDependencies?.["@langchain/langgraph"]).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe("composition with modelFallbackMiddleware", () => {
  const failing = () => fakeModel().alwaysThrow(new Error("503 overloaded"));

  it("fallback middleware outside the router's: the backup it substitutes is honoured", async () => {
    const backup = fakeModel().respond(new AIMessage("from the backup"));
    const r = router({ "gpt-4": failing(), mistral: failing() });
    const agent = createAgent({
      model: failing(),
      tools: [],
      middleware: [modelFallbackMiddleware(backup), irtRouterMiddleware({ router: r })],
    });
    const result = await agent.invoke({ messages: [{ role: "user", content: "hi" }] });
    expect(result.messages.at(-1)!.content).toBe("from the backup");
    expect(backup.callCount).toBe(1);
  });

  it("fallback middleware inside the router's: the backup answers and no routed model is credited", async () => {
    const backup = fakeModel().respond(new AIMessage("from the backup"));
    const r = router({ mistral: failing() }, { maxAttempts: 1 });
    const agent = createAgent({
      model: failing(),
      tools: [],
      middleware: [irtRouterMiddleware({ router: r }), modelFallbackMiddleware(backup)],
    });
    const result = await agent.invoke({ messages: [{ role: "user", content: "hi" }] });
    expect(result.messages.at(-1)!.content).toBe("from the backup");
    const [decision] = result.irtRouterRoutes;
    expect(decision!.attempts).toEqual([
      expect.objectContaining({ id: "mistral", ok: false, error: expect.stringMatching(/another middleware/) }),
    ]);
    await expect(r.feedback(result.irtRouterRunId!, true)).rejects.toBeInstanceOf(FeedbackError);
  });
});
