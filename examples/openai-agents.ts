/**
 * OpenAI Agents JS: a `Runner` run whose every turn is routed between two OpenAI models by
 * `aisdk(createIrtRouterModel(...))`, over real HTTP with `@ai-sdk/openai` against a loopback OpenAI-compatible server
 * (offline, no key). A second run continues the first's conversation (`conversationId`): `pinServerState` keeps it
 * on the model that holds it.
 *
 *   npx tsx examples/openai-agents.ts
 *
 * With the real API, drop the server and `baseURL`: `createOpenAI({ apiKey: process.env.OPENAI_API_KEY })`.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { Agent, Runner, tool } from "@openai/agents";
import { aisdk } from "@openai/agents-extensions/ai-sdk";
import { z } from "zod";
import { createIrtRouterModel } from "../ai-sdk.js"; // irt-router/ai-sdk
import { pinServerState } from "../openai-agents.js"; // irt-router/openai-agents
import { startLoopbackOpenAI } from "./loopback-openai.js";

const server = await startLoopbackOpenAI({ failing: { "gpt-4o": 503 } }); // gpt-4o is down at first
const openai = createOpenAI({ baseURL: server.baseURL, apiKey: "loopback" });
const router = createIrtRouterModel({
  models: { "gpt-4o": openai.chat("gpt-4o"), "gpt-4o-mini": openai.chat("gpt-4o-mini") },
  policy: { kind: "quality" },
});
const weather = tool({
  name: "weather",
  description: "Current weather of a city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `It is 21°C and sunny in ${city}.`,
});
const agent = new Agent({
  name: "weather",
  instructions: "Answer briefly.",
  model: pinServerState(aisdk(router)),
  tools: [weather],
});
const runner = new Runner({ tracingDisabled: true });

const first = await runner.run(agent, "What's the weather in Rome?", { conversationId: "conv-1" });
console.log(`answer: ${first.finalOutput}`);
delete server.failing["gpt-4o"]; // gpt-4o is back
const second = await runner.run(agent, "And in Paris?", { conversationId: "conv-1" });
console.log(`answer: ${second.finalOutput}`);
const fresh = await runner.run(agent, "What's the weather in Oslo?");
console.log(`answer: ${fresh.finalOutput}`);
for (const d of router.decisions()) {
  const pinned = d.shadow ? ` (pinned; the router's choice: ${d.shadow.chosen})` : "";
  const tried = d.attempts.length > 1 ? ` after ${d.attempts[0]!.id} failed` : "";
  console.log(`turn -> ${d.chosen}${tried}${pinned}  $${d.realized?.costUsd.toFixed(6)}`);
}
await server.close();
