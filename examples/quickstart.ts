/**
 * Quickstart: an agent whose every step is routed by IrtRouter. Runs offline in seconds: the three
 * "models" are LangChain fake chat models standing in for GPT-4, Mixtral and Mistral.
 *
 *   npx tsx examples/quickstart.ts
 *
 * With real models, replace the fakes by `new ChatOpenAI(...)`, `new ChatAnthropic(...)` (see
 * examples/providers.ts); nothing else changes.
 */
import { createAgent, tool } from "langchain";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { z } from "zod";
import { IrtRouter, type RouteDecision } from "../langchain.js"; // irt-router/langchain
import { exampleScorer } from "./example-scorer.js";

const getWeather = tool(async ({ city }) => `It is 21°C and sunny in ${city}.`, {
  name: "get_weather",
  description: "Current weather of a city",
  schema: z.object({ city: z.string() }),
});

/** A stand-in chat model: calls get_weather first, then answers from the tool result, naming itself. */
function standIn(name: string) {
  const model = fakeModel();
  for (let i = 0; i < 20; i++) {
    model.respond((messages: BaseMessage[]) => {
      const last = messages.at(-1)!;
      if (ToolMessage.isInstance(last)) return new AIMessage(`[${name}] ${String(last.content)}`);
      return new AIMessage({
        content: "",
        tool_calls: [{ name: "get_weather", args: { city: "Paris" }, id: `call_${i}` }],
      });
    });
  }
  return model;
}

const { scorer, kind } = await exampleScorer();
const router = new IrtRouter({
  models: {
    "gpt-4-1106-preview": { model: standIn("gpt-4"), price: { inputPer1M: 10, outputPer1M: 30 } },
    "mistralai/mixtral-8x7b-chat": { model: standIn("mixtral"), price: { inputPer1M: 0.6, outputPer1M: 0.6 } },
    "mistralai/mistral-7b-chat": { model: standIn("mistral"), price: { inputPer1M: 0.2, outputPer1M: 0.2 } },
  },
  scorer,
  policy: { kind: "cost-aware", lambda: 20 },
});

const agent = createAgent({ model: router, tools: [getWeather] });
const runId = "quickstart-run-1";
const result = await agent.invoke(
  { messages: [{ role: "user", content: "What's the weather in Paris today?" }] },
  { metadata: { irtRouterRunId: runId } }, // lets router.feedback(runId) credit every step of this run
);

console.log(`scorer: ${kind}; policy: ${router.policyName}`);
for (const message of result.messages) {
  const decision = (message.response_metadata as Record<string, unknown> | undefined)?.irtRouter as
    RouteDecision | undefined;
  if (!decision) continue;
  const ranked = decision.candidates
    .map((c) => `${c.id} p=${c.p.toFixed(3)} $${c.expectedCost.toFixed(6)}`)
    .join(" | ");
  console.log(`step -> ${decision.chosen}   (${ranked})`);
}
console.log(`answer: ${String(result.messages.at(-1)!.content)}`);

const events = await router.feedback(runId, true);
console.log(
  `feedback: ${events.length} event(s) recorded for run ${runId} (model ${events[0]!.model}, y=${events[0]!.y})`,
);
