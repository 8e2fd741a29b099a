/**
 * What a RedisStore keeps, read back from a real redis-server: with `hashRunIds`, no run id, source or event id as
 * given (before, RedisStore ignored the option: raw run ids and sources were stored for a day), in keys or values; and a
 * provider's error text (which can echo the prompt) only as its code and a short redacted message.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ChatResult } from "@langchain/core/outputs";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { RedisStore } from "../../adapters/stores/redis.js";
import { MAX_STORED_ERROR, storedErrorText } from "../../adapters/stores/stored-text.js";
import { IrtRouter, type RouteDecision } from "../../src/langchain/index.js";
import type { SharedDecision } from "../../src/core/contracts/router-store.js";
import { ToyScorer, quietLogger } from "../langchain/helpers.js";
import { redisSkipReason, sharedRedis, uniquePrefix } from "./redis-server.js";

const EMAIL = "alice@example.com";
const SECRET = "the merger closes on 3 March";

/** A provider that refuses every call quoting the prompt back, as a 400 can. */
class EchoingFailure extends BaseChatModel {
  _llmType() {
    return "echoing-failure";
  }
  async _generate(messages: { content: unknown }[]): Promise<ChatResult> {
    const text = String(messages[messages.length - 1]!.content);
    throw Object.assign(
      new Error(`400 Bad Request: prompt "${text}" exceeds the limit; key sk-abc123def456ghi789jkl012 (${EMAIL})`),
      {
        name: "BadRequestError",
      },
    );
  }
}

/** Every key under the prefix with its content, as text. */
async function dump(url: string, prefix: string): Promise<string> {
  const { Redis } = await import("ioredis");
  const raw = new Redis(url);
  const keys = await raw.keys(`{${prefix}}*`);
  const parts: string[] = [];
  for (const key of keys) {
    const type = await raw.type(key);
    const value =
      type === "string"
        ? await raw.get(key)
        : type === "set"
          ? await raw.smembers(key)
          : type === "zset"
            ? await raw.zrange(key, 0, -1)
            : type === "stream"
              ? await raw.xrange(key, "-", "+")
              : type;
    parts.push(`${key} ${JSON.stringify(value)}`);
  }
  await raw.quit();
  return parts.join("\n");
}

describe.skipIf(redisSkipReason() !== undefined)("RedisStore privacy (real redis-server)", () => {
  let server: Awaited<ReturnType<typeof sharedRedis>>;
  beforeAll(async () => {
    server = await sharedRedis();
  });
  afterAll(async () => server?.stop());

  for (const option of [true, "a-secret-key-of-32-characters!!!"] as const) {
    it(`hashRunIds ${option === true ? "true" : "(a key)"}: no run id or source as given under any key; feedback by run id works on another process`, async () => {
      const prefix = uniquePrefix("privacy");
      const open = () => RedisStore.open({ url: server.url, prefix, hashRunIds: option });
      const [a, b] = [await open(), await open()];
      const router = (store: RedisStore) =>
        new IrtRouter({
          models: { "gpt-4": new EchoingFailure({}), mistral: new FakeListChatModel({ responses: ["ok"] }) },
          scorer: new ToyScorer(),
          store,
          logger: quietLogger(),
          policy: { kind: "budget", maxUsdPerRun: 1 },
        });
      const [ra, rb] = [router(a), router(b)];
      const reply = await ra.invoke(`Summarise: ${SECRET}`, { metadata: { irtRouterRunId: EMAIL } });
      const decision = reply.response_metadata.irtRouter as RouteDecision;
      expect(decision.attempts.some((t) => !t.ok)).toBe(true);
      // Another process finds the run by its id as given, and stores the outcome with the source as given.
      const events = await rb.feedback(EMAIL, true, { source: `${EMAIL}-caller` });
      expect(events).toHaveLength(1);
      expect((await a.load()).events).toHaveLength(1);
      const text = await dump(server.url, prefix);
      expect(text).not.toContain(EMAIL);
      expect(text).not.toContain("alice");
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain("sk-abc123");
      expect(text).toMatch(/h:[0-9a-f]{32}/);
      const kept = (await a.decisions.get(decision.decisionId)) as SharedDecision;
      const error = kept.decision.attempts.find((t) => !t.ok)!.error!;
      expect(error).toMatch(/^BadRequestError: 400 Bad Request: prompt \[quoted\]/);
      expect(error.length).toBeLessThanOrEqual("BadRequestError: ".length + MAX_STORED_ERROR + 3);
      for (const s of [a, b]) await s.close();
    });
  }

  it("without hashRunIds, error texts are still reduced to a code and a redacted, bounded message", () => {
    const long = `TypeError: ${"x".repeat(500)}`;
    expect(storedErrorText(long).length).toBe("TypeError: ".length + MAX_STORED_ERROR + 3);
    expect(
      storedErrorText(
        `Error: see https://api.example.com/v1?q=${encodeURIComponent(SECRET)} for {"prompt": "${SECRET}"}`,
      ),
    ).toBe("Error: see [url] for [data]");
    expect(storedErrorText("no code here, mail bob@example.org")).toBe("Error: no code here, mail [email]");
  });
});
