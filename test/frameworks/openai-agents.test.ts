import { Agent, Runner, tool } from "@openai/agents";
import { aisdk } from "@openai/agents-extensions/ai-sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createIrtRouterModel } from "../../src/ai-sdk/index.js";
import { ValidationError } from "../../src/errors.js";
import { pinServerState } from "../../src/openai-agents/index.js";
import { loopbackPerTest, PRICES, toyRouting } from "./helpers.js";

/**
 * OpenAI Agents JS: a real `Runner` over `aisdk(createIrtRouterModel(...))`, the children real `@ai-sdk/openai` chat
 * models talking HTTP to the loopback server. The toy scorer with the quality policy ranks gpt-4 first, then mixtral.
 */
describe("OpenAI Agents Runner through aisdk(createIrtRouterModel(...))", () => {
  const loopback = loopbackPerTest();

  const weather = tool({
    name: "weather",
    description: "Current weather of a city",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => `It is 21°C and sunny in ${city}.`,
  });

  /** The weather agent over the router, pinned while a run holds server-side state. */
  const pinnedWeatherAgent = (router: Parameters<typeof aisdk>[0]) =>
    new Agent({ name: "weather", instructions: "Be brief.", model: pinServerState(aisdk(router)), tools: [weather] });

  async function setup() {
    const { server, openai } = await loopback.start();
    const router = createIrtRouterModel({
      models: {
        "gpt-4": { model: openai.chat("gpt-4"), price: PRICES["gpt-4"] },
        mixtral: { model: openai.chat("mixtral"), price: PRICES.mixtral },
      },
      ...toyRouting(),
    });
    const runner = new Runner({ tracingDisabled: true });
    /** The models that answered (HTTP 200), in order. */
    const served = () => server.requests.filter((r) => r.status === 200).map((r) => r.model);
    return { server, router, runner, served };
  }

  it("routes every turn of a run (tool call, then answer), falling back when the first choice fails", async () => {
    const { server, router, runner } = await setup();
    const agent = new Agent({ name: "weather", instructions: "Be brief.", model: aisdk(router), tools: [weather] });
    server.failing["gpt-4"] = 503;
    const first = await runner.run(agent, "What's the weather in Rome?");
    expect(first.finalOutput).toBe("[mixtral] It is 21°C and sunny in Rome.");
    delete server.failing["gpt-4"];
    const second = await runner.run(agent, "What's the weather in Oslo?");
    expect(second.finalOutput).toBe("[gpt-4] It is 21°C and sunny in Oslo.");
    expect(server.requests.map((r) => `${r.model}:${r.status}`)).toEqual([
      "gpt-4:503",
      "mixtral:200",
      "gpt-4:503",
      "mixtral:200",
      "gpt-4:200",
      "gpt-4:200",
    ]);
    const decisions = router.decisions();
    expect(decisions.map((d) => d.chosen)).toEqual(["mixtral", "mixtral", "gpt-4", "gpt-4"]);
    expect(decisions[0]!.attempts.map((a) => [a.id, a.ok])).toEqual([
      ["gpt-4", false],
      ["mixtral", true],
    ]);
    expect(decisions.every((d) => d.realized?.source === "usage")).toBe(true);
  });

  it("pins the run to one model while it holds server-side state (conversationId, previousResponseId)", async () => {
    const { server, router, runner, served } = await setup();
    const agent = pinnedWeatherAgent(router);
    server.failing["gpt-4"] = 503; // the conversation starts on mixtral (fallback)
    await runner.run(agent, "What's the weather in Rome?", { conversationId: "conv-1" });
    delete server.failing["gpt-4"]; // gpt-4 is back and the router's first choice again
    const next = await runner.run(agent, "And in Paris?", { conversationId: "conv-1" });
    expect(next.finalOutput).toBe("[mixtral] It is 21°C and sunny in Paris.");
    const chained = await runner.run(agent, "And in Nice?", { previousResponseId: next.lastResponseId });
    expect(chained.finalOutput).toBe("[mixtral] It is 21°C and sunny in Nice.");
    expect(served()).toEqual(Array(6).fill("mixtral"));
    // the pinned turns still log the router's own choice
    const pinnedTurns = router.decisions().slice(1);
    expect(pinnedTurns.map((d) => [d.chosen, d.shadow?.chosen])).toEqual(Array(5).fill(["mixtral", "gpt-4"]));
    // a run without server-side state is routed as usual
    const fresh = await runner.run(agent, "What's the weather in Oslo?");
    expect(fresh.finalOutput).toBe("[gpt-4] It is 21°C and sunny in Oslo.");
  });

  it("pins a streamed run too (the streamed answer's providerData does not name the model: its parts do)", async () => {
    const { server, router, runner, served } = await setup();
    const agent = pinnedWeatherAgent(router);
    const streamed = async (input: string, options: { conversationId?: string; previousResponseId?: string }) => {
      const result = await runner.run(agent, input, { ...options, stream: true });
      await result.completed;
      return result;
    };
    server.failing["gpt-4"] = 503; // the conversation starts on mixtral (fallback)
    await streamed("What's the weather in Rome?", { conversationId: "conv-s" });
    delete server.failing["gpt-4"]; // gpt-4 is back and the router's first choice again
    const next = await streamed("And in Paris?", { conversationId: "conv-s" });
    expect(next.finalOutput).toBe("[mixtral] It is 21°C and sunny in Paris.");
    // the run's last response is the streamed answer (a text message): the chained run follows it
    expect(next.lastResponseId).toMatch(/^chatcmpl-/);
    const chained = await streamed("And in Nice?", { previousResponseId: next.lastResponseId });
    expect(chained.finalOutput).toBe("[mixtral] It is 21°C and sunny in Nice.");
    expect(server.requests.every((r) => r.stream)).toBe(true);
    expect(served()).toEqual(Array(6).fill("mixtral"));
    const pinnedTurns = router.decisions().slice(1);
    expect(pinnedTurns.map((d) => [d.chosen, d.shadow?.chosen])).toEqual(Array(5).fill(["mixtral", "gpt-4"]));
    // a streamed run without server-side state is routed as usual
    const fresh = await streamed("What's the weather in Oslo?", {});
    expect(fresh.finalOutput).toBe("[gpt-4] It is 21°C and sunny in Oslo.");
  });

  it("pins a streamed run whose turns are text answers only (no tool call to name the model)", async () => {
    const { server, router, runner, served } = await setup();
    const agent = new Agent({ name: "chat", instructions: "Be brief.", model: pinServerState(aisdk(router)) });
    server.failing["gpt-4"] = 503;
    const first = await runner.run(agent, "Hello", { conversationId: "conv-t", stream: true });
    await first.completed;
    delete server.failing["gpt-4"];
    const next = await runner.run(agent, "And then?", { conversationId: "conv-t", stream: true });
    await next.completed;
    expect(next.finalOutput).toBe("[mixtral] And then?");
    const chained = await runner.run(agent, "And now?", { previousResponseId: first.lastResponseId, stream: true });
    await chained.completed;
    expect(chained.finalOutput).toBe("[mixtral] And now?");
    expect(served()).toEqual(["mixtral", "mixtral", "mixtral"]);
    expect(router.decisions().map((d) => d.chosen)).toEqual(["mixtral", "mixtral", "mixtral"]);
  });

  it("refuses options that would turn pinning off or leave its memory unbounded, naming the field", async () => {
    const { router } = await setup();
    for (const maxIds of [0, -1, Number.NaN, 1.5, Number.POSITIVE_INFINITY, "10"]) {
      const bad = (() => {
        try {
          pinServerState(aisdk(router), { maxIds } as never);
        } catch (error) {
          return error;
        }
      })();
      expect(bad, String(maxIds)).toBeInstanceOf(ValidationError);
      expect((bad as ValidationError).path, String(maxIds)).toBe("options.maxIds");
    }
    expect(() => pinServerState(aisdk(router), { maxId: 10 } as never)).toThrow(
      /options\.maxId: unknown key "maxId"; did you mean "maxIds"\?/,
    );
    expect(() => pinServerState(aisdk(router), { maxIds: 1 })).not.toThrow();
    expect(() => pinServerState(aisdk(router))).not.toThrow();
  });

  it("remembers at most maxIds conversations, forgetting the oldest first", async () => {
    const { server, runner, router, served } = await setup();
    const agent = new Agent({
      name: "chat",
      instructions: "Be brief.",
      model: pinServerState(aisdk(router), { maxIds: 1 }),
    });
    server.failing["gpt-4"] = 503;
    await runner.run(agent, "Hello", { conversationId: "conv-a" });
    await runner.run(agent, "Hello", { conversationId: "conv-b" }); // conv-a is forgotten
    delete server.failing["gpt-4"];
    await runner.run(agent, "Again", { conversationId: "conv-b" }); // pinned
    await runner.run(agent, "Again", { conversationId: "conv-a" }); // routed
    expect(served()).toEqual(["mixtral", "mixtral", "mixtral", "gpt-4"]);
  });

  it("without the guard, the same conversation would switch provider mid-state", async () => {
    const { server, router, runner } = await setup();
    const agent = new Agent({ name: "weather", instructions: "Be brief.", model: aisdk(router), tools: [weather] });
    server.failing["gpt-4"] = 503;
    await runner.run(agent, "What's the weather in Rome?", { conversationId: "conv-2" });
    delete server.failing["gpt-4"];
    const next = await runner.run(agent, "And in Paris?", { conversationId: "conv-2" });
    expect(next.finalOutput).toBe("[gpt-4] It is 21°C and sunny in Paris.");
  });
});

describe("pinServerState with a response the provider sent no id for", () => {
  it('does not pin a later request to "FAKE_ID", the id aisdk() gives every such response', async () => {
    const requests: Record<string, unknown>[] = [];
    const served = ["gpt-4", "mixtral"];
    const stub = {
      async getResponse(request: { modelSettings: { providerData?: Record<string, unknown> } }) {
        requests.push(request.modelSettings.providerData ?? {});
        const chosen = served[requests.length - 1];
        return {
          usage: {},
          responseId: "FAKE_ID",
          output: [{ type: "message", providerData: { "irt-router": { chosen } } }],
        };
      },
      // eslint-disable-next-line require-yield
      async *getStreamedResponse() {
        throw new Error("not used");
      },
    };
    const model = pinServerState(stub as never);
    const request = (previousResponseId?: string) =>
      ({ input: "hi", modelSettings: {}, tools: [], handoffs: [], previousResponseId }) as never;
    await model.getResponse(request());
    await model.getResponse(request("FAKE_ID"));
    expect(requests[1]).toEqual({}); // routed, not pinned to the first response's model
  });
});
