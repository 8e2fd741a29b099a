import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { FakeChatModel, FakeListChatModel } from "@langchain/core/utils/testing";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { IrtRouter, irtRouterMiddleware, type RouteDecision } from "../../src/langchain/index.js";
import { SlowModel, ToyScorer } from "./helpers.js";

const calls: string[] = [];
const weather = tool(
  async ({ city }: { city: string }) => {
    calls.push(city);
    return `Sunny in ${city}`;
  },
  { name: "get_weather", description: "Weather of a city", schema: z.object({ city: z.string() }) },
);

function withProfile<T extends BaseChatModel>(model: T, profile: Record<string, unknown>): T {
  Object.defineProperty(model, "profile", { value: profile, configurable: true });
  return model;
}

const Forecast = z.object({ city: z.string(), summary: z.string() });

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
    const child = withProfile(fakeModel().respond(new AIMessage('{"city":"Rome","summary":"warm"}')), { structuredOutput: true, toolCalling: true });
    const router = new IrtRouter({ models: { mistral: child }, scorer: new ToyScorer() });
    const agent = createAgent({ model: router, tools: [], responseFormat: Forecast });
    const result = await agent.invoke({ messages: [{ role: "user", content: "Forecast for Rome" }] });
    expect(result.structuredResponse).toEqual({ city: "Rome", summary: "warm" });
  });
});

describe("createAgent with IrtRouter as the model: tool errors", () => {
  it("are read from the conversation of the next routed call and count as step failures when asked", async () => {
    const broken = tool(
      async () => {
        throw new Error("service down");
      },
      { name: "lookup", description: "Looks something up", schema: z.object({ q: z.string() }) },
    );
    const strong = fakeModel()
      .respondWithTools([{ name: "lookup", args: { q: "x" }, id: "c1" }])
      .respond(new AIMessage("I could not look it up."));
    const router = new IrtRouter({ models: { "gpt-4": strong }, scorer: new ToyScorer() });
    const agent = createAgent({ model: router, tools: [broken] });
    await agent.invoke({ messages: [{ role: "user", content: "Look it up" }] }, { metadata: { irtRouterRunId: "run-t" } });
    const ids = router.decisions().map((d) => d.decisionId);
    const events = await router.feedback("run-t", 1, { attribution: { mode: "discounted", discount: 0.5, toolErrorsAsFailures: true } });
    expect(events.map((e) => [e.decisionId, e.y, e.weight])).toEqual([
      [ids[0], 0, undefined],
      [ids[1], 1, undefined],
    ]);
  });
});

describe("createAgent with no tools", () => {
  it("keeps models without tool calling as candidates (the agent binds an empty tool list)", async () => {
    const echo = new FakeChatModel({}); // no bindTools
    const router = new IrtRouter({ models: { "gpt-4": echo, mistral: fakeModel().respond(new AIMessage("from mistral")) }, scorer: new ToyScorer() });
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
      for await (const [chunk] of await agent.stream({ messages: [{ role: "user", content: "Say hello" }] }, { streamMode: "messages" })) {
        out.push(String((chunk as { content: unknown }).content));
      }
      return out;
    };
    const alone = await tokens(new FakeListChatModel({ responses: ["Hello there"] }));
    const routed = await tokens(new IrtRouter({ models: { mistral: new FakeListChatModel({ responses: ["Hello there"] }) }, scorer: new ToyScorer() }));
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
    const broken = tool(
      async () => {
        throw new Error("service down");
      },
      { name: "lookup", description: "Looks something up", schema: z.object({ q: z.string() }) },
    );
    const strong = fakeModel()
      .respondWithTools([{ name: "lookup", args: { q: "x" }, id: "c1" }])
      .respondWithTools([{ name: "get_weather", args: { city: "Oslo" }, id: "c2" }])
      .respond(new AIMessage("Sunny in Oslo."));
    const middleware = irtRouterMiddleware({ models: { "gpt-4": strong, mistral: fakeModel() }, scorer: new ToyScorer() });
    const agent = createAgent({ model: fakeModel(), tools: [broken, weather], middleware: [middleware] });
    const result = await agent.invoke({ messages: [{ role: "user", content: "Weather in Oslo?" }] });
    const steps = result.irtRouterRoutes.map((d: RouteDecision) => d.decisionId);
    expect(steps).toHaveLength(3);
    const events = await middleware.router.feedback(result.irtRouterRunId!, 1, { attribution: { toolErrorsAsFailures: true } });
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
    const result = await agent.invoke({ messages: [{ role: "user", content: "Weather in Lima?" }] }, { callbacks: [handler] });
    // Each model run in the trace carries the decision and the router's tags.
    // Each step tries the broken gpt-4 first, then falls back to mistral.
    expect(seen.map((s) => s.tags?.find((t) => t.startsWith("irt-router:")))).toEqual([
      "irt-router:gpt-4",
      "irt-router:mistral",
      "irt-router:gpt-4",
      "irt-router:mistral",
    ]);
    expect(seen.every((s) => typeof (s.metadata?.irtRouter as RouteDecision | undefined)?.decisionId === "string")).toBe(true);
    const routes = result.irtRouterRoutes as RouteDecision[];
    expect(routes.map((d) => d.chosen)).toEqual(["mistral", "mistral"]);
    expect(routes[0]!.attempts.map((a) => [a.id, a.ok])).toEqual([["gpt-4", false], ["mistral", true]]);
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
    const native = withProfile(fakeModel().respond(new AIMessage('{"city":"Nice","summary":"mild"}')), { structuredOutput: true });
    const middleware = irtRouterMiddleware({ models: { "gpt-4": native }, scorer: new ToyScorer() });
    const agent = createAgent({ model: fakeModel(), tools: [], responseFormat: Forecast, middleware: [middleware] });
    const result = await agent.invoke({ messages: [{ role: "user", content: "Forecast for Nice" }] });
    expect(result.structuredResponse).toEqual({ city: "Nice", summary: "mild" });
    expect((result.irtRouterRoutes as RouteDecision[]).map((d) => d.chosen)).toEqual(["gpt-4"]);
  });

  it("works with responseFormat (tool strategy when the chosen model has no native structured output)", async () => {
    const Titled = Forecast.meta({ title: "Forecast" }); // the tool strategy names its tool after the title
    const plain = fakeModel().respondWithTools([{ name: "Forecast", args: { city: "Bern", summary: "cold" }, id: "s1" }]);
    const middleware = irtRouterMiddleware({ models: { mistral: plain }, scorer: new ToyScorer() });
    const agent = createAgent({ model: fakeModel(), tools: [weather], responseFormat: Titled, middleware: [middleware] });
    const result = await agent.invoke({ messages: [{ role: "user", content: "Forecast for Bern" }] });
    expect(result.structuredResponse).toEqual({ city: "Bern", summary: "cold" });
    expect((result.irtRouterRoutes as RouteDecision[]).length).toBe(1);
  });
});
