import { describe, expect, it, vi } from "vitest";
import { createAgent, FakeToolCallingModel, toolStrategy } from "langchain";
import { ConfigurableModel, initChatModel } from "langchain/chat_models/universal";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { FakeChatModel, FakeListChatModel } from "@langchain/core/utils/testing";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { IrtRouter, irtRouterMiddleware, NoCandidatesError, type RouteDecision } from "../../../src/langchain/index.js";
import { recordingWeatherTool, SlowModel, ToolCallingFake, ToyScorer, quietLogger } from "../helpers.js";

const { weather, calls } = recordingWeatherTool();

function withProfile<T extends BaseChatModel>(model: T, profile: Record<string, unknown>): T {
  Object.defineProperty(model, "profile", { value: profile, configurable: true });
  return model;
}

const Forecast = z.object({ city: z.string(), summary: z.string() });
/** A tool whose every call fails. */
const broken = tool(
  async () => {
    throw new Error("service down");
  },
  { name: "lookup", description: "Looks something up", schema: z.object({ q: z.string() }) },
);

describe("createAgent with IrtRouter as the model", () => {
  it("routes every step; the tool calls are executed", async () => {
    calls.length = 0;
    const strong = fakeModel()
      .respondWithTools([{ name: "get_weather", args: { city: "Paris" }, id: "c1" }])
      .respond(new AIMessage("It is sunny in Paris."));
    const cheap = fakeModel();
    const router = new IrtRouter({ models: { "gpt-4": strong, mistral: cheap }, scorer: new ToyScorer() });
    const agent = createAgent({ model: router, tools: [weather] });
    const result = await agent.invoke({ messages: [{ role: "user", content: "What is the weather in Paris?" }] });
    expect(calls).toEqual(["Paris"]);
    const tools = result.messages.filter((m) => ToolMessage.isInstance(m));
    expect(tools.map((m) => m.content)).toEqual(["Sunny in Paris"]);
    const ai = result.messages.filter((m) => AIMessage.isInstance(m)) as AIMessage[];
    expect(ai).toHaveLength(2);
    expect(ai.map((m) => (m.response_metadata.irtRouter as RouteDecision).chosen)).toEqual(["gpt-4", "gpt-4"]);
    expect(ai.at(-1)!.content).toBe("It is sunny in Paris.");
    expect(cheap.callCount).toBe(0);
  });

  it("structured output (responseFormat) through the router, native when every child supports it", async () => {
    const child = withProfile(fakeModel().respond(new AIMessage('{"city":"Rome","summary":"warm"}')), {
      structuredOutput: true,
      toolCalling: true,
    });
    const router = new IrtRouter({ models: { mistral: child }, scorer: new ToyScorer() });
    const agent = createAgent({ model: router, tools: [], responseFormat: Forecast });
    const result = await agent.invoke({ messages: [{ role: "user", content: "Forecast for Rome" }] });
    expect(result.structuredResponse).toEqual({ city: "Rome", summary: "warm" });
  });
});

describe("createAgent with IrtRouter as the model: tool errors", () => {
  it("are read from the conversation of the next routed call and count as step failures when asked", async () => {
    const strong = fakeModel()
      .respondWithTools([{ name: "lookup", args: { q: "x" }, id: "c1" }])
      .respond(new AIMessage("I could not look it up."));
    const router = new IrtRouter({ models: { "gpt-4": strong }, scorer: new ToyScorer() });
    const agent = createAgent({ model: router, tools: [broken] });
    await agent.invoke(
      { messages: [{ role: "user", content: "Look it up" }] },
      { metadata: { irtRouterRunId: "run-t" } },
    );
    const ids = router.decisions().map((d) => d.decisionId);
    const events = await router.feedback("run-t", 1, {
      attribution: { mode: "discounted", discount: 0.5, toolErrorsAsFailures: true },
      source: "grader", // an attributed source: full weight (an unattributed outcome's is scaled by 0.1)
    });
    // Weights 1 and 1 (the tool error's own failure, the last step), scaled to the run's bound of 1 in total.
    expect(events.map((e) => [e.decisionId, e.y, e.weight])).toEqual([
      [ids[0], 0, 0.5],
      [ids[1], 1, 0.5],
    ]);
  });
});

describe("createAgent with no tools", () => {
  it("keeps models without tool calling as candidates (the agent binds an empty tool list)", async () => {
    const echo = new FakeChatModel({}); // no bindTools
    const router = new IrtRouter({
      models: { "gpt-4": echo, mistral: fakeModel().respond(new AIMessage("from mistral")) },
      scorer: new ToyScorer(),
    });
    const agent = createAgent({ model: router, tools: [] });
    const result = await agent.invoke({ messages: [{ role: "user", content: "Prove the theorem." }] });
    const decision = (result.messages.at(-1)!.response_metadata as { irtRouter: RouteDecision }).irtRouter;
    expect(decision.chosen).toBe("gpt-4");
    expect(decision.candidates.map((c) => c.id)).toContain("gpt-4");
    expect(result.messages.at(-1)!.content).toContain("Prove the theorem.");
  });
});

describe("streaming an agent whose model is the router", () => {
  it("streams each token once (the child's run is the only model run), like the child alone", async () => {
    const tokens = async (model: BaseChatModel) => {
      const agent = createAgent({ model, tools: [] });
      const out: string[] = [];
      for await (const [chunk] of await agent.stream(
        { messages: [{ role: "user", content: "Say hello" }] },
        { streamMode: "messages" },
      )) {
        out.push(String((chunk as { content: unknown }).content));
      }
      return out;
    };
    const alone = await tokens(new FakeListChatModel({ responses: ["Hello there"] }));
    const routed = await tokens(
      new IrtRouter({
        models: { mistral: new FakeListChatModel({ responses: ["Hello there"] }) },
        scorer: new ToyScorer(),
      }),
    );
    expect(alone.join("")).toBe("Hello there");
    expect(routed).toEqual(alone);
  });
});

describe("irtRouterMiddleware", () => {
  it("chooses the model of every step, keeps the run's route log, and takes run-level feedback", async () => {
    calls.length = 0;
    const strong = fakeModel()
      .respondWithTools([{ name: "get_weather", args: { city: "Oslo" }, id: "c1" }])
      .respond(new AIMessage("Sunny in Oslo."));
    const cheap = fakeModel();
    const middleware = irtRouterMiddleware({ models: { "gpt-4": strong, mistral: cheap }, scorer: new ToyScorer() });
    const placeholder = fakeModel(); // the agent's own model is never called: the middleware picks one per step
    const agent = createAgent({ model: placeholder, tools: [weather], middleware: [middleware] });
    const result = await agent.invoke({ messages: [{ role: "user", content: "Weather in Oslo?" }] });
    expect(calls).toEqual(["Oslo"]);
    expect(placeholder.callCount).toBe(0);
    expect(strong.callCount).toBe(2);
    expect(result.irtRouterRoutes.map((d: RouteDecision) => d.chosen)).toEqual(["gpt-4", "gpt-4"]);
    expect(typeof result.irtRouterRunId).toBe("string");
    expect(result.irtRouterRoutes.every((d: RouteDecision) => d.runId === result.irtRouterRunId)).toBe(true);
    const events = await middleware.router.feedback(result.irtRouterRunId!, true);
    expect(events.map((e) => e.decisionId)).toEqual(result.irtRouterRoutes.map((d: RouteDecision) => d.decisionId));
    // A second run gets a fresh run id and a fresh log.
    strong.respond(new AIMessage("Again."));
    const again = await agent.invoke({ messages: [{ role: "user", content: "Hi" }] });
    expect(again.irtRouterRunId).not.toBe(result.irtRouterRunId);
    expect(again.irtRouterRoutes).toHaveLength(1);
  });

  it("records a step whose tool call failed, so run feedback can count it as that step's failure", async () => {
    const strong = fakeModel()
      .respondWithTools([{ name: "lookup", args: { q: "x" }, id: "c1" }])
      .respondWithTools([{ name: "get_weather", args: { city: "Oslo" }, id: "c2" }])
      .respond(new AIMessage("Sunny in Oslo."));
    const middleware = irtRouterMiddleware({
      models: { "gpt-4": strong, mistral: fakeModel() },
      scorer: new ToyScorer(),
    });
    const agent = createAgent({ model: fakeModel(), tools: [broken, weather], middleware: [middleware] });
    const result = await agent.invoke({ messages: [{ role: "user", content: "Weather in Oslo?" }] });
    const steps = result.irtRouterRoutes.map((d: RouteDecision) => d.decisionId);
    expect(steps).toHaveLength(3);
    const events = await middleware.router.feedback(result.irtRouterRunId!, 1, {
      attribution: { toolErrorsAsFailures: true },
    });
    expect(events.map((e) => [e.decisionId, e.y])).toEqual([
      [steps[0], 0],
      [steps[1], 1],
      [steps[2], 1],
    ]);
  });

  it("validates its options", () => {
    expect(() => irtRouterMiddleware({ router: {} as never })).toThrow(/options.router must be an IrtRouter/);
    const router = new IrtRouter({ models: { mistral: fakeModel() }, scorer: new ToyScorer() });
    expect(() => irtRouterMiddleware({ router, policy: { kind: "quality" } } as never)).toThrow(/not both/);
    expect(() => irtRouterMiddleware({ models: {} })).toThrow(/options.models/);
    expect(irtRouterMiddleware({ router }).router).toBe(router);
  });

  it("falls back to the next model when the chosen one throws (tools re-bound by the agent on each)", async () => {
    const broken = fakeModel().alwaysThrow(Object.assign(new Error("529 overloaded"), { status: 529 }));
    const backup = fakeModel()
      .respondWithTools([{ name: "get_weather", args: { city: "Lima" }, id: "c1" }])
      .respond(new AIMessage("Sunny in Lima."));
    const middleware = irtRouterMiddleware({ models: { "gpt-4": broken, mistral: backup }, scorer: new ToyScorer() });
    const agent = createAgent({ model: fakeModel(), tools: [weather], middleware: [middleware] });
    const seen: { tags?: string[]; metadata?: Record<string, unknown> }[] = [];
    const handler = {
      handleChatModelStart: async (..._args: unknown[]) => {
        seen.push({ tags: _args[5] as string[], metadata: _args[6] as Record<string, unknown> });
      },
    };
    const result = await agent.invoke(
      { messages: [{ role: "user", content: "Weather in Lima?" }] },
      { callbacks: [handler] },
    );
    // Each model run in the trace carries the decision and the router's tags.
    // Each step tries the broken gpt-4 first, then falls back to mistral.
    expect(seen.map((s) => s.tags?.find((t) => t.startsWith("irt-router:")))).toEqual([
      "irt-router:gpt-4",
      "irt-router:mistral",
      "irt-router:gpt-4",
      "irt-router:mistral",
    ]);
    expect(
      seen.every((s) => typeof (s.metadata?.irtRouter as RouteDecision | undefined)?.decisionId === "string"),
    ).toBe(true);
    const routes = result.irtRouterRoutes as RouteDecision[];
    expect(routes.map((d) => d.chosen)).toEqual(["mistral", "mistral"]);
    expect(routes[0]!.attempts.map((a) => [a.id, a.ok])).toEqual([
      ["gpt-4", false],
      ["mistral", true],
    ]);
    expect(result.messages.at(-1)!.content).toBe("Sunny in Lima.");
  });

  it("does not fall back after the agent's own signal (createAgent({ signal })) aborts the call", async () => {
    const slow = new SlowModel(2000);
    const backup = fakeModel().respond(new AIMessage("backup"));
    const middleware = irtRouterMiddleware({ models: { "gpt-4": slow, mistral: backup }, scorer: new ToyScorer() });
    const controller = new AbortController();
    const agent = createAgent({ model: fakeModel(), tools: [], middleware: [middleware], signal: controller.signal });
    const run = agent.invoke({ messages: [{ role: "user", content: "hi" }] });
    await slow.started;
    controller.abort();
    await expect(run).rejects.toThrow(/abort/i);
    expect(backup.callCount).toBe(0);
    expect(middleware.router.decisions(1)[0]!.attempts.map((a) => [a.id, a.ok])).toEqual([["gpt-4", false]]);
  });

  it("works with responseFormat (provider strategy when the chosen model supports it)", async () => {
    const native = withProfile(fakeModel().respond(new AIMessage('{"city":"Nice","summary":"mild"}')), {
      structuredOutput: true,
    });
    const middleware = irtRouterMiddleware({ models: { "gpt-4": native }, scorer: new ToyScorer() });
    const agent = createAgent({ model: fakeModel(), tools: [], responseFormat: Forecast, middleware: [middleware] });
    const result = await agent.invoke({ messages: [{ role: "user", content: "Forecast for Nice" }] });
    expect(result.structuredResponse).toEqual({ city: "Nice", summary: "mild" });
    expect((result.irtRouterRoutes as RouteDecision[]).map((d) => d.chosen)).toEqual(["gpt-4"]);
  });

  it("works with responseFormat (tool strategy when the chosen model has no native structured output)", async () => {
    const Titled = Forecast.meta({ title: "Forecast" }); // the tool strategy names its tool after the title
    const plain = fakeModel().respondWithTools([
      { name: "Forecast", args: { city: "Bern", summary: "cold" }, id: "s1" },
    ]);
    const middleware = irtRouterMiddleware({ models: { mistral: plain }, scorer: new ToyScorer() });
    const agent = createAgent({
      model: fakeModel(),
      tools: [weather],
      responseFormat: Titled,
      middleware: [middleware],
    });
    const result = await agent.invoke({ messages: [{ role: "user", content: "Forecast for Bern" }] });
    expect(result.structuredResponse).toEqual({ city: "Bern", summary: "cold" });
    expect((result.irtRouterRoutes as RouteDecision[]).length).toBe(1);
  });
});

const decisionOf = (m: { response_metadata: Record<string, unknown> }) =>
  m.response_metadata.irtRouter as RouteDecision;

describe("createAgent with LangChain's FakeToolCallingModel", () => {
  const weatherThenAnswer = () =>
    new FakeToolCallingModel({ toolCalls: [[{ name: "get_weather", args: { city: "Paris" }, id: "t1" }], []] });

  it("the router as the agent's model: the step's tool call is routed and executed, every step recorded", async () => {
    calls.length = 0;
    const strong = weatherThenAnswer();
    const cheap = weatherThenAnswer();
    const generate = vi.spyOn(cheap, "_generate");
    const router = new IrtRouter({ models: { "gpt-4": strong, mistral: cheap }, scorer: new ToyScorer() });
    const result = await createAgent({ model: router, tools: [weather] }).invoke({
      messages: [{ role: "user", content: "Weather in Paris?" }],
    });
    expect(calls).toEqual(["Paris"]);
    expect(result.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => m.content)).toEqual(["Sunny in Paris"]);
    const ai = result.messages.filter((m) => AIMessage.isInstance(m)) as AIMessage[];
    expect(ai.map((m) => m.tool_calls?.length ?? 0)).toEqual([1, 0]);
    expect(ai.map((m) => decisionOf(m).chosen)).toEqual(["gpt-4", "gpt-4"]);
    expect(generate).not.toHaveBeenCalled();
  });

  it("the middleware: the same run, the agent's own model never called", async () => {
    calls.length = 0;
    const placeholder = weatherThenAnswer();
    const generate = vi.spyOn(placeholder, "_generate");
    const middleware = irtRouterMiddleware({
      models: { "gpt-4": weatherThenAnswer(), mistral: weatherThenAnswer() },
      scorer: new ToyScorer(),
    });
    const result = await createAgent({ model: placeholder, tools: [weather], middleware: [middleware] }).invoke({
      messages: [{ role: "user", content: "Weather in Paris?" }],
    });
    expect(calls).toEqual(["Paris"]);
    expect((result.irtRouterRoutes as RouteDecision[]).map((d) => d.chosen)).toEqual(["gpt-4", "gpt-4"]);
    expect(generate).not.toHaveBeenCalled();
  });
});

describe("structured output on a configurable model (initChatModel), routed", () => {
  const Forecast = z.object({ city: z.string(), summary: z.string() });

  /**
   * initChatModel's ConfigurableModel builds its provider model on first use (a dynamic import of @langchain/openai
   * here), then replays the queued bindTools / withStructuredOutput on it. Offline, the provider model is a fake;
   * the replay is the library's loop over its queue, as in ConfigurableModel._getModelInstance.
   */
  async function offlineConfigurable(instance: () => unknown) {
    const spy = vi.spyOn(ConfigurableModel.prototype, "_getModelInstance").mockImplementation(async function (
      this: ConfigurableModel,
    ) {
      let model: any = instance();
      for (const [method, args] of Object.entries(this._queuedMethodOperations))
        model = await model[method](...(args as unknown[]));
      return model;
    });
    const model = await initChatModel("gpt-4o-mini", { modelProvider: "openai", configurableFields: ["model"] });
    return { model, restore: () => spy.mockRestore() };
  }

  it("router.withStructuredOutput queues the schema on the configurable child, which replays it on the model it builds", async () => {
    const built: ToolCallingFake[] = [];
    const { model, restore } = await offlineConfigurable(() => {
      built.push(new ToolCallingFake({ city: "Rome", summary: "warm" }));
      return built.at(-1);
    });
    try {
      expect(model).toBeInstanceOf(ConfigurableModel);
      const router = new IrtRouter({ models: { mistral: model }, scorer: new ToyScorer() });
      const out = await router.withStructuredOutput(Forecast, { includeRaw: true }).invoke("Forecast for Rome");
      expect(out.parsed).toEqual({ city: "Rome", summary: "warm" });
      expect(decisionOf(out.raw as AIMessage).chosen).toBe("mistral");
      expect(built.at(-1)!.seen.withStructuredOutput).toEqual([[Forecast, { includeRaw: true }]]);
      // and as the model of an agent with a responseFormat (the agent binds the tool strategy's tool itself)
      const agent = createAgent({
        model: router,
        tools: [],
        responseFormat: toolStrategy(Forecast.meta({ title: "Forecast" })),
      });
      const result = await agent.invoke({ messages: [{ role: "user", content: "Forecast for Rome" }] });
      expect(result.structuredResponse).toEqual({ city: "Rome", summary: "warm" });
    } finally {
      restore();
    }
  });
});

describe("irtRouterMiddleware: candidates and run ids", () => {
  it("leaves out models without bindTools (createAgent calls it on every model), with the reason in the decision", async () => {
    const middleware = irtRouterMiddleware({
      models: { "gpt-4": new FakeChatModel({}), mistral: fakeModel().respond(new AIMessage("from mistral")) },
      scorer: new ToyScorer(),
    });
    const result = await createAgent({ model: fakeModel(), tools: [], middleware: [middleware] }).invoke({
      messages: [{ role: "user", content: "Prove it." }],
    });
    const [decision] = result.irtRouterRoutes as RouteDecision[];
    expect(decision!.attempts.map((a) => [a.id, a.ok])).toEqual([["mistral", true]]);
    expect(decision!.excluded).toEqual([
      { id: "gpt-4", reason: expect.stringMatching(/no bindTools\(\), which createAgent calls/) },
    ]);
    const only = irtRouterMiddleware({ models: { "gpt-4": new FakeChatModel({}) }, scorer: new ToyScorer() });
    const error = await createAgent({ model: fakeModel(), tools: [], middleware: [only] })
      .invoke({ messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect((error as Error).cause ?? error).toBeInstanceOf(NoCandidatesError);
  });

  it("names the run with the caller's metadata.irtRouterRunId when given, else a fresh id", async () => {
    const model = fakeModel().respond(new AIMessage("a")).respond(new AIMessage("b")).respond(new AIMessage("c"));
    const middleware = irtRouterMiddleware({ models: { mistral: model }, scorer: new ToyScorer() });
    const agent = createAgent({ model: fakeModel(), tools: [], middleware: [middleware] });
    const input = { messages: [{ role: "user" as const, content: "hi" }] };
    const byMetadata = await agent.invoke(input, { metadata: { irtRouterRunId: "my-run" } });
    expect(byMetadata.irtRouterRunId).toBe("my-run");
    expect((byMetadata.irtRouterRoutes as RouteDecision[])[0]!.runId).toBe("my-run");
    expect(await middleware.router.feedback("my-run", true)).toHaveLength(1);
    const generated = await agent.invoke(input);
    expect(generated.irtRouterRunId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await agent.invoke(input)).irtRouterRunId).not.toBe(generated.irtRouterRunId);
  });

  it("keeps every step in the route log when the agent retries a structured output, without duplicating messages", async () => {
    const Forecast = z.object({ city: z.string(), summary: z.string() }).meta({ title: "Forecast" });
    const replies = () => [
      new AIMessage({ content: "", tool_calls: [{ name: "Forecast", args: { city: "Bern" }, id: "s1" }] }), // invalid: the agent asks again
      new AIMessage({
        content: "",
        tool_calls: [{ name: "Forecast", args: { city: "Bern", summary: "cold" }, id: "s2" }],
      }),
      new AIMessage("done"),
    ];
    /** Replies in turn, with messages that have no id (as a model called without callbacks gives). */
    class Scripted extends BaseChatModel {
      callCount = 0;
      private readonly script = replies();
      _llmType() {
        return "scripted";
      }
      override bindTools() {
        return this as never;
      }
      async _generate() {
        const message = this.script[this.callCount++]!;
        return { generations: [{ message, text: message.text }] };
      }
    }
    const withIds = fakeModel();
    for (const [i, reply] of replies().entries()) withIds.respond(new AIMessage({ ...reply, id: `m${i}` }));
    for (const model of [withIds, new Scripted({})]) {
      const middleware = irtRouterMiddleware({ models: { mistral: model }, scorer: new ToyScorer() });
      const agent = createAgent({
        model: fakeModel(),
        tools: [],
        responseFormat: toolStrategy(Forecast),
        middleware: [middleware],
      });
      const result = await agent.invoke({ messages: [{ role: "user", content: "Forecast for Bern" }] });
      expect(result.structuredResponse).toEqual({ city: "Bern", summary: "cold" });
      // one decision per model call, the retried one included (the agent keeps the model's own message for it)
      const routes = result.irtRouterRoutes as RouteDecision[];
      expect(routes).toHaveLength(model.callCount);
      expect(new Set(routes.map((d) => d.decisionId)).size).toBe(routes.length);
      const ids = result.messages.map((m) => m.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(result.messages.filter((m) => AIMessage.isInstance(m) && m.tool_calls?.[0]?.id === "s1")).toHaveLength(1);
    }
  });
});

describe("createAgent with the router as model: run ids", () => {
  const input = { messages: [{ role: "user" as const, content: "What is 17 * 23?" }] };
  const many = () => {
    const m = fakeModel();
    for (let i = 0; i < 10; i++) m.respond(new AIMessage("391"));
    return m;
  };

  it("a run named by metadata.irtRouterRunId has its own budget; runs without a name share one, with a warning", async () => {
    const logger = quietLogger();
    const router = new IrtRouter({
      models: { "gpt-4": many(), mistral: many() },
      scorer: new ToyScorer(),
      policy: { kind: "budget", maxUsdPerRun: 0.02 },
      logger,
    });
    const agent = createAgent({ model: router, tools: [] });
    const chosen: string[] = [];
    for (const run of ["run-1", "run-2", "run-3"]) {
      const result = await agent.invoke(input, { metadata: { irtRouterRunId: run } });
      const d = decisionOf(result.messages.at(-1)!);
      expect(d.runId).toBe(run);
      chosen.push(d.chosen);
    }
    expect(chosen).toEqual(["gpt-4", "gpt-4", "gpt-4"]); // a fresh budget each run
    expect(logger.messages).toEqual([]);
    // without one, the runs share the router's budget: warned once
    await agent.invoke(input);
    await agent.invoke(input);
    expect(logger.messages.filter((m) => m.includes("no run id"))).toHaveLength(1);
  });
});
