import { describe, expect, it } from "vitest";
import { createIrtRouterModel, IrtRouterModel, IrtRouterModelV4 } from "../../src/ai-sdk/index.js";
import { ValidationError } from "../../src/errors.js";
import { ToyScorer, quietLogger } from "../langchain/helpers.js";
import { Script } from "./mocks.js";

const routing = { scorer: new ToyScorer(), logger: quietLogger(), tracing: false };
const v3 = (id: string) => new Script([]).child(id);
/** A LanguageModelV4 as far as the router reads it (ai 7 needs Node 22; its own mock is in test/frameworks/). */
const v4 = (id: string) => ({
  ...v3(id),
  doGenerate: v3(id).doGenerate,
  doStream: v3(id).doStream,
  specificationVersion: "v4",
});

/** The ValidationError `make` throws: its path and message. */
function refused(make: () => unknown): { path?: string; message: string } {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return { path: (error as ValidationError).path, message: (error as ValidationError).message };
  }
  throw new Error("no error");
}
const create = (options: unknown) => () => createIrtRouterModel({ ...routing, ...(options as object) } as never);

describe("the models option of the AI SDK faces", () => {
  it("says what is wrong with a child that is no LanguageModelV3, at its own path", () => {
    expect(refused(create({ models: { "gpt-4": "openai/gpt-4o" } }))).toEqual({
      path: "options.models.gpt-4",
      message: expect.stringMatching(
        /options\.models\.gpt-4: must be an AI SDK LanguageModelV3 .*, not the string "openai\/gpt-4o": the router calls model objects/,
      ),
    });
    const v2 = { ...v3("gpt-4"), doGenerate: v3("gpt-4").doGenerate, specificationVersion: "v2" };
    expect(refused(create({ models: { "gpt-4": v2 } })).message).toMatch(
      /must be an AI SDK LanguageModelV3 .*, not a LanguageModelV2 \(ai 5\): use the provider package made for ai 6/,
    );
    expect(refused(create({ models: [{ id: "a", model: { invoke() {} } }] }))).toEqual({
      path: "options.models.0.model",
      message: expect.stringContaining("got an object with keys invoke"),
    });
    expect(refused(create({ models: [{ id: 5, model: v3("a") }] })).path).toBe("options.models.0.id");
    expect(refused(create({ models: 3 })).message).toMatch(/options\.models: must be the child models, keyed by id/);
    expect(refused(create({ models: {} })).message).toMatch(/options\.models: must hold at least one child/);
  });

  it("refuses options that are no object with a ValidationError, not a TypeError", () => {
    for (const options of [undefined, null, "gpt-4o"]) {
      expect(refused(() => createIrtRouterModel(options as never))).toEqual({
        path: "options",
        message: expect.stringContaining("options: must be an object: { models: {"),
      });
      expect(refused(() => new IrtRouterModel(options as never)).path).toBe("options");
      expect(refused(() => new IrtRouterModelV4(options as never)).path).toBe("options");
    }
    expect(refused(create({})).path).toBe("options.models");
  });

  it("the LanguageModelV4 face refuses LanguageModelV3 children (and others) with a ValidationError", () => {
    expect(refused(() => new IrtRouterModelV4({ models: { "gpt-4": v3("gpt-4") }, ...routing } as never))).toEqual({
      path: "options.models.gpt-4",
      message: expect.stringMatching(
        /must be an AI SDK LanguageModelV4 .*, not a LanguageModelV3 \(ai 6\): createIrtRouterModel makes the LanguageModelV3 router/,
      ),
    });
    // a V4 child with a config that holds no model: the V4 face names that entry
    expect(refused(create({ models: [v4("gpt-4"), { id: "mixtral" }] }))).toEqual({
      path: "options.models.1",
      message: expect.stringContaining("must be an AI SDK LanguageModelV4"),
    });
    expect(refused(create({ models: [v4("gpt-4"), v3("mixtral")] }))).toEqual({
      path: "options.models",
      message: expect.stringContaining("not a mix of both"),
    });
    expect(createIrtRouterModel({ models: [v4("gpt-4")], ...routing } as never)).toBeInstanceOf(IrtRouterModelV4);
  });
});
