/**
 * On the middleware path a child whose reply is no chat message (null, a bare string) is a fault of that child: the
 * step falls back to the next candidate, as the IrtRouter path does (calls/attempt.ts, checkReply), instead of
 * surfacing LangChain's MiddlewareError (issue 39).
 */
import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { fakeModel } from "@langchain/core/testing";
import { AIMessage } from "@langchain/core/messages";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ChatResult } from "@langchain/core/outputs";
import { irtRouterMiddleware, type RouteDecision } from "../../../src/langchain/index.js";
import { ToyScorer } from "../helpers.js";

/** A child whose invoke() resolves to `reply` (no chat message). */
class MalformedModel extends BaseChatModel {
  calls = 0;
  constructor(private readonly reply: unknown) {
    super({});
  }
  _llmType() {
    return "malformed";
  }
  override bindTools() {
    return this as never;
  }
  override async invoke(): Promise<never> {
    this.calls++;
    return this.reply as never;
  }
  async _generate(): Promise<ChatResult> {
    throw new Error("not called: invoke is overridden");
  }
}

describe("irtRouterMiddleware: a child's malformed reply", () => {
  for (const [name, reply] of [
    ["null", null],
    ["a bare string", "just text"],
  ] as const) {
    it(`falls back to the next candidate when the chosen child returns ${name}`, async () => {
      const bad = new MalformedModel(reply);
      const good = fakeModel().respond(new AIMessage("from the fallback"));
      // the toy scorer ranks gpt-4 first: the malformed child is tried first
      const middleware = irtRouterMiddleware({ models: { "gpt-4": bad, mistral: good }, scorer: new ToyScorer() });
      const agent = createAgent({ model: fakeModel(), tools: [], middleware: [middleware] });
      const result = await agent.invoke({ messages: [{ role: "user", content: "Hello?" }] });
      expect(bad.calls).toBe(1);
      expect(result.messages.at(-1)!.content).toBe("from the fallback");
      const [decision] = result.irtRouterRoutes as RouteDecision[];
      expect(decision!.attempts.map((a) => [a.id, a.ok])).toEqual([
        ["gpt-4", false],
        ["mistral", true],
      ]);
    });
  }
});
