import { generateText, stepCountIs, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loopbackPerTest } from "./helpers.js";

/** The examples' loopback server, driven by the real `@ai-sdk/openai` provider over HTTP. */
describe("loopback OpenAI-compatible server", () => {
  const loopback = loopbackPerTest();

  const weather = tool({
    description: "Current weather of a city",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => `It is 21°C and sunny in ${city}.`,
  });

  it("serves a tool loop: a tool call, then the answer from its result, with cached tokens on the second call", async () => {
    const { server, openai } = await loopback.start();
    const result = await generateText({
      model: openai.chat("gpt-4o-mini"),
      tools: { weather },
      stopWhen: stepCountIs(4),
      prompt: "What's the weather in Lisbon?",
    });
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]!.toolCalls[0]!.input).toEqual({ city: "Lisbon" });
    expect(result.text).toBe("[gpt-4o-mini] It is 21°C and sunny in Lisbon.");
    expect(server.requests.map((r) => r.toolCall ?? "answer")).toEqual(["weather", "answer"]);
    expect(server.requests[0]!.cachedTokens).toBe(0);
    expect(server.requests[1]!.cachedTokens).toBeGreaterThan(0);
    expect(result.steps[1]!.usage.inputTokenDetails.cacheReadTokens).toBe(server.requests[1]!.cachedTokens);
  });

  it("streams with usage in the last chunk", async () => {
    const { server, openai } = await loopback.start();
    const result = streamText({
      model: openai.chat("gpt-4o"),
      tools: { weather },
      stopWhen: stepCountIs(4),
      prompt: "Weather in Oslo?",
    });
    expect(await result.text).toBe("[gpt-4o] It is 21°C and sunny in Oslo.");
    expect((await result.totalUsage).inputTokens).toBe(
      server.requests[0]!.promptTokens + server.requests[1]!.promptTokens,
    );
    expect(server.requests.every((r) => r.stream)).toBe(true);
  });

  it("fails the models it is told to, with their HTTP status", async () => {
    const { server, openai } = await loopback.start({ failing: { "gpt-4o": 503 } });
    await expect(generateText({ model: openai.chat("gpt-4o"), prompt: "hi", maxRetries: 0 })).rejects.toThrow(
      /unavailable/,
    );
    expect(server.requests).toMatchObject([{ model: "gpt-4o", status: 503 }]);
  });
});
