/**
 * Mastra (Node 22): an agent whose every step is routed by `IrtRouterProcessor` between two OpenAI models, over real
 * HTTP with `@ai-sdk/openai` against a loopback OpenAI-compatible server (offline, no key). gpt-4o rejects its first
 * request (HTTP 400): the processor escalates to the router's next model and Mastra retries the step.
 *
 *   npx tsx examples/mastra.ts
 *
 * With the real API, drop the server and `baseURL`: `createOpenAI({ apiKey: process.env.OPENAI_API_KEY })`.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { Agent } from "@mastra/core/agent";
import { RequestContext } from "@mastra/core/request-context";
import { createTool } from "@mastra/core/tools";
import { z } from "zod";
import { IrtRouterProcessor, MASTRA_RUN_ID_KEY } from "../mastra.js"; // irt-router/mastra
import { startLoopbackOpenAI } from "./loopback-openai.js";

const server = await startLoopbackOpenAI({ failing: { "gpt-4o": 400 } });
const openai = createOpenAI({ baseURL: server.baseURL, apiKey: "loopback" });
const router = new IrtRouterProcessor({
  models: { "gpt-4o": { model: openai.chat("gpt-4o") }, "gpt-4o-mini": { model: openai.chat("gpt-4o-mini") } },
  policy: { kind: "quality" },
});
const weather = createTool({
  id: "weather",
  description: "Current weather of a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => `It is 21°C and sunny in ${city}.`,
});
const agent = new Agent({
  id: "weather",
  name: "weather",
  instructions: "Answer briefly.",
  model: openai.chat("gpt-4o"), // the entry the processor replaces per step
  tools: { weather },
  inputProcessors: [router],
  outputProcessors: [router],
  errorProcessors: [router],
  maxProcessorRetries: 2,
});

const requestContext = new RequestContext();
requestContext.set(MASTRA_RUN_ID_KEY, "mastra-run-1");
const result = await agent.generate("What's the weather in Lisbon?", { maxSteps: 4, requestContext });
console.log(`answer: ${result.text}`);
for (const d of router.router.decisions()) {
  const tried = d.attempts.filter((a) => !a.ok).map((a) => a.id);
  const cache = d.realized?.cacheReadTokens ? `, ${d.realized.cacheReadTokens} cached tokens read` : "";
  console.log(
    `step -> ${d.chosen}${tried.length ? ` (escalated from ${tried.join(", ")})` : ""}: $${d.realized?.costUsd.toFixed(6)}${cache}`,
  );
}
const events = await router.feedback("mastra-run-1", true, { source: "grader" });
console.log(`feedback: ${events.length} event(s) recorded for run mastra-run-1`);
await server.close();
