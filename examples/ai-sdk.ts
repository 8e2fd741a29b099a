/**
 * The Vercel AI SDK: a `generateText` tool loop whose every step is routed between two OpenAI models by
 * `createIrtRouterModel`, over real HTTP with `@ai-sdk/openai`, against a loopback OpenAI-compatible server that
 * stands in for the provider (offline, no key). The first request is answered 503, so that step falls back; the server
 * reports cached prompt tokens as OpenAI does, which the router bills at the cached-input price and uses to price
 * the next step.
 *
 *   npx tsx examples/ai-sdk.ts
 *
 * With the real API, drop the server and `baseURL`: `createOpenAI({ apiKey: process.env.OPENAI_API_KEY })`.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { generateText, stepCountIs, tool } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { z } from "zod";
import { createIrtRouterModel, irtFeedback } from "../ai-sdk.js"; // irt-router/ai-sdk

/** A loopback stand-in for the chat completions API: calls the weather tool for each city, then answers. */
function startServer(): Promise<{ url: string; close: () => void; requests: string[] }> {
  const requests: string[] = [];
  const served = new Map<string, number>(); // per model: the messages of the last prompt it answered (its cache)
  let failedOnce = false;
  const server = createServer(async (req, res) => {
    const body = JSON.parse(await text(req)) as { model: string; messages: { role: string; content?: string }[] };
    requests.push(body.model);
    if (!failedOnce) {
      failedOnce = true;
      res.writeHead(503, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "overloaded", type: "server_error" } }));
      return;
    }
    const results = body.messages.filter((m) => m.role === "tool").length;
    const city = ["Paris", "Lyon"][results];
    const tokens = (messages: number) => 400 + 60 * messages;
    const promptTokens = tokens(body.messages.length);
    const cached = served.has(body.model) ? tokens(served.get(body.model)!) : 0;
    served.set(body.model, body.messages.length);
    const message = city
      ? {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: `call_${results}`,
              type: "function",
              function: { name: "weather", arguments: JSON.stringify({ city }) },
            },
          ],
        }
      : { role: "assistant", content: "It is 21°C in Paris and 19°C in Lyon." };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: "chat.completion",
        created: 0,
        model: body.model,
        choices: [{ index: 0, message, finish_reason: city ? "tool_calls" : "stop" }],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: 20,
          total_tokens: promptTokens + 20,
          // as a provider that caches each prompt a model answered: the prefix that model served last is read from cache
          prompt_tokens_details: { cached_tokens: cached },
        },
      }),
    );
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}/v1`, close: () => server.close(), requests });
    }),
  );
}

async function text(req: IncomingMessage): Promise<string> {
  let out = "";
  for await (const chunk of req) out += chunk;
  return out;
}

const server = await startServer();
try {
  const openai = createOpenAI({ baseURL: server.url, apiKey: "loopback" });
  const model = createIrtRouterModel({
    models: { "gpt-4o": openai.chat("gpt-4o"), "gpt-4o-mini": openai.chat("gpt-4o-mini") },
    policy: { kind: "cost-aware", lambda: 20 },
    tracing: false,
  });
  const weather = tool({
    description: "Current weather of a city",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => (city === "Paris" ? "21°C, sunny" : "19°C, cloudy"),
  });
  const result = await generateText({
    model,
    tools: { weather },
    prompt: "What is the weather in Paris and in Lyon?",
    stopWhen: stepCountIs(5),
    maxRetries: 0,
    providerOptions: { "irt-router": { runId: "ai-sdk-run-1" } },
  });
  console.log(`policy: ${model.core.policyName}`);
  for (const [i, step] of result.steps.entries()) {
    const d = step.providerMetadata?.["irt-router"] as Record<string, unknown>;
    const from = d.fallbackFrom ? ` (fell back from ${String(d.fallbackFrom)})` : "";
    console.log(
      `step ${i} -> ${String(d.chosen)}${from}: p=${Number(d.p).toFixed(2)} ` +
        `expected $${Number(d.expectedCostUsd).toFixed(6)} realized $${Number(d.realizedCostUsd).toFixed(6)} ` +
        `(cache read ${String(d.cacheReadTokens)} of ${String(d.inputTokens)} tokens)`,
    );
  }
  console.log(`answer: ${result.text}`);
  console.log(`http requests: ${server.requests.join(", ")}`);
  const events = await irtFeedback(model, result, true, { source: "example" });
  console.log(`feedback: ${events.length} event(s) recorded for run ai-sdk-run-1`);
} finally {
  server.close();
}
