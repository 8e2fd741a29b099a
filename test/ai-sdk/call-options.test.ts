import { generateText } from "ai";
import { describe, expect, it } from "vitest";
import { createIrtRouterModel } from "../../src/ai-sdk/index.js";
import { RouterCore } from "../../src/core/router-core.js";
import { ValidationError } from "../../src/errors.js";
import { ToyScorer, quietLogger } from "../langchain/helpers.js";
import { Script } from "./mocks.js";

const routing = { scorer: new ToyScorer(), logger: quietLogger(), tracing: false };
const router = () => {
  const script = new Script([{ content: [{ type: "text", text: "391" }] }]);
  const model = createIrtRouterModel({
    models: { "gpt-4": script.child("gpt-4"), mixtral: script.child("mixtral") },
    ...routing,
  });
  return { model, script };
};

/** The ValidationError a call with these router options fails with (its path and message). */
async function refused(options: unknown): Promise<{ path?: string; message: string }> {
  const { model, script } = router();
  const error = await generateText({
    model,
    prompt: "What is 17 * 23?",
    maxRetries: 0,
    providerOptions: { "irt-router": options as never },
  }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ValidationError);
  expect(script.served).toEqual([]); // no child was called
  return { path: (error as ValidationError).path, message: (error as ValidationError).message };
}

describe('providerOptions["irt-router"]', () => {
  it("takes runId, task and model (a registered child's id)", async () => {
    const { model, script } = router();
    const result = await generateText({
      model,
      prompt: "What is 17 * 23?",
      providerOptions: { "irt-router": { runId: "run-1", task: "math", model: "mixtral" } },
    });
    expect(result.providerMetadata?.["irt-router"]).toMatchObject({ runId: "run-1", chosen: "mixtral" });
    expect(model.decisions()[0]).toMatchObject({ task: "math", shadow: { chosen: "gpt-4" } });
    expect(script.served).toEqual(["mixtral"]);
  });

  it("refuses a value of the wrong type or an empty one, naming the field as the user wrote it", async () => {
    expect(await refused({ runId: 42 })).toEqual({
      path: 'providerOptions["irt-router"].runId',
      message: expect.stringContaining(`providerOptions["irt-router"].runId: must be a string`),
    });
    expect((await refused({ runId: "" })).message).toContain(`providerOptions["irt-router"].runId: must not be empty`);
    expect((await refused({ model: ["mixtral"] })).path).toBe('providerOptions["irt-router"].model');
    expect((await refused({ task: null })).path).toBe('providerOptions["irt-router"].task');
    expect((await refused("run-1")).message).toContain(`providerOptions["irt-router"]: must be an object`);
  });

  it("refuses an unknown key with the closest known one", async () => {
    expect(await refused({ runID: "run-7" })).toEqual({
      path: 'providerOptions["irt-router"].runID',
      message: expect.stringContaining('unknown key "runID"; did you mean "runId"?'),
    });
    expect((await refused({ modle: "mixtral" })).message).toContain('did you mean "model"?');
  });

  it("refuses a model that is no registered child, naming the field and listing the registered ids", async () => {
    expect(await refused({ model: "gpt4" })).toEqual({
      path: 'providerOptions["irt-router"].model',
      message:
        'providerOptions["irt-router"].model "gpt4" is not a registered model (one of: gpt-4, mixtral); ' +
        'did you mean "gpt-4"?',
    });
    const { model } = router();
    const plan = model.plan([{ role: "user", content: "hi" }], { model: "claude" });
    await expect(plan).rejects.toThrow(
      'plan(messages, call): call.model "claude" is not a registered model (one of: gpt-4, mixtral).',
    );
    await expect(plan.catch((e: ValidationError) => Promise.reject(e.path))).rejects.toBe("call.model");
  });

  it("RouterCore.route names its own field, call.serve, with the registered ids", async () => {
    const core = new RouterCore({ models: [{ id: "gpt-4" }, { id: "mixtral" }], ...routing });
    await expect(core.route({ messages: [{ role: "user", text: "hi" }], serve: "mixtrel" })).rejects.toThrow(
      'route(call): call.serve "mixtrel" is not a registered model (one of: gpt-4, mixtral); did you mean "mixtral"?',
    );
  });
});
