import { describe, expect, it } from "vitest";
import { RouterCore } from "../../src/core/router-core.js";
import { NoCandidatesError, ValidationError } from "../../src/errors.js";
import type { RouteMessage } from "../../src/core/contracts/route-message.js";
import { ToyScorer, quietLogger } from "../langchain/helpers.js";

const GPT4 = { inputPer1M: 10, outputPer1M: 30 };
const MISTRAL = { inputPer1M: 0.2, outputPer1M: 0.2 };
const core = (extra: Partial<ConstructorParameters<typeof RouterCore>[0]> = {}) =>
  new RouterCore({
    models: [
      { id: "gpt-4", price: GPT4, capabilities: { tools: true } },
      { id: "mistral", price: MISTRAL, capabilities: { tools: false } },
    ],
    scorer: new ToyScorer(),
    logger: quietLogger(),
    tracing: false,
    ...extra,
  });
const ask = (text: string): RouteMessage[] => [{ role: "user", text }];

describe("RouterCore", () => {
  it("validates its options into ValidationErrors naming the field", () => {
    const bad = (options: unknown, path: string) => {
      try {
        new RouterCore(options as never);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).path).toBe(path);
      }
    };
    bad({ models: [] }, "options.models");
    bad({ models: [{ id: "a" }, { id: "a" }] }, "options.models.1.id");
    bad({ models: [{ id: "a", capabilities: { tools: "yes" } }] }, "options.models.0.capabilities.tools");
    bad({ models: [{ id: "a" }], maxAttempts: 0 }, "options.maxAttempts");
    bad({ models: [{ id: "a" }], shadow: { serve: "b" } }, "options.shadow.serve");
  });

  it("plans a call: decision, fallback order, and models that lack a needed capability left out", async () => {
    const router = core({ policy: { kind: "quality" } });
    const plan = await router.route({ messages: ask("What is 17 * 23?"), runId: "r1" });
    expect(plan.models).toEqual(["gpt-4", "mistral"]);
    expect(plan.decision.chosen).toBe("gpt-4");
    expect(plan.decision.runId).toBe("r1");
    const tools = await router.route({ messages: ask("Use the weather tool"), needs: { tools: true } });
    expect(tools.models).toEqual(["gpt-4"]);
    expect(tools.decision.excluded).toEqual([{ id: "mistral", reason: "cannot call tools and tools are bound" }]);
    const small = new RouterCore({
      models: [{ id: "gpt-4", capabilities: { contextWindow: 5 } }],
      scorer: new ToyScorer(),
      logger: quietLogger(),
      tracing: false,
    });
    await expect(small.route({ messages: ask("a question that is longer than five tokens") })).rejects.toBeInstanceOf(
      NoCandidatesError,
    );
  });

  it("records a failed try, names the next model, and the answer's realized cost from the reported usage", async () => {
    const router = core({ policy: { kind: "quality" } });
    const plan = await router.route({ messages: ask("What is 17 * 23?"), runId: "r2" });
    expect(router.failed(plan, "gpt-4", new Error("rate limited"))).toBe("mistral");
    const realized = router.served(plan, "mistral", { inputTokens: 1000, outputTokens: 10, cacheReadTokens: 0 });
    expect(realized).toEqual({
      costUsd: (1000 * 0.2 + 10 * 0.2) / 1e6,
      source: "usage",
      inputTokens: 1000,
      outputTokens: 10,
      cacheReadTokens: 0,
    });
    expect(plan.decision.chosen).toBe("mistral");
    expect(plan.decision.attempts.map((a) => [a.id, a.ok, a.error])).toEqual([
      ["gpt-4", false, "Error: rate limited"],
      ["mistral", true, undefined],
    ]);
    const events = await router.feedback("r2", true, { source: "grader" });
    expect(events.map((e) => e.model)).toEqual(["mistral-7b-chat"]);
  });

  it("gives up when fallbackOn refuses, when cancelled, and after the last model; the call is then settled", async () => {
    const settled: string[] = [];
    const router = core({
      fallbackOn: (error) => !(error as Error).message.includes("bad request"),
      decisionSink: (record) => void settled.push(`${record.model}:${record.answered}`),
    });
    const a = await router.route({ messages: ask("q") });
    expect(router.failed(a, a.models[0]!, new Error("bad request"))).toBeUndefined();
    const b = await router.route({ messages: ask("q") });
    expect(router.failed(b, b.models[0]!, new Error("timeout"), { cancelled: true })).toBeUndefined();
    const c = await router.route({ messages: ask("q") });
    const error = new Error("down");
    expect(router.failed(c, c.models[0]!, error)).toBe(c.models[1]);
    expect(router.failed(c, c.models[1]!, error)).toBeUndefined();
    expect(c.decision.chosen).toBe(c.models[0]); // back at the first choice
    expect((error as Error & { irtRouter?: { attempts: unknown[] } }).irtRouter?.attempts).toHaveLength(2);
    router.settle(c); // once only
    expect(settled).toEqual([`${a.models[0]}:false`, `${b.models[0]}:false`, `${c.models[0]}:false`]);
    expect(() => router.served(c, "gpt-5")).toThrow(/not in the plan/);
  });

  it("marks the step whose tool call failed, from the next call's messages", async () => {
    const router = core({ policy: { kind: "quality" } });
    const plan = await router.route({ messages: ask("Weather in Paris?"), runId: "r3", needs: { tools: true } });
    router.served(plan, "gpt-4");
    const next = await router.route({
      runId: "r3",
      needs: { tools: true },
      messages: [
        ...ask("Weather in Paris?"),
        {
          role: "assistant",
          text: "",
          toolCalls: [{ id: "c1", name: "weather", args: { city: "Paris" } }],
          decisionId: plan.decision.decisionId,
          model: "gpt-4",
        },
        { role: "tool", text: "unknown city", toolCallId: "c1", toolError: true },
      ],
    });
    router.served(next, "gpt-4");
    const events = await router.feedback("r3", false, {
      source: "grader",
      attribution: { mode: "every", toolErrorsAsFailures: true },
    });
    const first = events.find((e) => e.decisionId === plan.decision.decisionId)!;
    expect(first.y).toBe(0);
    expect(first.weight ?? 1).toBe(1); // a tool-error step keeps full weight
  });
});

describe("RouterCore's in-memory learner", () => {
  it("takes feedback for a model the scorer lacks (it starts with every registered model)", async () => {
    const router = new RouterCore({
      models: [{ id: "gpt-4" }, { id: "claude-sonnet-4-5" }],
      scorer: new ToyScorer(),
      logger: quietLogger(),
      tracing: false,
      policy: { kind: "quality" },
    });
    const plan = await router.route({ messages: ask("Summarise this text."), runId: "r9" });
    router.served(plan, "claude-sonnet-4-5");
    const events = await router.feedback("r9", true, { source: "grader" });
    expect(events.map((e) => e.model)).toEqual(["claude-sonnet-4-5"]);
    expect(router.learner?.has("claude-sonnet-4-5")).toBe(true);
  });
});
