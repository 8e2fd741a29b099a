/** A router wired to a RedisStore when Redis goes away and comes back (real redis-server, SIGKILLed). */
import { describe, expect, it } from "vitest";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { RedisStore } from "../../adapters/stores/redis.js";
import { FeedbackBufferFullError } from "../../src/errors.js";
import { IrtRouter, type RouteDecision } from "../../src/langchain/index.js";
import { engineOf } from "../../src/langchain/model/router.js";
import { ToyScorer, quietLogger } from "../langchain/helpers.js";
import { redisSkipReason, TestRedis } from "./redis-server.js";

const fake = () => new FakeListChatModel({ responses: ["ok"] });

describe.skipIf(redisSkipReason() !== undefined)("RedisStore faults", () => {
  it("routes on with the last known state while Redis is down, buffers feedback, refuses overflow, sends it when Redis returns", async () => {
    const server = await TestRedis.start();
    const storeWarnings: string[] = [];
    const kinds: string[] = [];
    const store = await RedisStore.open({
      url: server.url,
      prefix: "faults",
      buffer: { maxEvents: 2, retryMs: 50 },
      onWarning: (m, w) => {
        storeWarnings.push(m);
        kinds.push(w.kind);
      },
    });
    const logger = quietLogger();
    const router = new IrtRouter({
      models: { "gpt-4": { model: fake(), price: { inputPer1M: 1, outputPer1M: 1 } }, mistral: fake() },
      scorer: new ToyScorer(),
      store,
      policy: { kind: "budget", maxUsdPerRun: 1 },
      logger,
    });
    const ask = async (runId: string) =>
      (await router.invoke("What is 2 + 2?", { metadata: { irtRouterRunId: runId } })).response_metadata
        .irtRouter as RouteDecision;
    await ask("r0");
    await server.kill();
    const decisions = [await ask("r1"), await ask("r2"), await ask("r3")]; // routing goes on
    expect(logger.messages.filter((m) => /shared run spend is unreachable/.test(m))).toHaveLength(1);
    await router.feedback(decisions[0]!.decisionId, true);
    await router.feedback(decisions[1]!.decisionId, false);
    expect(store.bufferedCount).toBe(2);
    const refused = await router.feedback(decisions[2]!.decisionId, true).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FeedbackBufferFullError);
    expect(kinds.filter((k) => k === "unreachable")).toHaveLength(1);
    // The budget was charged in this process meanwhile, said once.
    expect(kinds.filter((k) => k === "budget-local")).toHaveLength(1);
    // The refused outcome was not taken: it can be given again once Redis is back.
    await server.restart();
    for (let i = 0; i < 100 && store.bufferedCount > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(store.bufferedCount).toBe(0);
    await router.feedback(decisions[2]!.decisionId, true);
    const { events, seq } = await store.load();
    expect(events.map((e) => e.decisionId)).toEqual(decisions.map((d) => d.decisionId));
    expect(await engineOf(router).binding!.waitFor(seq, 10_000)).toBe(true);
    await store.close();
    await server.stop();
  });
});
