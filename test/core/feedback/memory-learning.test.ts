import { describe, expect, it } from "vitest";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { IrtRouter, type RouteDecision } from "../../../src/langchain/index.js";
import type { FeedbackEvent } from "../../../src/learning/events.js";
import { OnlineLearner } from "../../../src/learning/learner.js";
import { MemoryStore } from "../../../adapters/stores/memory.js";
import { ToyScorer, quietLogger } from "../../langchain/helpers.js";

const fake = () => new FakeListChatModel({ responses: ["ok"] });
const QUESTION = "What is 17 * 23?";
const decisionOf = (m: { response_metadata: unknown }) =>
  (m.response_metadata as { irtRouter: RouteDecision }).irtRouter;
const pOf = (d: RouteDecision, id: string) => d.candidates.find((c) => c.id === id)!.p;

/** p of gpt-4 on QUESTION before and after 20 failures of it given as feedback. */
async function pBeforeAndAfterFailures(router: IrtRouter): Promise<{ before: number; after: number }> {
  const first = decisionOf(await router.invoke(QUESTION));
  expect(first.chosen).toBe("gpt-4");
  const before = pOf(first, "gpt-4");
  let d = first;
  for (let i = 0; i < 20; i++) {
    // a named (authenticated) source: feedback without one counts at a tenth of its weight (docs/online.md)
    await router.feedback(d.decisionId, false, { source: "test-grader" });
    d = decisionOf(await router.invoke(QUESTION, { metadata: { irtRouterRunId: `r${i}` } }));
  }
  return { before, after: pOf(d, "gpt-4") };
}

// One test per documented setup (docs/langchain.md, "Feedback"): feedback always moves p.
describe("feedback goes somewhere in every setup", () => {
  const models = () => ({ "gpt-4": fake(), mistral: fake() });

  it("no store, no learner (the quickstart): learns in memory from the first feedback; routing is the scorer's until then", async () => {
    const scorer = new ToyScorer();
    const router = new IrtRouter({ models: models(), scorer, logger: quietLogger() });
    const plain = new IrtRouter({ models: models(), scorer, logger: quietLogger() });
    // before any feedback, p is the scorer's (the same as a router that never gets feedback)
    expect(decisionOf(await router.invoke(QUESTION)).candidates).toEqual(
      decisionOf(await plain.invoke(QUESTION)).candidates,
    );
    const { before, after } = await pBeforeAndAfterFailures(router);
    expect(after).toBeLessThan(before - 0.1);
    expect(router.feedbackEvents).toHaveLength(20);
  });

  it("feedbackSink only: the events go to the sink and the in-memory learner applies them", async () => {
    const events: FeedbackEvent[] = [];
    const router = new IrtRouter({
      models: models(),
      scorer: new ToyScorer(),
      feedbackSink: { append: (batch) => void events.push(...batch) },
      logger: quietLogger(),
    });
    const { before, after } = await pBeforeAndAfterFailures(router);
    expect(after).toBeLessThan(before - 0.1);
    expect(events).toHaveLength(20);
    expect(router.feedbackEvents).toBeUndefined();
  });

  it("a learner of the user's: feedback updates that learner", async () => {
    const scorer = new ToyScorer();
    const learner = OnlineLearner.forScorer(scorer);
    const router = new IrtRouter({ models: models(), scorer, learner, logger: quietLogger() });
    const { before, after } = await pBeforeAndAfterFailures(router);
    expect(after).toBeLessThan(before - 0.1);
  });

  it("a store: feedback is journaled there and the restored learner applies it", async () => {
    const store = new MemoryStore();
    const router = new IrtRouter({ models: models(), scorer: new ToyScorer(), store, logger: quietLogger() });
    const { before, after } = await pBeforeAndAfterFailures(router);
    expect(after).toBeLessThan(before - 0.1);
    expect((await store.load()).events).toHaveLength(20);
  });

  it("router.calibrate on a router without a learner calibrates the in-memory learner, which routing then uses", async () => {
    const bank = {
      dataset: "synthetic",
      dim: 2,
      ids: Array.from({ length: 20 }, (_, i) => `q${i}`),
      alphas: Float32Array.from({ length: 40 }, (_, k) => 1 + (k % 7) / 7),
      betas: Float32Array.from({ length: 20 }, (_, i) => -1 + i / 10),
    };
    const router = new IrtRouter({
      models: { "gpt-4": fake(), "brand-new-model": fake() },
      scorer: new ToyScorer(),
      logger: quietLogger(),
    });
    const result = await router.calibrate("brand-new-model", {
      budget: 8,
      targetSd: 0,
      probes: bank,
      prompt: (probe) => probe.id,
      grade: () => 1,
    });
    expect(result.asked).toBe(8);
    expect(router.feedbackEvents).toHaveLength(8);
  });
});
