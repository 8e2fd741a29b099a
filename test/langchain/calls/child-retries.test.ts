import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatOpenAI } from "@langchain/openai";
import { IrtRouter, routeDecisionOf } from "../../../src/langchain/index.js";
import { ValidationError } from "../../../src/errors.js";
import { startLoopbackOpenAI, type LoopbackOpenAI } from "../../../examples/loopback-openai.js";
import { rejectedWith } from "../../errors.js";
import { ToyScorer, quietLogger } from "../helpers.js";

/** The loopback OpenAI-compatible server: model "failing" answers every request 500, model "working" answers. */
let server: LoopbackOpenAI;
beforeAll(async () => {
  server = await startLoopbackOpenAI({ failing: { failing: 500 } });
});
afterAll(() => server.close());

/** The requests each model received since `from` (an index into the server's requests). */
const hitsSince = (from: number) => {
  const hits = { failing: 0, working: 0 };
  for (const r of server.requests.slice(from)) hits[r.model as keyof typeof hits]++;
  return hits;
};

/** A real ChatOpenAI with its default settings (maxRetries included), asking the loopback server for one model. */
const openai = (model: "failing" | "working", fields: { maxRetries?: number } = {}) =>
  new ChatOpenAI({ model, apiKey: "sk-test", configuration: { baseURL: server.baseURL }, ...fields });

const ANSWER = "[working] What is 17 * 23?";

/** The retries of the model's own caller and of the chat-completions model it delegates to. */
const callerRetries = (model: ChatOpenAI) => {
  const of = (m: { caller: unknown }) => (m.caller as { maxRetries: number }).maxRetries;
  expect(of((model as unknown as { completions: { caller: unknown } }).completions)).toBe(of(model));
  return of(model);
};

describe("a child's own retries are bounded, so a failing provider falls back in seconds", () => {
  it("a default ChatOpenAI against a server answering 500: one retry, then the next model answers", async () => {
    const failing = openai("failing");
    const working = openai("working");
    expect(callerRetries(failing)).toBe(6); // LangChain's default: about 1.5 minutes of backoff against a 500
    const router = new IrtRouter({
      models: { "gpt-4": failing, mistral: working },
      scorer: new ToyScorer(),
      logger: quietLogger(),
    });
    expect(callerRetries(failing)).toBe(1);
    const from = server.requests.length;
    const reply = await router.invoke("What is 17 * 23?");
    expect(reply.content).toBe(ANSWER);
    const decision = routeDecisionOf(reply)!;
    expect(decision.attempts.map((a) => [a.id, a.ok])).toEqual([
      ["gpt-4", false],
      ["mistral", true],
    ]);
    expect(decision.attempts[0]!.error).toMatch(/500/);
    // the request and its one retry (a 1-2 s backoff), not 7 requests over 1.5 minutes
    expect(hitsSince(from)).toEqual({ failing: 2, working: 1 });
  });

  it("childMaxRetries: 0 falls back at the first error; a child's own maxRetries and `false` are left as they are", async () => {
    const failing = openai("failing");
    const own = openai("failing", { maxRetries: 3 });
    const kept = openai("working");
    new IrtRouter({ models: { "gpt-4": failing, mixtral: own }, scorer: new ToyScorer(), childMaxRetries: 0 });
    expect(callerRetries(failing)).toBe(0);
    expect(callerRetries(own)).toBe(3);
    new IrtRouter({ models: { mistral: kept }, scorer: new ToyScorer(), childMaxRetries: false });
    expect(callerRetries(kept)).toBe(6);
    const router = new IrtRouter({
      models: { "gpt-4": failing, mistral: openai("working") },
      scorer: new ToyScorer(),
      logger: quietLogger(),
    });
    const from = server.requests.length;
    expect((await router.invoke("What is 17 * 23?")).content).toBe(ANSWER);
    expect(hitsSince(from)).toEqual({ failing: 1, working: 1 });
  });

  it("rejects a bad childMaxRetries, naming the option", async () => {
    for (const bad of [-1, 1.5, "2", true]) {
      const error = await rejectedWith(
        ValidationError,
        (async () => new IrtRouter({ models: { mistral: openai("working") }, childMaxRetries: bad as never }))(),
      );
      expect(error.path).toMatch(/childMaxRetries/);
    }
  });
});
