import { generateText, simulateReadableStream, stepCountIs, streamText, tool, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createIrtRouterModel,
  irtFeedback,
  irtPrepareStep,
  routedRunOf,
  type IrtPrepareStepOptions,
  type PrepareStepInput,
} from "../../src/ai-sdk/index.js";
import { ValidationError } from "../../src/errors.js";
import { ToyScorer, quietLogger } from "../langchain/helpers.js";
import { Script, toolCall, usage } from "./mocks.js";

const meta = (m: Record<string, Record<string, unknown>> | undefined) => m?.["irt-router"] as Record<string, any>;

describe("irtPrepareStep", () => {
  it("routes each step of a tool loop: a failed tool call passes its model over, the run keeps one id", async () => {
    const script = new Script([
      { content: [toolCall("c1", "Atlantis")] },
      { content: [toolCall("c2", "Paris")] },
      { content: [toolCall("c3", "Lyon")] },
      { content: [{ type: "text", text: "Paris and Lyon: 21C." }] },
    ]);
    const router = createIrtRouterModel({
      models: { "gpt-4": script.child("gpt-4"), mixtral: script.child("mixtral"), mistral: script.child("mistral") },
      scorer: new ToyScorer(),
      policy: { kind: "quality" },
      escalation: true,
      logger: quietLogger(),
      tracing: false,
    });
    const fallbackDefault = new MockLanguageModelV3({ doGenerate: async () => Promise.reject(new Error("unused")) });
    const weather = tool({
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        if (city === "Atlantis") throw new Error(`unknown city ${city}`);
        return `21C in ${city}`;
      },
    });
    const stepNumbers: number[] = [];
    const prepare = irtPrepareStep(router, { needs: { tools: true } });
    const result = await generateText({
      model: fallbackDefault,
      tools: { weather },
      prompt: "Weather in Paris and Lyon?",
      stopWhen: stepCountIs(6),
      prepareStep: (input) => (stepNumbers.push(input.stepNumber), prepare(input)),
    });
    expect(stepNumbers).toEqual([0, 1, 2, 3]);
    expect(result.text).toBe("Paris and Lyon: 21C.");
    const steps = result.steps.map((s) => meta(s.providerMetadata));
    expect(steps).toHaveLength(4);
    // step 0 went to gpt-4, whose tool call failed: step 1 passes it over (escalation) and goes to the next best
    expect(script.served[0]).toBe("gpt-4");
    expect(steps[1]).toMatchObject({ reason: "escalation", escalated: { from: "gpt-4", reason: "tool-error" } });
    expect(script.served[1]).not.toBe("gpt-4");
    expect(steps[2]!.reason).toBe("policy"); // the step after a successful tool call is routed as usual
    // one run id, made at the first step, on every step; the model that served the previous step has its cache priced
    const { runId } = routedRunOf(result);
    expect(runId).toEqual(expect.any(String));
    expect(new Set(steps.map((s) => s.runId))).toEqual(new Set([runId]));
    const served = script.served[2]!;
    expect(steps[3]!.candidates.find((c: { id: string }) => c.id === served).cachedTokens).toBeGreaterThan(0);
    expect(fallbackDefault.doGenerateCalls).toHaveLength(0);
    // a call's steps share the id of its steps array (the AI SDK's, one per call); the same messages sent again
    // (a new call, a new array) start a new run
    const messages = [{ role: "user", content: [{ type: "text", text: "Weather in Nice?" }] }];
    const runOf = async (stepNumber: number, steps: unknown[]) => {
      await prepare({ stepNumber, messages, steps });
      return router.decisions().at(-1)!.runId;
    };
    const call: unknown[] = [];
    const first = await runOf(0, call);
    call.push({});
    expect(await runOf(1, call)).toBe(first);
    expect(await runOf(0, [])).not.toBe(first);

    // the failed step is marked: with toolErrorsAsFailures it counts as a failure of its own
    const events = await irtFeedback(router, result, true, {
      source: "grader",
      attribution: { mode: "every", toolErrorsAsFailures: true },
    });
    expect(events).toHaveLength(4);
    expect(events.find((e) => e.decisionId === steps[0]!.decisionId)!.y).toBe(0);
    expect(events.filter((e) => e.y === 1)).toHaveLength(3);
  });

  it("gives each generateText call its own run id, though concurrent calls' messages start with the same object", async () => {
    // each call: a tool call at step 0, then an answer once its prompt ends with the tool result
    const child = (id: string) =>
      new MockLanguageModelV3({
        modelId: id,
        doGenerate: async (options) => {
          await new Promise((resolve) => setTimeout(resolve, 5)); // the two calls' steps interleave
          const answered = options.prompt.at(-1)!.role === "tool";
          return {
            content: answered ? [{ type: "text", text: "done" }] : [toolCall("c1", "Paris")],
            finishReason: { unified: answered ? "stop" : "tool-calls", raw: undefined },
            usage: usage(),
            warnings: [],
          };
        },
      });
    const router = createIrtRouterModel({
      models: { "gpt-4": child("gpt-4"), mixtral: child("mixtral") },
      scorer: new ToyScorer(),
      policy: { kind: "quality" },
      logger: quietLogger(),
      tracing: false,
    });
    const weather = tool({
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => `21C in ${city}`,
    });
    const fewShot: ModelMessage = { role: "user", content: "Answer briefly. Example: 2+2=4" };
    const call = (question: string) =>
      generateText({
        model: router,
        messages: [fewShot, { role: "user", content: question }],
        tools: { weather },
        stopWhen: stepCountIs(3),
        prepareStep: irtPrepareStep(router, { needs: { tools: true } }),
      });
    const [a, b] = await Promise.all([call("Weather in Paris?"), call("Weather in Lyon?")]);
    const runIds = (result: typeof a) => result.steps.map((s) => meta(s.providerMetadata).runId);
    expect(runIds(a)).toHaveLength(2);
    expect(new Set(runIds(a)).size).toBe(1);
    expect(new Set(runIds(b)).size).toBe(1);
    expect(runIds(a)[0]).not.toBe(runIds(b)[0]);
    // feedback by run credits each call's own steps
    for (const result of [a, b]) {
      const events = await irtFeedback(router, result, true, { source: "grader" });
      expect(events.map((e) => e.decisionId).sort()).toEqual(
        result.steps.map((s) => meta(s.providerMetadata).decisionId).sort(),
      );
    }
  });

  it("refuses a hand-made step input without the AI SDK's steps array, unless given a runId", async () => {
    const router = createIrtRouterModel({
      models: { "gpt-4": new Script([]).child("gpt-4") },
      scorer: new ToyScorer(),
      logger: quietLogger(),
      tracing: false,
    });
    const messages = [{ role: "user", content: [{ type: "text", text: "Hi" }] }];
    const bare = { stepNumber: 0, messages } as unknown as PrepareStepInput;
    const error = await irtPrepareStep(router)(bare).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ path: "step.steps", message: expect.stringMatching(/runId/) });
    await irtPrepareStep(router, { runId: "run-1" })(bare);
    expect(router.decisions().at(-1)!.runId).toBe("run-1");
  });

  it("refuses bad options with a ValidationError naming the field, a misspelt key with the closest known one", () => {
    const router = createIrtRouterModel({
      models: { "gpt-4": { model: new Script([]).child("gpt-4"), capabilities: { tools: false } } },
      scorer: new ToyScorer(),
      logger: quietLogger(),
      tracing: false,
    });
    const refusal = (options: unknown) => {
      try {
        irtPrepareStep(router, options as IrtPrepareStepOptions);
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        return error as ValidationError;
      }
      throw new Error(`accepted ${JSON.stringify(options)}`);
    };
    // a typo for tools would route tool steps to a model that cannot call tools
    expect(refusal({ needs: { tool: true } })).toMatchObject({
      path: "options.needs.tool",
      message: expect.stringContaining('did you mean "tools"?'),
    });
    expect(refusal({ runID: "run-1" })).toMatchObject({
      path: "options.runID",
      message: expect.stringContaining('did you mean "runId"?'),
    });
    expect(refusal({ runId: "" }).path).toBe("options.runId");
    expect(refusal({ needs: { tools: "yes" } }).path).toBe("options.needs.tools");
    expect(refusal({ task: 3 }).path).toBe("options.task");
    expect(() =>
      irtPrepareStep(router, { runId: "run-1", task: "math", needs: { structuredOutput: true } }),
    ).not.toThrow();
  });

  it("needs: a prepareStep cannot see the call's tools, so a model that cannot call tools is excluded only when told", async () => {
    const script = new Script([{ content: [toolCall("c1", "Paris")] }, { content: [{ type: "text", text: "21C." }] }]);
    const router = createIrtRouterModel({
      models: {
        "gpt-4": { model: script.child("gpt-4"), capabilities: { tools: false } },
        mistral: script.child("mistral"),
      },
      scorer: new ToyScorer(),
      policy: { kind: "quality" },
      logger: quietLogger(),
      tracing: false,
    });
    const messages = [{ role: "user", content: [{ type: "text", text: "Weather in Paris?" }] }];
    // untold, the best model is chosen though it cannot call tools (the step's tools are not in prepareStep's input)
    await irtPrepareStep(router)({ stepNumber: 0, messages, steps: [] });
    expect(router.decisions().at(-1)!.chosen).toBe("gpt-4");
    await irtPrepareStep(router, { needs: { tools: true } })({ stepNumber: 0, messages, steps: [] });
    const told = router.decisions().at(-1)!;
    expect(told.chosen).toBe("mistral");
    expect(told.excluded).toEqual([{ id: "gpt-4", reason: expect.stringMatching(/cannot call tools/) }]);
    // the same exclusion the model applies itself when it is the call's model (it reads the call's tools)
    const weather = tool({
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => `21C in ${city}`,
    });
    const result = await generateText({
      model: router,
      tools: { weather },
      prompt: "Weather in Paris?",
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe("21C.");
    expect(script.served).toEqual(["mistral", "mistral"]);
  });
});

describe("streaming", () => {
  const chunks = (text: string, cacheRead?: number): LanguageModelV3StreamPart[] => [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: text },
    { type: "text-end", id: "t" },
    { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: usage(2000, 10, cacheRead) },
  ];
  const streaming = (id: string, parts: LanguageModelV3StreamPart[] | Error) =>
    new MockLanguageModelV3({
      modelId: id,
      doStream: async () => {
        if (parts instanceof Error) throw parts;
        return { stream: simulateReadableStream({ chunks: parts }) };
      },
    });

  it("falls back when a child's doStream throws or its stream errors before any output; usage from the finish", async () => {
    const failing = streaming("gpt-4", new Error("503 unavailable"));
    const erroring = streaming("mixtral", [
      { type: "stream-start", warnings: [] },
      { type: "error", error: new Error("overloaded") },
    ]);
    const working = streaming("mistral", chunks("It is 21C.", 500));
    const model = createIrtRouterModel({
      models: { "gpt-4": failing, mixtral: erroring, mistral: working },
      scorer: new ToyScorer(),
      policy: { kind: "quality" },
      logger: quietLogger(),
      tracing: false,
    });
    const result = streamText({ model, prompt: "Weather in Paris?", maxRetries: 0 });
    expect(await result.text).toBe("It is 21C.");
    const m = meta(await result.providerMetadata);
    expect(m).toMatchObject({
      chosen: "mistral",
      reason: "fallback",
      fallbackFrom: "gpt-4",
      tried: ["gpt-4", "mixtral", "mistral"],
      costSource: "usage",
      inputTokens: 2000,
      cacheReadTokens: 500,
    });
    expect(model.decisions()[0]!.attempts.map((a) => a.error ?? "ok")).toEqual([
      "Error: 503 unavailable",
      "Error: overloaded",
      "ok",
    ]);
  });

  it("irtFeedback takes a streamText result: its steps are awaited; routedRunOf refuses the unsettled promise", async () => {
    const model = createIrtRouterModel({
      models: { "gpt-4": streaming("gpt-4", chunks("391")), mixtral: streaming("mixtral", chunks("391")) },
      scorer: new ToyScorer(),
      policy: { kind: "quality" },
      logger: quietLogger(),
      tracing: false,
    });
    const result = streamText({
      model,
      prompt: "What is 17 * 23?",
      providerOptions: { "irt-router": { runId: "run-1" } },
    });
    const error = (() => {
      try {
        routedRunOf(result as never);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ path: "result.steps", message: expect.stringMatching(/await result\.steps/) });
    expect(await result.text).toBe("391");
    const events = await irtFeedback(model, result, true, { source: "grader" });
    expect(events).toEqual([expect.objectContaining({ decisionId: model.decisions()[0]!.decisionId, y: 1 })]);
    // the run's one decision has its outcome now
    await expect(model.feedback("run-1", true, { source: "grader" })).rejects.toThrow(/already has an outcome/);
  });
});
