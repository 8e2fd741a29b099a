import { generateText } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { RouterCore } from "../../../src/core/router-core.js";
import { createIrtRouterModel } from "../../../src/ai-sdk/index.js";
import { FeedbackError } from "../../../src/errors.js";
import { quietLogger, ToyScorer } from "../../langchain/helpers.js";
import { toyRouter } from "../../langchain/toy-router.js";
import { usage } from "../../ai-sdk/mocks.js";

/** The messages of the FeedbackErrors for an unknown id, an empty id, and attribution given with a decision id. */
async function refusals(
  router: {
    feedback(id: string, outcome: boolean, options?: object): Promise<unknown>;
  },
  decisionId: string,
): Promise<string[]> {
  const messages: string[] = [];
  for (const [id, options] of [
    ["run-that-does-not-exist", {}],
    ["", {}],
    [decisionId, { attribution: { mode: "every" } }],
  ] as const) {
    const error = await router.feedback(id, true, options).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FeedbackError);
    messages.push((error as FeedbackError).message);
  }
  return messages;
}

const LANGCHAIN_FIELDS = /response_metadata|irtRouterRunId|middleware/;

describe("feedback's messages name the ids where the face puts them", () => {
  it("the AI SDK face and RouterCore: no LangChain field", async () => {
    const child = (id: string) =>
      new MockLanguageModelV3({
        modelId: id,
        doGenerate: async () => ({
          content: [{ type: "text", text: "391" }],
          finishReason: { unified: "stop", raw: undefined },
          usage: usage(),
          warnings: [],
        }),
      });
    const model = createIrtRouterModel({
      models: { "gpt-4": child("gpt-4"), mixtral: child("mixtral") },
      scorer: new ToyScorer(),
      logger: quietLogger(),
      tracing: false,
    });
    const result = await generateText({ model, prompt: "What is 17 * 23?" });
    const decisionId = (result.providerMetadata?.["irt-router"] as { decisionId: string }).decisionId;
    const aiSdk = await refusals(model, decisionId);
    expect(aiSdk[0]).toMatch(/^No decision or run with id "run-that-does-not-exist"/);
    expect(aiSdk[0]).toContain(
      `Use a call's providerMetadata["irt-router"].decisionId, or the run id the calls were routed with ` +
        `(providerOptions["irt-router"].runId, the x-irt-router-run-id header, or irtPrepareStep's).`,
    );
    for (const message of aiSdk) expect(message).not.toMatch(LANGCHAIN_FIELDS);

    const core = new RouterCore({
      models: [{ id: "gpt-4" }, { id: "mixtral" }],
      scorer: new ToyScorer(),
      tracing: false,
    });
    const plan = await core.route({ messages: [{ role: "user", text: "What is 17 * 23?" }] });
    core.served(plan, plan.models[0]!);
    for (const message of await refusals(core, plan.decision.decisionId)) expect(message).not.toMatch(LANGCHAIN_FIELDS);
  });

  it("the LangChain face keeps its own fields", async () => {
    const router = toyRouter();
    const reply = await router.invoke("What is 17 * 23?");
    const decisionId = (reply.response_metadata.irtRouter as { decisionId: string }).decisionId;
    const [unknown, empty, attribution] = await refusals(router, decisionId);
    expect(unknown).toContain(
      "Use response_metadata.irtRouter.decisionId, or the run id given as metadata.irtRouterRunId / by the middleware.",
    );
    expect(empty).toContain("response_metadata.irtRouter.decisionId");
    expect(attribution).toContain("metadata.irtRouterRunId");
  });
});
