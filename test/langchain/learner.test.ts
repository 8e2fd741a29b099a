import { describe, expect, it } from "vitest";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { IrtRouter, type RouteDecision } from "../../src/langchain/index.js";
import { OnlineLearner } from "../../src/learning/learner.js";
import { ToyScorer, quietLogger } from "./helpers.js";

const fake = () => new FakeListChatModel({ responses: ["ok"] });

function setup() {
  const scorer = new ToyScorer();
  const learner = new OnlineLearner(scorer.models, { knownScale: 1 });
  const router = new IrtRouter({ models: { "gpt-4": fake(), mistral: fake() }, scorer, learner, logger: quietLogger() });
  return { scorer, learner, router };
}

describe("IrtRouter with an online learner", () => {
  it("scores candidates with the learner's predictive p", async () => {
    const { scorer, learner, router } = setup();
    const reply = await router.invoke("Name a colour.");
    const d = reply.response_metadata.irtRouter as RouteDecision;
    const item = await scorer.itemParams("Name a colour.");
    const expected = learner.score(item, ["gpt-4-1106-preview", "mistral-7b-chat"]);
    const byId = Object.fromEntries(d.candidates.map((c) => [c.id, c.p]));
    expect(byId["gpt-4"]).toBeCloseTo(expected[0]!.p, 10);
    expect(byId.mistral).toBeCloseTo(expected[1]!.p, 10);
  });

  it("learns from feedback: repeated failures of the chosen model move routing to the other", async () => {
    const { router } = setup();
    const question = "Name a colour.";
    const first = (await router.invoke(question)).response_metadata.irtRouter as RouteDecision;
    expect(first.chosen).toBe("gpt-4");
    let chosen = first.chosen;
    let decision = first;
    for (let i = 0; i < 60 && chosen === "gpt-4"; i++) {
      await router.feedback(decision.decisionId, false);
      decision = (await router.invoke(question)).response_metadata.irtRouter as RouteDecision;
      chosen = decision.chosen;
    }
    expect(chosen).toBe("mistral");
  });

  it("adds a model the learner does not know at its new-model prior", async () => {
    const scorer = new ToyScorer();
    const learner = new OnlineLearner(scorer.models);
    const router = new IrtRouter({
      models: { "gpt-4": fake(), "brand-new-model": fake() },
      scorer,
      learner,
      logger: quietLogger(),
    });
    await router.invoke("Name a colour.");
    expect(learner.has("brand-new-model")).toBe(true);
  });

  it("rejects a learner option that is not a learner, naming the field", () => {
    expect(() => new IrtRouter({ models: { "gpt-4": fake() }, scorer: new ToyScorer(), learner: {} as never })).toThrow(/options\.learner/);
  });
});
