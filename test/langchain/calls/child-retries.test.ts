import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatOpenAI } from "@langchain/openai";
import { IrtRouter, routeDecisionOf } from "../../../src/langchain/index.js";
import { ValidationError } from "../../../src/errors.js";
import { rejectedWith } from "../../errors.js";
import { ToyScorer, quietLogger } from "../helpers.js";

/**
 * A loopback OpenAI-compatible server: /failing answers every request 500, /working answers a chat completion.
 * Counts the requests each path received.
 */
let server: Server;
let base = "";
const hits = { failing: 0, working: 0 };

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url?.startsWith("/failing/")) {
        hits.failing++;
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "internal error", type: "server_error" } }));
        return;
      }
      hits.working++;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 0,
          model: "gpt-4o-mini",
          choices: [{ index: 0, message: { role: "assistant", content: "391" }, finish_reason: "stop" }],
          usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A real ChatOpenAI with its default settings (maxRetries included), pointed at one path of the loopback server. */
const openai = (path: "failing" | "working", fields: { maxRetries?: number } = {}) =>
  new ChatOpenAI({
    model: "gpt-4o-mini",
    apiKey: "sk-test",
    configuration: { baseURL: `${base}/${path}/v1` },
    ...fields,
  });

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
    hits.failing = hits.working = 0;
    const reply = await router.invoke("What is 17 * 23?");
    expect(reply.content).toBe("391");
    const decision = routeDecisionOf(reply)!;
    expect(decision.attempts.map((a) => [a.id, a.ok])).toEqual([
      ["gpt-4", false],
      ["mistral", true],
    ]);
    expect(decision.attempts[0]!.error).toMatch(/500/);
    // the request and its one retry (a 1-2 s backoff), not 7 requests over 1.5 minutes
    expect(hits).toEqual({ failing: 2, working: 1 });
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
    hits.failing = hits.working = 0;
    expect((await router.invoke("What is 17 * 23?")).content).toBe("391");
    expect(hits).toEqual({ failing: 1, working: 1 });
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
