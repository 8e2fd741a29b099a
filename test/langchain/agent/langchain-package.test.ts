/**
 * The contract between the middleware and the real `langchain` package: `irt-router/langchain` builds its middleware
 * without importing langchain (src/langchain/agent/langchain-package.ts), so the object it builds must be the one
 * langchain's own `createMiddleware` would, with langchain's brand, and a real `createAgent` must run it.
 */
import { describe, expect, it } from "vitest";
import * as langchain from "langchain";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { z } from "zod";
import {
  assertLangchainInstalled,
  createMiddleware,
  loadLangchain,
  MIDDLEWARE_BRAND,
} from "../../../src/langchain/agent/langchain-package.js";
import { IrtRouter, irtRouterMiddleware, type RouteDecision } from "../../../src/langchain/index.js";
import { ToyScorer } from "../helpers.js";

describe("the middleware without importing langchain", () => {
  it("brands it with langchain's own MIDDLEWARE_BRAND", () => {
    expect(MIDDLEWARE_BRAND).toBe(langchain.MIDDLEWARE_BRAND);
  });

  it("builds the object langchain's createMiddleware builds, for every hook it takes", () => {
    const hook = () => undefined;
    const config = {
      name: "Example",
      stateSchema: z.object({ n: z.number().default(0) }),
      contextSchema: z.object({ user: z.string() }),
      wrapToolCall: hook,
      wrapModelCall: hook,
      beforeAgent: hook,
      beforeModel: hook,
      afterModel: hook,
      afterAgent: hook,
      tools: [],
    };
    const ours = createMiddleware(config as never) as unknown as Record<string | symbol, unknown>;
    const theirs = langchain.createMiddleware(config as never) as unknown as Record<string | symbol, unknown>;
    expect(ours).toStrictEqual(theirs);
    expect(ours[langchain.MIDDLEWARE_BRAND]).toBe(true);
    expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort());
  });

  it("gives the router's middleware the keys and brand langchain's createMiddleware would", () => {
    const middleware = irtRouterMiddleware({ models: { "gpt-4": fakeModel() }, scorer: new ToyScorer() });
    const { router, ...config } = middleware as unknown as Record<string, unknown>;
    expect(router).toBeInstanceOf(IrtRouter);
    const rebuilt = langchain.createMiddleware(config as never) as unknown as Record<string | symbol, unknown>;
    expect(config).toStrictEqual(rebuilt);
  });

  it("runs in a real createAgent, routing each step", async () => {
    const strong = fakeModel().respond(new AIMessage("Paris is sunny."));
    const middleware = irtRouterMiddleware({ models: { "gpt-4": strong }, scorer: new ToyScorer() });
    const agent = langchain.createAgent({ model: fakeModel(), tools: [], middleware: [middleware] });
    const result = await agent.invoke({ messages: [{ role: "user", content: "Weather in Paris?" }] });
    expect(result.messages.at(-1)!.content).toBe("Paris is sunny.");
    expect((result.irtRouterRoutes as RouteDecision[]).map((d) => d.chosen)).toEqual(["gpt-4"]);
    expect(typeof result.irtRouterRunId).toBe("string");
  });

  it("finds the installed langchain without importing it, and loads the same module when a step needs it", async () => {
    expect(() => assertLangchainInstalled("irtRouterMiddleware")).not.toThrow();
    expect(await loadLangchain("irtRouterMiddleware")).toBe(langchain);
  });
});
