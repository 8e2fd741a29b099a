import { generateText, simulateReadableStream, stepCountIs, streamText, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createIrtRouterModel, irtFeedback, irtPrepareStep, routedRunOf } from "../../src/ai-sdk/index.js";
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
    // a call's steps share the id made at its step 0; the same messages sent again start a new run
    const messages = [{ role: "user", content: [{ type: "text", text: "Weather in Nice?" }] }];
    const runOf = async (stepNumber: number) => {
      await prepare({ stepNumber, messages });
      return router.decisions().at(-1)!.runId;
    };
    const first = await runOf(0);
    expect(await runOf(1)).toBe(first);
    expect(await runOf(0)).not.toBe(first);

    // the failed step is marked: with toolErrorsAsFailures it counts as a failure of its own
    const events = await irtFeedback(router, result, true, {
      source: "grader",
      attribution: { mode: "every", toolErrorsAsFailures: true },
    });
    expect(events).toHaveLength(4);
    expect(events.find((e) => e.decisionId === steps[0]!.decisionId)!.y).toBe(0);
    expect(events.filter((e) => e.y === 1)).toHaveLength(3);
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
    await irtPrepareStep(router)({ stepNumber: 0, messages });
    expect(router.decisions().at(-1)!.chosen).toBe("gpt-4");
    await irtPrepareStep(router, { needs: { tools: true } })({ stepNumber: 0, messages });
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
});
