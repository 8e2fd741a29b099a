import { generateText, stepCountIs, tool, type ModelMessage } from "ai-v7";
import { MockLanguageModelV4 } from "ai-v7/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createIrtRouterModel, irtPrepareStep } from "../../src/ai-sdk/index.js";
import { toyRouting } from "./helpers.js";

/**
 * `irtPrepareStep` without a `runId` under `ai` 7 (Node 22): its `prepareStep` input carries the call's own `steps`
 * array too, so concurrent calls whose messages share their first object still get one run id each.
 */
describe("irtPrepareStep run ids (ai 7)", () => {
  it("gives each concurrent generateText call its own run id", async () => {
    // a tool call at step 0, the answer once the prompt ends with the tool result
    const child = (id: string) =>
      new MockLanguageModelV4({
        modelId: id,
        doGenerate: async (options) => {
          await new Promise((resolve) => setTimeout(resolve, 5)); // the two calls' steps interleave
          const answered = options.prompt.at(-1)!.role === "tool";
          return {
            content: answered
              ? [{ type: "text", text: "21C." }]
              : [{ type: "tool-call", toolCallId: "c1", toolName: "weather", input: '{"city":"Paris"}' }],
            finishReason: { unified: answered ? "stop" : "tool-calls", raw: undefined },
            usage: {
              inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: 10, text: 10, reasoning: 0 },
            },
            warnings: [],
          };
        },
      });
    const router = createIrtRouterModel({
      models: { "gpt-4": child("gpt-4"), mixtral: child("mixtral") },
      ...toyRouting(),
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
    const runIds = (result: typeof a) =>
      result.steps.map((s) => (s.providerMetadata?.["irt-router"] as { runId?: string } | undefined)?.runId);
    expect(runIds(a)).toHaveLength(2);
    expect(new Set(runIds(a)).size).toBe(1);
    expect(new Set(runIds(b)).size).toBe(1);
    expect(runIds(a)[0]).toEqual(expect.any(String));
    expect(runIds(a)[0]).not.toBe(runIds(b)[0]);
  });
});
