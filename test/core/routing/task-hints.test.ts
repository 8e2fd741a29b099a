import { describe, expect, it } from "vitest";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { createAgent } from "langchain";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { IrtRouter, irtRouterMiddleware, type RouteDecision } from "../../../src/langchain/index.js";
import { OnlineLearner } from "../../../src/learning/learner.js";
import { ValidationError } from "../../../src/errors.js";
import { ToyScorer, quietLogger } from "../../langchain/helpers.js";

const fake = () => new FakeListChatModel({ responses: ["ok"] });
const QUESTION = "Fix this function and explain the change.";

function setup(options: { task?: string } = {}) {
  const scorer = new ToyScorer();
  const learner = new OnlineLearner(scorer.models, { knownScale: 1 });
  const logger = quietLogger();
  const router = new IrtRouter({ models: { "gpt-4": fake(), mistral: fake() }, scorer, learner, logger, ...options });
  return { router, learner, logger };
}

const decisionOf = (m: { response_metadata: unknown }) =>
  (m.response_metadata as { irtRouter: RouteDecision }).irtRouter;

/**
 * The same text under two tasks: gpt-4 is always wrong on "code" and right on "chat", mistral the reverse. Each round
 * routes one call per task and gives its outcome as feedback. Returns the last choice per task.
 */
async function learnRounds(router: IrtRouter, rounds: number, hinted: boolean): Promise<Record<string, string>> {
  const last: Record<string, string> = {};
  for (let i = 0; i < rounds; i++) {
    for (const task of ["code", "chat"]) {
      const d = decisionOf(await router.invoke(QUESTION, hinted ? { metadata: { irtRouterTask: task } } : {}));
      last[task] = d.chosen;
      const right = task === "code" ? d.chosen === "mistral" : d.chosen === "gpt-4";
      await router.feedback(d.decisionId, right);
    }
  }
  return last;
}

describe("task hints", () => {
  it("records the task on the decision and on its feedback event", async () => {
    const { router } = setup();
    const d = decisionOf(await router.invoke(QUESTION, { metadata: { irtRouterTask: "code" } }));
    expect(d.task).toBe("code");
    const [event] = await router.feedback(d.decisionId, true);
    expect(event!.task).toBe("code");
    const fixed = setup({ task: "support" }).router;
    expect(decisionOf(await fixed.invoke(QUESTION)).task).toBe("support");
    expect(decisionOf(await fixed.invoke(QUESTION, { metadata: { irtRouterTask: "code" } })).task).toBe("code");
  });

  it("learns per-task offsets: routes each task to the model that is right on it", async () => {
    const hinted = await learnRounds(setup().router, 40, true);
    expect(hinted).toEqual({ code: "mistral", chat: "gpt-4" });
    // Without the hint the two tasks are the same query: one model for both, whatever it learns.
    const blind = await learnRounds(setup().router, 40, false);
    expect(blind.code).toBe(blind.chat);
  });

  it("without a learner option, records the hint and learns it in memory from the first feedback on", async () => {
    const logger = quietLogger();
    const router = new IrtRouter({ models: { "gpt-4": fake(), mistral: fake() }, scorer: new ToyScorer(), logger });
    const d = decisionOf(await router.invoke(QUESTION, { metadata: { irtRouterTask: "code" } }));
    expect(d.task).toBe("code");
    expect(logger.messages.filter((m) => m.includes("task hint"))).toEqual([]);
    expect((await router.feedback(d.decisionId, true))[0]!.task).toBe("code");
    // the in-memory learner (started by that feedback) learns per-task offsets as a given learner does
    expect(await learnRounds(router, 40, true)).toEqual({ code: "mistral", chat: "gpt-4" });
  });

  it("rejects a bad hint naming it", async () => {
    const { router } = setup();
    await expect(router.invoke(QUESTION, { metadata: { irtRouterTask: 42 } })).rejects.toThrow(
      /metadata\.irtRouterTask/,
    );
    await expect(router.invoke(QUESTION, { metadata: { irtRouterTask: " " } })).rejects.toBeInstanceOf(ValidationError);
    expect(() => setup({ task: "" })).toThrow(/options\.task/);
  });
});

describe("task hints under irtRouterMiddleware", () => {
  it("reads the hint from the agent run's metadata", async () => {
    const middleware = irtRouterMiddleware({
      models: {
        "gpt-4": fakeModel().respond(new AIMessage("done")),
        mistral: fakeModel().respond(new AIMessage("done")),
      },
      scorer: new ToyScorer(),
      logger: quietLogger(),
    });
    const agent = createAgent({ model: fakeModel(), tools: [], middleware: [middleware] });
    const result = await agent.invoke(
      { messages: [{ role: "user", content: QUESTION }] },
      { metadata: { irtRouterTask: "code" } },
    );
    expect((result.irtRouterRoutes as RouteDecision[])[0]!.task).toBe("code");
  });
});
