import { Agent } from "@mastra/core/agent";
import { RequestContext } from "@mastra/core/request-context";
import { createTool } from "@mastra/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { APICallError, type LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { IrtRouterError, ValidationError } from "../../src/errors.js";
import type { DecisionRecord } from "../../src/core/contracts/route-decision.js";
import { IrtRouterProcessor, MASTRA_RUN_ID_KEY } from "../../src/mastra/index.js";
import { runIdOf } from "../../src/mastra/run-id.js";
import { loopbackPerTest, PRICES, toyRouting } from "./helpers.js";

/**
 * The Mastra processor on a real Mastra `Agent` (Node 22: @mastra/core needs it), its models real `@ai-sdk/openai`
 * chat models talking HTTP to the loopback server. The toy scorer with the quality policy ranks gpt-4 first, then
 * mixtral, then mistral.
 */
describe("IrtRouterProcessor on a Mastra Agent", () => {
  const loopback = loopbackPerTest();

  const weather = createTool({
    id: "weather",
    description: "Current weather of a city",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => `It is 21°C and sunny in ${city}.`,
  });

  async function setup(failing: Record<string, number> = {}) {
    const { server, openai } = await loopback.start({ failing });
    const sink: DecisionRecord[] = [];
    const processor = new IrtRouterProcessor({
      models: {
        "gpt-4": { model: openai.chat("gpt-4"), price: PRICES["gpt-4"] },
        mixtral: { model: openai.chat("mixtral"), price: PRICES.mixtral },
        mistral: { model: openai.chat("mistral"), price: PRICES.mistral },
      },
      ...toyRouting(),
      decisionSink: (record) => void sink.push(record),
    });
    return { server, openai, processor, sink };
  }

  type AgentConfig = ConstructorParameters<typeof Agent>[0];

  function agent(model: unknown, processor: IrtRouterProcessor, config: Partial<AgentConfig> = {}) {
    return new Agent({
      id: "weather-agent",
      name: "weather-agent",
      instructions: "Answer briefly.",
      model: model as AgentConfig["model"],
      tools: { weather },
      inputProcessors: [processor],
      outputProcessors: [processor],
      errorProcessors: [processor],
      maxProcessorRetries: 2,
      ...config,
    });
  }

  /** An error and its causes, outermost first (Mastra wraps a processor's error). */
  function causesOf(error: unknown): unknown[] {
    const out: unknown[] = [];
    for (let e = error; e !== undefined && e !== null && out.length < 8; e = (e as { cause?: unknown }).cause) {
      out.push(e);
    }
    return out;
  }

  /** The messages of an error and of its causes, outermost first. */
  function messagesOf(error: unknown): string {
    return causesOf(error)
      .map((e) => String((e as { message?: unknown }).message))
      .join(" <- ");
  }

  /**
   * What is left of an error a processor hook threw once Mastra has passed it on: Mastra runs the input and output
   * hooks as a processor workflow and rethrows a failed one as its own PROCESSOR_WORKFLOW_FAILED error, with the
   * message only (no cause): whether any error of the chain is the one thrown, or of its class.
   */
  function thrownKept(error: unknown, thrown: new (...args: never[]) => unknown): boolean {
    const chain = causesOf(error);
    // the id of a MastraError; `code` once Mastra has serialized one as another's cause
    const ids = chain.map((e) => (e as { id?: unknown }).id ?? (e as { code?: unknown }).code);
    expect(ids).toContain("PROCESSOR_WORKFLOW_FAILED");
    return chain.some((e) => e instanceof thrown);
  }

  it("routes every step of a tool loop, records each step's realized cost with the cache it read, and takes feedback by run", async () => {
    const { server, openai, processor } = await setup();
    const requestContext = new RequestContext();
    requestContext.set(MASTRA_RUN_ID_KEY, "mastra-run-1");
    const result = await agent(openai.chat("configured"), processor).generate("What's the weather in Lisbon?", {
      maxSteps: 4,
      requestContext,
    });
    expect(result.text).toBe("[gpt-4] It is 21°C and sunny in Lisbon.");
    // the configured model never served: each step went to the routed one
    expect(server.requests.map((r) => `${r.model}:${r.toolCall ?? "answer"}`)).toEqual([
      "gpt-4:weather",
      "gpt-4:answer",
    ]);
    const decisions = processor.router.decisions();
    expect(decisions.map((d) => [d.runId, d.chosen])).toEqual([
      ["mastra-run-1", "gpt-4"],
      ["mastra-run-1", "gpt-4"],
    ]);
    const second = decisions[1]!.realized!;
    expect(second.source).toBe("usage");
    expect(second.inputTokens).toBe(server.requests[1]!.promptTokens);
    expect(second.cacheReadTokens).toBe(server.requests[1]!.cachedTokens);
    expect(second.cacheReadTokens).toBeGreaterThan(0);
    const events = await processor.feedback("mastra-run-1", true, { source: "grader" });
    expect(events).toHaveLength(2);
    // an id it never routed: the message says where a Mastra caller finds the run id
    await expect(processor.feedback("mastra-run-2", true)).rejects.toThrow(
      /or the run id in the request context \(irtRouterRunId, set by you or by the processor\)/,
    );
  });

  it("escalates in processAPIError: the rejected model's step is retried on the router's next model", async () => {
    const { server, openai, processor } = await setup({ "gpt-4": 400 });
    const requestContext = new RequestContext();
    const result = await agent(openai.chat("configured"), processor).generate("What's the weather in Oslo?", {
      maxSteps: 4,
      requestContext,
    });
    expect(result.text).toBe("[mixtral] It is 21°C and sunny in Oslo.");
    expect(server.requests.map((r) => `${r.model}:${r.status}`)).toEqual([
      "gpt-4:400",
      "mixtral:200",
      "gpt-4:400",
      "mixtral:200",
    ]);
    const [first] = processor.router.decisions();
    expect(first!.chosen).toBe("mixtral");
    expect(first!.attempts.map((a) => [a.id, a.ok])).toEqual([
      ["gpt-4", false],
      ["mixtral", true],
    ]);
    // the processor named the run it made up in the request context
    expect(first!.runId).toBe(requestContext.get(MASTRA_RUN_ID_KEY));
  });

  it("leaves the agent's own fallback models alone: they serve after the routed model fails, unreplaced", async () => {
    const { server, openai, processor } = await setup({ "gpt-4": 400 });
    const model = [{ model: openai.chat("primary") }, { model: openai.chat("secondary") }];
    const result = await agent(model, processor).generate("What's the weather in Rome?", { maxSteps: 4 });
    expect(result.text).toBe("[secondary] It is 21°C and sunny in Rome.");
    expect(server.requests.map((r) => `${r.model}:${r.status}`)).toEqual([
      "gpt-4:400",
      "secondary:200",
      "secondary:200",
    ]);
    const decisions = processor.router.decisions();
    expect(decisions).toHaveLength(1);
    expect(decisions[0]!.attempts.map((a) => [a.id, a.ok])).toEqual([["gpt-4", false]]);
  });

  it("records the routed model's failure before the agent's own fallback serves, as an error processor or not", async () => {
    const runs = [];
    for (const errorProcessors of ["processor", "none"] as const) {
      const { server, openai, processor, sink } = await setup({ "gpt-4": 400 });
      const model = [{ model: openai.chat("primary") }, { model: openai.chat("secondary") }];
      const config = errorProcessors === "none" ? { errorProcessors: [] } : {};
      const result = await agent(model, processor, config).generate("What's the weather in Rome?", { maxSteps: 4 });
      expect(result.text).toBe("[secondary] It is 21°C and sunny in Rome.");
      expect(server.requests.map((r) => `${r.model}:${r.status}`)).toEqual([
        "gpt-4:400",
        "secondary:200",
        "secondary:200",
      ]);
      const decisions = processor.router.decisions();
      expect(decisions).toHaveLength(1);
      runs.push({
        attempts: decisions[0]!.attempts.map(({ ms: _ms, ...a }) => a),
        logged: sink.map(({ decisionId: _id, time: _time, runId: _run, ...r }) => r),
      });
    }
    // before, without the processor as an error processor: no attempt, and a decision logged as never tried
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[0]!.attempts).toEqual([
      { id: "gpt-4", ok: false, error: "AI_APICallError: gpt-4 is unavailable (loopback)" },
    ]);
    expect(runs[0]!.logged).toMatchObject([{ model: "gpt-4", answered: false, tried: ["gpt-4"] }]);
  });

  /**
   * Streams the question through an agent with fallback entries of its own, the routed "gpt-4" a mock whose stream is
   * `routed()`, with the processor as an error processor and without: the fallback serves both times, and the routed
   * model's attempts are the same; they are returned.
   */
  async function fallbackAttempts(routed: () => ReadableStream<LanguageModelV3StreamPart>, options: object = {}) {
    const attempts = [];
    for (const errorProcessors of ["processor", "none"] as const) {
      const { server, openai } = await loopback.start();
      const gpt4 = new MockLanguageModelV3({ modelId: "gpt-4", doStream: async () => ({ stream: routed() }) });
      const processor = new IrtRouterProcessor({
        models: {
          "gpt-4": { model: gpt4, price: PRICES["gpt-4"] },
          mixtral: { model: openai.chat("mixtral"), price: PRICES.mixtral },
        },
        ...toyRouting(),
      });
      const model = [{ model: openai.chat("primary") }, { model: openai.chat("secondary") }];
      const config = errorProcessors === "none" ? { errorProcessors: [] } : {};
      const question = "What's the weather in Rome?";
      const stream = await agent(model, processor, config).stream(question, { maxSteps: 4, ...options });
      expect(await stream.text).toBe("[secondary] It is 21°C and sunny in Rome.");
      expect(gpt4.doStreamCalls).toHaveLength(1);
      expect(server.requests.map((r) => r.model)).toEqual(["secondary", "secondary"]);
      attempts.push(processor.router.decisions().map((d) => d.attempts.map(({ ms: _ms, ...a }) => a)));
    }
    expect(attempts[1]).toEqual(attempts[0]);
    return attempts[0];
  }

  it("records the routed model's stream breaking part-way before the agent's own fallback serves, as an error processor or not", async () => {
    const broken = new Error("connection reset part-way");
    // a mock model whose answer starts, then its stream throws (as a dropped connection does)
    const attempts = await fallbackAttempts(
      () =>
        new ReadableStream({
          start(controller) {
            controller.enqueue({ type: "stream-start", warnings: [] });
            controller.enqueue({ type: "text-start", id: "t" });
            controller.enqueue({ type: "text-delta", id: "t", delta: "It is" });
          },
          pull: (controller) => controller.error(broken),
        }),
    );
    // before, without the processor as an error processor: [[]], no attempt
    expect(attempts).toEqual([[{ id: "gpt-4", ok: false, error: "Error: connection reset part-way" }]]);
  });

  it("records Mastra's timeout of a stalled routed model before the agent's own fallback serves, as an error processor or not", async () => {
    // a mock model that starts its stream, then stalls (and ignores the abort): Mastra's first-chunk guard cancels it
    const stalled = () =>
      new ReadableStream({
        start(controller) {
          controller.enqueue({ type: "stream-start", warnings: [] });
        },
        pull: () => new Promise(() => {}),
      });
    const attempts = await fallbackAttempts(stalled, { modelSettings: { timeout: { firstChunkMs: 300 } } });
    // before, without the processor as an error processor: "TypeError: Invalid state: Controller is already closed"
    expect(attempts).toEqual([
      [
        {
          id: "gpt-4",
          ok: false,
          error: expect.stringMatching(/^MastraTimeoutError: Model call timed out before first content after 300ms/),
        },
      ],
    ]);
  }, 20_000);

  it("records a failure whose error it cannot see when the routed model is a config Mastra resolves itself", async () => {
    const { server, openai } = await loopback.start({ failing: { "gpt-4": 400 } });
    const processor = new IrtRouterProcessor({
      models: {
        "gpt-4": { model: { id: "openai/gpt-4", url: server.baseURL, apiKey: "loopback" }, price: PRICES["gpt-4"] },
        mixtral: { model: openai.chat("mixtral"), price: PRICES.mixtral },
      },
      ...toyRouting(),
    });
    const model = [{ model: openai.chat("primary") }, { model: openai.chat("secondary") }];
    const result = await agent(model, processor, { errorProcessors: [] }).generate("What's the weather in Rome?", {
      maxSteps: 4,
    });
    expect(result.text).toBe("[secondary] It is 21°C and sunny in Rome.");
    expect(server.requests.map((r) => `${r.model}:${r.status}`)).toEqual([
      "gpt-4:400",
      "secondary:200",
      "secondary:200",
    ]);
    const [decision] = processor.router.decisions();
    // before: no attempt, the decision closed as if gpt-4 had never been tried
    expect(decision!.attempts.map((a) => [a.id, a.ok])).toEqual([["gpt-4", false]]);
    expect(decision!.attempts[0]!.error).toMatch(
      /^Error: the call failed and Mastra moved the step to the agent's fallback model; its error was not seen/,
    );
  });

  it("with one step allowed (maxSteps: 1) asks for no retry Mastra cannot run: the provider's error passes and the decision is closed", async () => {
    const { server, openai, processor, sink } = await setup({ "gpt-4": 400 });
    const run = agent(openai.chat("configured"), processor).generate("What's the weather in Oslo?", { maxSteps: 1 });
    // before: resolved with text "" and finishReason "retry", the error gone
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).message).toMatch(/gpt-4 is unavailable \(loopback\)/);
    // the provider's APICallError, thrown by processOutputResult, reaches the caller as Mastra's error: its class is
    // lost, and the decision keeps its name and message
    expect(thrownKept(error, APICallError)).toBe(false);
    expect(server.requests.map((r) => `${r.model}:${r.status}`)).toEqual(["gpt-4:400"]);
    const [decision] = processor.router.decisions();
    expect(decision!.attempts).toMatchObject([
      { id: "gpt-4", ok: false, error: "AI_APICallError: gpt-4 is unavailable (loopback)" },
    ]);
    expect(sink).toHaveLength(1); // before: none, the decision stayed open
  });

  it("closes the decision when Mastra refuses the retry it was asked for (maxProcessorRetries reached)", async () => {
    const { server, openai, processor, sink } = await setup({ "gpt-4": 400, mixtral: 400, mistral: 400 });
    const run = agent(openai.chat("configured"), processor, { maxProcessorRetries: 1 }).generate("Hi", {
      maxSteps: 4,
    });
    // a provider error Mastra passes on itself keeps its class
    await expect(run).rejects.toBeInstanceOf(APICallError);
    await expect(run).rejects.toThrow(/mixtral is unavailable \(loopback\)/);
    expect(server.requests.map((r) => `${r.model}:${r.status}`)).toEqual(["gpt-4:400", "mixtral:400"]);
    const [decision] = processor.router.decisions();
    expect(decision!.attempts.map((a) => [a.id, a.ok])).toEqual([
      ["gpt-4", false],
      ["mixtral", false],
    ]);
    expect(sink).toHaveLength(1); // before: none
  });

  it("records a rejected call as a failure when the processor is not an error processor", async () => {
    const { server, openai, processor, sink } = await setup({ "gpt-4": 400 });
    const run = agent(openai.chat("configured"), processor, { errorProcessors: [] }).generate("Hi", { maxSteps: 4 });
    await expect(run).rejects.toThrow(/gpt-4 is unavailable \(loopback\)/);
    expect(server.requests.map((r) => `${r.model}:${r.status}`)).toEqual(["gpt-4:400"]);
    const [decision] = processor.router.decisions();
    // before: [["gpt-4", true]], the 400 counted as an answer
    expect(decision!.attempts.map((a) => [a.id, a.ok])).toEqual([["gpt-4", false]]);
    expect(decision!.attempts[0]!.error).toMatch(/gpt-4 is unavailable/);
    expect(sink).toHaveLength(1);
  });

  it("refuses a run id that is not a non-empty string, before any model call, and never overwrites it", async () => {
    const { server, openai, processor } = await setup();
    const requestContext = new RequestContext();
    requestContext.set(MASTRA_RUN_ID_KEY, 4242);
    const error = await agent(openai.chat("configured"), processor)
      .generate("Hi", { requestContext })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    // Mastra wraps a processor's error (its class is lost on the way); the message says what to fix
    expect(messagesOf(error)).toMatch(
      /irtRouterRunId in the request context must be a non-empty string, got the number 4242/,
    );
    expect(thrownKept(error, IrtRouterError)).toBe(false);
    expect(requestContext.get(MASTRA_RUN_ID_KEY)).toBe(4242); // before: replaced by a random UUID
    expect(server.requests).toEqual([]);
    expect(processor.router.decisions()).toEqual([]);
  });

  it("runIdOf: a caller's run id is kept, a bad one is a ValidationError naming irtRouterRunId, none gets a new one", () => {
    const context = new RequestContext();
    context.set(MASTRA_RUN_ID_KEY, "run-7");
    expect(runIdOf(context)).toBe("run-7");
    for (const bad of [4242, "", null, { id: 1 }]) {
      context.set(MASTRA_RUN_ID_KEY, bad);
      let thrown: unknown;
      try {
        runIdOf(context);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(ValidationError);
      expect((thrown as ValidationError).path).toBe(MASTRA_RUN_ID_KEY);
      expect((thrown as Error).message).toMatch(/^irtRouterRunId in the request context must be a non-empty string/);
      expect(context.get(MASTRA_RUN_ID_KEY)).toBe(bad);
    }
    const fresh = new RequestContext();
    const made = runIdOf(fresh);
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    expect(fresh.get(MASTRA_RUN_ID_KEY)).toBe(made);
    expect(runIdOf(undefined)).toMatch(/^[0-9a-f-]{36}$/);
  });
});
