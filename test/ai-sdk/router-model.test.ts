import { generateText, stepCountIs, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createIrtRouterModel, irtFeedback, irtOnFinish, type IrtRouterModel } from "../../src/ai-sdk/index.js";
import { stepCostUsd } from "../../src/policy/expected-cost.js";
import { ValidationError } from "../../src/errors.js";
import { ToyScorer, quietLogger } from "../langchain/helpers.js";
import { Script, toolCall, usage } from "./mocks.js";

const GPT4 = { inputPer1M: 10, outputPer1M: 30, cachedInputPer1M: 1 };
const weather = tool({
  description: "Current weather of a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => `It is 21C in ${city}.`,
});
const LOOP = [
  { content: [toolCall("c1", "Paris")] },
  { content: [toolCall("c2", "Lyon")] },
  { content: [{ type: "text" as const, text: "Paris and Lyon are both at 21C." }] },
];

function router(script: Script, extra: Record<string, unknown> = {}): IrtRouterModel {
  return createIrtRouterModel({
    models: {
      "gpt-4": { model: script.child("gpt-4"), price: GPT4 },
      mixtral: script.child("mixtral"),
      mistral: script.child("mistral"),
    },
    scorer: new ToyScorer(),
    policy: { kind: "quality" },
    logger: quietLogger(),
    tracing: false,
    ...extra,
  });
}

const meta = (m: Record<string, Record<string, unknown>> | undefined) => m?.["irt-router"] as Record<string, any>;

describe("createIrtRouterModel", () => {
  it("routes every step of a generateText tool loop (3 steps), the decision in each step's providerMetadata", async () => {
    const script = new Script(LOOP);
    const model = router(script);
    const result = await generateText({
      model,
      tools: { weather },
      prompt: "What is the weather in Paris and in Lyon?",
      stopWhen: stepCountIs(6),
      providerOptions: { "irt-router": { runId: "run-1" } },
    });
    expect(result.text).toBe("Paris and Lyon are both at 21C.");
    expect(result.steps).toHaveLength(3);
    const steps = result.steps.map((s) => meta(s.providerMetadata));
    expect(new Set(steps.map((s) => s.decisionId)).size).toBe(3);
    for (const s of steps) {
      expect(s).toMatchObject({ runId: "run-1", chosen: "gpt-4", policy: "quality", reason: "policy", answered: true });
      expect(s.candidates.map((c: { id: string }) => c.id).sort()).toEqual(["gpt-4", "mistral", "mixtral"]);
      expect(s.costSource).toBe("usage");
    }
    // no cache figures reported: the first step at list price, later ones with the run's prefix the router tracked
    const list = stepCostUsd({ contextTokens: 1000, outputTokens: 20, price: GPT4 });
    expect(steps[0]!.realizedCostUsd).toBeCloseTo(list, 12);
    expect(steps[2]!.realizedCostUsd).toBeLessThan(list);
    expect(script.served).toEqual(["gpt-4", "gpt-4", "gpt-4"]);
    // the model that served the run keeps its prompt cache priced, from the tags on its replies in the messages
    const last = steps[2]!.candidates;
    expect(last.find((c: { id: string }) => c.id === "gpt-4").cachedTokens).toBeGreaterThan(0);
    expect(last.find((c: { id: string }) => c.id === "mixtral").cachedTokens).toBe(0);
    // the child never sees the router's own provider options
    const child = (
      model as unknown as { children: Map<string, { doGenerateCalls: { providerOptions?: object }[] }> }
    ).children.get("gpt-4")!;
    expect(child.doGenerateCalls.every((c) => !("irt-router" in (c.providerOptions ?? {})))).toBe(true);
    expect(model.decisions()).toHaveLength(3);

    const events = await model.feedback("run-1", true, { source: "grader" });
    expect(events).toHaveLength(3);
    expect(events.every((e) => e.runId === "run-1" && e.model === "gpt-4-1106-preview")).toBe(true);
  });

  it("falls back to the next model when the chosen child throws, and says so in the decision", async () => {
    const script = new Script(LOOP.slice(2));
    const model = createIrtRouterModel({
      models: {
        "gpt-4": script.child("gpt-4", () => new Error("429 rate limited")),
        mixtral: script.child("mixtral"),
      },
      scorer: new ToyScorer(),
      logger: quietLogger(),
      tracing: false,
    });
    const result = await generateText({ model, prompt: "Weather?", maxRetries: 0 });
    const m = meta(result.providerMetadata);
    expect(m).toMatchObject({
      chosen: "mixtral",
      reason: "fallback",
      fallbackFrom: "gpt-4",
      tried: ["gpt-4", "mixtral"],
    });
    expect(script.served).toEqual(["mixtral"]);
    expect(model.decisions()[0]!.attempts.map((a) => [a.id, a.ok, a.error])).toEqual([
      ["gpt-4", false, "Error: 429 rate limited"],
      ["mixtral", true, undefined],
    ]);
  });

  it("rethrows the last error when every child fails, with the decision on it", async () => {
    const script = new Script(LOOP);
    const model = createIrtRouterModel({
      models: {
        "gpt-4": script.child("gpt-4", () => new Error("down")),
        mixtral: script.child("mixtral", () => new Error("down too")),
      },
      scorer: new ToyScorer(),
      logger: quietLogger(),
      tracing: false,
    });
    const error = await generateText({ model, prompt: "Weather?", maxRetries: 0 }).catch((e: unknown) => e);
    expect(String(error)).toMatch(/down too/);
  });

  it("bills the cache-read tokens the provider reports at the cached-input price, and prices the next step with them", async () => {
    const script = new Script([
      { content: [toolCall("c1", "Paris")], usage: usage(10_000, 100) },
      { content: [toolCall("c2", "Lyon")], usage: usage(10_000, 100, 8000) },
      { content: [toolCall("c3", "Nice")], usage: usage(10_000, 100, 0) },
      { content: [{ type: "text", text: "done" }], usage: usage(10_000, 100, 0) },
    ]);
    const model = router(script);
    const result = await generateText({
      model,
      tools: { weather },
      prompt: "Weather in Paris, Lyon and Nice?",
      stopWhen: stepCountIs(6),
      providerOptions: { "irt-router": { runId: "run-c" } },
    });
    const steps = result.steps.map((s) => meta(s.providerMetadata));
    expect(steps[1]).toMatchObject({ costSource: "usage", inputTokens: 10_000, cacheReadTokens: 8000 });
    expect(steps[1]!.realizedCostUsd).toBeCloseTo(
      stepCostUsd({ contextTokens: 10_000, cachedTokens: 8000, outputTokens: 100, price: GPT4 }),
      12,
    );
    const cached = (s: Record<string, any>) => s.candidates.find((c: { id: string }) => c.id === "gpt-4").cachedTokens;
    expect(cached(steps[2]!)).toBeGreaterThan(0); // the provider read from its cache: the router's count stands
    // step 3 read nothing where the router counted a cached prefix: step 4 is priced with no cache for gpt-4
    expect(cached(steps[3]!)).toBe(0);
  });

  it("feedback from onFinish with the run's id (irtOnFinish), or by the steps' decisions without one", async () => {
    const script = new Script(LOOP);
    const model = router(script);
    const graded: number[] = [];
    await generateText({
      model,
      tools: { weather },
      prompt: "Weather in Paris and Lyon?",
      stopWhen: stepCountIs(6),
      providerOptions: { "irt-router": { runId: "run-f" } },
      onFinish: irtOnFinish(model, (event) => (graded.push(event.steps.length), event.text.includes("21C")), {
        source: "grader",
      }),
    });
    expect(graded).toEqual([3]);
    await expect(model.feedback("run-f", true, { source: "grader" })).rejects.toThrow(/already/);

    const again = new Script(LOOP.slice(2));
    const bare = router(again);
    const result = await generateText({ model: bare, prompt: "Weather?" });
    const events = await irtFeedback(bare, result, 1, { source: "grader" });
    expect(events.map((e) => e.decisionId)).toEqual([meta(result.providerMetadata).decisionId]);
  });

  it("escalates a whole run: each attempt a generateText pinned to the model runs.escalate chose", async () => {
    const script = new Script([{ content: [{ type: "text", text: "patched" }] }]);
    const model = createIrtRouterModel({
      models: {
        big: { model: script.child("big"), price: { inputPer1M: 5, outputPer1M: 25 } },
        small: { model: script.child("small"), price: { inputPer1M: 0.1, outputPer1M: 0.4 } },
      },
      scorer: new ToyScorer(),
      logger: quietLogger(),
      tracing: false,
      runs: { costWeight: 0.3 },
    });
    const task = { id: "fix-git", text: "Recover the lost commit in this repository." };
    const result = await model.runs.escalate(
      task,
      (modelId) =>
        generateText({
          model,
          prompt: task.text,
          providerOptions: { "irt-router": { model: modelId, runId: modelId } },
        }),
      (_reply, modelId) => modelId === "big", // the cheap run fails its check, the dear one passes
      { maxAttempts: 3 },
    );
    expect(result.attempts.map((a) => a.modelId)).toEqual(["small", "big"]);
    expect(result.stopReason).toBe("passed");
    // Every call of an attempt was served by the model the escalation chose for it, and only by it.
    expect(script.served).toEqual(["small", "big"]);
    expect(meta(result.result!.providerMetadata)).toMatchObject({ chosen: "big", runId: "big" });
    // Both outcomes were fed back to the run-level router: a new similar task now starts from what it learned.
    expect(model.runs.feedbackCount).toBe(2);
  });

  it("validates its options into ValidationErrors naming the field", () => {
    const script = new Script(LOOP);
    const path = (options: unknown) => {
      try {
        createIrtRouterModel(options as never);
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        return (error as ValidationError).path;
      }
      return undefined;
    };
    expect(path({ models: { a: { invoke() {} } } })).toMatch(/^options\.models/);
    expect(path({ models: [] })).toMatch(/^options\.models/);
    expect(path({ models: [script.child("x"), script.child("x")] })).toBe("options.models.1.id");
    expect(path({ models: { a: script.child("a") }, policy: { kind: "nope" } })).toMatch(/^options\.policy/);
    expect(path({ models: { a: { model: script.child("a"), price: { inputPer1M: -1, outputPer1M: 1 } } } })).toMatch(
      /^options\.models\.0\.price/,
    );
  });
});
