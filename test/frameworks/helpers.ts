/**
 * What the framework tests share: the toy models' prices and routing options, and a loopback OpenAI-compatible
 * server per test with a real `@ai-sdk/openai` provider pointed at it.
 */
import { createOpenAI, type OpenAIProvider } from "@ai-sdk/openai";
import { afterEach } from "vitest";
import { startLoopbackOpenAI, type LoopbackOpenAI, type LoopbackOptions } from "../../examples/loopback-openai.js";
import { ToyScorer, quietLogger } from "../langchain/helpers.js";

/** List prices of the toy scorer's three models (it ranks gpt-4 first, then mixtral, then mistral on quality). */
export const PRICES = {
  "gpt-4": { inputPer1M: 10, outputPer1M: 30 },
  mixtral: { inputPer1M: 0.6, outputPer1M: 0.6 },
  mistral: { inputPer1M: 0.2, outputPer1M: 0.2 },
} as const;

/** The routing options of every framework test: the toy scorer, the quality policy, no tracing, warnings kept. */
export function toyRouting() {
  return { scorer: new ToyScorer(), policy: { kind: "quality" as const }, logger: quietLogger(), tracing: false };
}

/**
 * A loopback server for each test that asks for one: `start()` starts it (with the models that fail) and returns it
 * with an `@ai-sdk/openai` provider talking to it; it is closed after the test, or when the test starts another.
 * Call at the top of a `describe`.
 */
export function loopbackPerTest(): {
  start(options?: LoopbackOptions): Promise<{ server: LoopbackOpenAI; openai: OpenAIProvider }>;
} {
  let server: LoopbackOpenAI | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return {
    async start(options) {
      await server?.close(); // a test that starts a second server is done with the first
      server = await startLoopbackOpenAI(options);
      return { server, openai: createOpenAI({ baseURL: server.baseURL, apiKey: "loopback" }) };
    },
  };
}
