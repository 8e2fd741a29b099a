import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { fakeModel } from "@langchain/core/testing";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { IrtRouter, irtRouterMiddleware, type RouteDecision } from "../../../src/langchain/index.js";
import { engineOf } from "../../../src/langchain/model/router.js";
import { promptShape } from "../../../src/core/routing/run-memory.js";
import { toRouteMessages } from "../../../src/langchain/bridge/route-messages.js";
import { stepCostUsd } from "../../../src/policy/expected-cost.js";
import { ValidationError } from "../../../src/errors.js";
import { ToyScorer, quietLogger } from "../../langchain/helpers.js";
import { thrownBy } from "../../errors.js";

describe("cached-input prices in the router options", () => {
  it("accepts cachedInputPer1M and rejects one above the input price, naming the field", () => {
    const model = new FakeListChatModel({ responses: ["x"] });
    const price = { inputPer1M: 3, outputPer1M: 15, cachedInputPer1M: 0.3 };
    const scorer = new ToyScorer();
    expect(() => new IrtRouter({ models: { a: { model, price } }, scorer })).not.toThrow();
    const above = { ...price, cachedInputPer1M: 4 };
    const error = thrownBy(ValidationError, () => new IrtRouter({ models: { a: { model, price: above } }, scorer }));
    expect(error.path).toBe("options.models.a.price.cachedInputPer1M");
    expect(() => new IrtRouter({ models: { a: model }, cacheAware: { lifetimeMs: -1 } })).toThrow(/options.cacheAware/);
    expect(() => new IrtRouter({ models: { a: model }, cacheAware: { lifetime: 5 } } as never)).toThrow(/lifetime/);
  });
});

// A 3,000-token system prompt, resent on every step of the run, as an agent's prefix and tool schemas are.
const SYSTEM = new SystemMessage(`You are a careful assistant.${" rule".repeat(3000)}`);
const Q1 = new HumanMessage("What is 17 * 23?");
const A1 = new AIMessage("391");
const Q2 = new HumanMessage("And 391 * 2?");
const STEP1 = [SYSTEM, Q1];
const STEP2 = [SYSTEM, Q1, A1, Q2];
const STEP3 = [...STEP2, new AIMessage("782"), new HumanMessage("And 782 * 2?")];
// gpt-4 caches input at 10% of its price; mixtral has no cache discount.
const GPT4 = { inputPer1M: 10, outputPer1M: 30, cachedInputPer1M: 1 };
const MIXTRAL = { inputPer1M: 6, outputPer1M: 6 };

/** gpt-4 and mixtral at the prices above, under the cost-aware policy (lambda 20): mixtral first unless cached. */
const costAware = (gpt4: BaseChatModel, mixtral: BaseChatModel) => ({
  models: { "gpt-4": { model: gpt4, price: GPT4 }, mixtral: { model: mixtral, price: MIXTRAL } },
  scorer: new ToyScorer(),
  policy: { kind: "cost-aware" as const, lambda: 20 },
  logger: quietLogger(),
});

/** A router over gpt-4 alone, answering with `model`'s replies (what the recorded spend and cache tests need). */
const gpt4Only = (model: BaseChatModel) =>
  new IrtRouter({ models: { "gpt-4": { model, price: GPT4 } }, scorer: new ToyScorer(), logger: quietLogger() });

/** A call's config in the run `runId`. */
const inRun = (runId: string) => ({ metadata: { irtRouterRunId: runId } });

/**
 * A cost-aware router (lambda 20) over gpt-4 and mixtral whose first step goes to gpt-4: mixtral ranks first there
 * but fails once (rate limited), so the call falls back to gpt-4, which then holds the run's prefix in its cache.
 */
function router(cacheAware: IrtRouter["lc_kwargs"]["cacheAware"], clock?: { t: number }) {
  const gpt4 = new FakeListChatModel({ responses: ["391", "782", "782"] });
  const mixtral = fakeModel()
    .respond(new Error("rate limited"))
    .respond(new AIMessage("782"))
    .respond(new AIMessage("782"));
  const cache = clock && cacheAware !== false ? { lifetimeMs: 300_000, now: () => clock.t } : cacheAware;
  return new IrtRouter({ ...costAware(gpt4, mixtral), ...(cache !== undefined ? { cacheAware: cache } : {}) });
}

const decisionOf = (m: BaseMessage) => (m.response_metadata as { irtRouter: RouteDecision }).irtRouter;
const candidate = (d: RouteDecision, id: string) => d.candidates.find((c) => c.id === id)!;

describe("cache-aware expected cost", () => {
  it("bills the prefix the same model cached earlier in the run at its cached-input price (a cache hit)", async () => {
    const r = router(true);
    const first = await r.invoke(STEP1, inRun("run-1"));
    expect(decisionOf(first).chosen).toBe("gpt-4"); // after mixtral's failure
    expect(candidate(decisionOf(first), "gpt-4").cachedTokens).toBe(0);

    const d = decisionOf(await r.invoke(STEP2, inRun("run-1")));
    const shape = promptShape(toRouteMessages(STEP2));
    const cached = shape.tokens[1]!; // system prompt + first question: the prompt gpt-4 served, which STEP2 extends
    expect(cached).toBeGreaterThan(3000);
    expect(candidate(d, "gpt-4").cachedTokens).toBe(cached);
    expect(candidate(d, "mixtral").cachedTokens).toBe(0); // switching forfeits the cache: priced in
    expect(candidate(d, "gpt-4").expectedCost).toBeCloseTo(
      stepCostUsd({ contextTokens: d.inputTokens, cachedTokens: cached, outputTokens: 256, price: GPT4 }),
      12,
    );
    expect(candidate(d, "mixtral").expectedCost).toBeCloseTo(
      stepCostUsd({ contextTokens: d.inputTokens, outputTokens: 256, price: MIXTRAL }),
      12,
    );
    expect(d.chosen).toBe("gpt-4");
  });

  it("is what makes the choice: the same setting cache-blind switches to the cheaper list price", async () => {
    const blind = router(false);
    await blind.invoke(STEP1, inRun("run-1"));
    const d = decisionOf(await blind.invoke(STEP2, inRun("run-1")));
    expect(d.chosen).toBe("mixtral");
    expect(d.candidates.every((c) => c.cachedTokens === undefined)).toBe(true);
    expect(candidate(d, "gpt-4").expectedCost).toBeCloseTo(
      stepCostUsd({ contextTokens: d.inputTokens, outputTokens: 256, price: GPT4 }),
      12,
    );
  });

  it("forgets a cache after its lifetime", async () => {
    const clock = { t: 0 };
    const r = router(true, clock);
    await r.invoke(STEP1, inRun("run-1"));
    clock.t = 300_000; // exactly the lifetime: still cached
    expect(candidate(await r.decide(STEP2, { runId: "run-1" }), "gpt-4").cachedTokens).toBeGreaterThan(3000);
    clock.t = 300_001;
    const d = await r.decide(STEP2, { runId: "run-1" });
    expect(candidate(d, "gpt-4").cachedTokens).toBe(0);
    expect(d.chosen).toBe("mixtral");
  });

  it("assumes no cache without a run id, or in another run", async () => {
    const r = router(true);
    await r.invoke(STEP1, inRun("run-1"));
    for (const d of [await r.decide(STEP2), await r.decide(STEP2, { runId: "run-2" })]) {
      expect(d.candidates.map((c) => c.cachedTokens)).toEqual([0, 0]);
    }
  });

  it("counts only the prefix the new call shares with the cached prompt", async () => {
    const r = router(true);
    await r.invoke(STEP1, inRun("run-1"));
    const edited = [new SystemMessage("A different system prompt."), Q1, A1, Q2];
    expect(candidate(await r.decide(edited, { runId: "run-1" }), "gpt-4").cachedTokens).toBe(0);
  });
});

describe("cache-aware routing under irtRouterMiddleware", () => {
  it("prices the second step of an agent run with the first step's model cache", async () => {
    const lookup = tool(async () => "42", {
      name: "lookup",
      description: "Looks up a number",
      schema: z.object({ q: z.string() }),
    });
    const gpt4 = fakeModel()
      .respondWithTools([{ name: "lookup", args: { q: "x" }, id: "c1" }])
      .respond(new AIMessage("It is 42."));
    const mixtral = fakeModel().respond(new Error("rate limited")).respond(new AIMessage("It is 42."));
    const middleware = irtRouterMiddleware(costAware(gpt4, mixtral));
    const agent = createAgent({
      model: fakeModel(),
      tools: [lookup],
      systemPrompt: SYSTEM.text,
      middleware: [middleware],
    });
    const result = await agent.invoke({ messages: [{ role: "user", content: "What is the number 7 * 6?" }] });
    const [step1, step2] = result.irtRouterRoutes as RouteDecision[];
    expect(step1!.chosen).toBe("gpt-4");
    expect(candidate(step1!, "gpt-4").cachedTokens).toBe(0);
    expect(candidate(step2!, "gpt-4").cachedTokens).toBeGreaterThan(3000);
    expect(candidate(step2!, "mixtral").cachedTokens).toBe(0);
    expect(step2!.chosen).toBe("gpt-4");
  });
});

describe("recorded spend with cached input", () => {
  /** A reply whose usage reports 10,000 input tokens, with the cache reads (and writes) given. */
  const usage = (cacheRead?: number, cacheWrite?: number) =>
    new AIMessage({
      content: "ok",
      usage_metadata: {
        input_tokens: 10_000,
        output_tokens: 100,
        total_tokens: 10_100,
        ...(cacheRead !== undefined
          ? {
              input_token_details: {
                cache_read: cacheRead,
                ...(cacheWrite !== undefined ? { cache_creation: cacheWrite } : {}),
              },
            }
          : {}),
      },
    });

  it("bills the cached tokens the usage reports at the cached-input price", async () => {
    const model = fakeModel().respond(usage(8_000));
    const r = gpt4Only(model);
    await r.invoke("Hello", inRun("run-s"));
    expect(engineOf(r).log.spent("run-s")).toBeCloseTo(
      stepCostUsd({ contextTokens: 10_000, cachedTokens: 8_000, outputTokens: 100, price: GPT4 }),
      12,
    );
  });

  it("else the cached tokens the router tracked for the run", async () => {
    const model = fakeModel().respond(usage()).respond(usage());
    const r = gpt4Only(model);
    await r.invoke(STEP1, inRun("run-s"));
    const first = engineOf(r).log.spent("run-s");
    expect(first).toBeCloseTo(stepCostUsd({ contextTokens: 10_000, outputTokens: 100, price: GPT4 }), 12);
    const d = decisionOf(await r.invoke(STEP2, inRun("run-s")));
    const cached = candidate(d, "gpt-4").cachedTokens!;
    expect(cached).toBeGreaterThan(3000);
    expect(engineOf(r).log.spent("run-s") - first).toBeCloseTo(
      stepCostUsd({ contextTokens: 10_000, cachedTokens: cached, outputTokens: 100, price: GPT4 }),
      12,
    );
  });

  it("prices the next step with the cache the provider reported: none when it read nothing the router counted", async () => {
    // step 2 shares step 1's prefix (> 3000 tokens): the router counts it cached, the provider reports 0 read
    const model = fakeModel().respond(usage()).respond(usage(0)).respond(usage(0));
    const r = gpt4Only(model);
    await r.invoke(STEP1, inRun("run-p"));
    const d2 = decisionOf(await r.invoke(STEP2, inRun("run-p")));
    expect(candidate(d2, "gpt-4").cachedTokens).toBeGreaterThan(3000); // the router's own count
    const d3 = decisionOf(await r.invoke(STEP3, inRun("run-p")));
    expect(candidate(d3, "gpt-4").cachedTokens).toBe(0); // the provider said it caches nothing of this prompt
  });

  it("keeps the router's count when the provider reported a cache read, and bounds it by reported writes", async () => {
    const read = fakeModel().respond(usage()).respond(usage(3000)).respond(usage());
    const r = gpt4Only(read);
    await r.invoke(STEP1, inRun("run-r"));
    await r.invoke(STEP2, inRun("run-r"));
    const d3 = decisionOf(await r.invoke(STEP3, inRun("run-r")));
    const full = promptShape(toRouteMessages(STEP3)).tokens[STEP2.length - 1]!;
    expect(candidate(d3, "gpt-4").cachedTokens).toBe(full); // automatic caching confirmed: the whole step-2 prompt

    // a provider with explicit cache writes (Anthropic): it holds what it read plus what it wrote, here 1000 of the
    // 10000 tokens it counted for step 2, so at most a tenth of step 2's estimated prompt is priced as cached
    const explicit = fakeModel().respond(usage()).respond(usage(0, 1000)).respond(usage());
    const e = gpt4Only(explicit);
    await e.invoke(STEP1, inRun("run-w"));
    await e.invoke(STEP2, inRun("run-w"));
    const w3 = decisionOf(await e.invoke(STEP3, inRun("run-w")));
    const estimated2 = promptShape(toRouteMessages(STEP2)).tokens.at(-1)!;
    expect(candidate(w3, "gpt-4").cachedTokens).toBe(Math.round((1000 * estimated2) / 10_000));
    expect(candidate(w3, "gpt-4").cachedTokens).toBeLessThan(full);
  });
});
