/** irtRouterMiddleware with routing: "run": one model per createAgent run, chosen from the task text, pinned. */
import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { IrtRouter, irtRouterMiddleware } from "../../../src/langchain/index.js";
import { HungModel, recordingWeatherTool, ToyScorer } from "../helpers.js";

const { weather, calls } = recordingWeatherTool();

const BIG = { inputPer1M: 5, outputPer1M: 25 };
const SMALL = { inputPer1M: 0.5, outputPer1M: 3 };

function weatherModel(city: string) {
  return fakeModel()
    .respondWithTools([{ name: "get_weather", args: { city }, id: "c1" }])
    .respond(new AIMessage(`Sunny in ${city}.`));
}

describe('irtRouterMiddleware, routing: "run"', () => {
  it("routes the run once from its task and pins every model call to that model, with the reason", async () => {
    calls.length = 0;
    const big = weatherModel("Oslo");
    const small = fakeModel();
    const router = new IrtRouter({
      models: { big: { model: big, price: BIG }, small: { model: small, price: SMALL } },
      scorer: new ToyScorer(),
    });
    const middleware = irtRouterMiddleware({ router, routing: "run" });
    const placeholder = fakeModel();
    const agent = createAgent({ model: placeholder, tools: [weather], middleware: [middleware] });
    const result = await agent.invoke({ messages: [{ role: "user", content: "Weather in Oslo?" }] });
    expect(calls).toEqual(["Oslo"]);
    expect(placeholder.callCount).toBe(0);
    // cost weight 0: the model the price tier rates most able, for both calls of the run
    expect(result.irtRouterRun!.chosen).toBe("big");
    expect(big.callCount).toBe(2);
    expect(small.callCount).toBe(0);
    expect(result.irtRouterRunModels).toEqual(["big", "big"]);
    expect(result.irtRouterRunTask).toEqual({ text: "Weather in Oslo?" });
    const d = result.irtRouterRun!;
    expect(d.policy).toMatch(/^run\(costWeight=0/);
    expect(d.reason).toContain("big");
    expect(d.candidates.map((c) => c.modelId).sort()).toEqual(["big", "small"]);
    for (const c of d.candidates) {
      expect(c.p).toBeGreaterThan(0);
      expect(c.p).toBeLessThan(1);
      expect(c.expectedCost).toBeGreaterThan(0);
    }
    // no per-step decisions in this mode
    expect(result.irtRouterRoutes).toEqual([]);
    expect(router.decisions()).toHaveLength(0);
  });

  it("takes the cost weight, the task hint, and learns from run feedback across runs", async () => {
    const big = fakeModel();
    const small = fakeModel();
    const router = new IrtRouter({
      models: { big: { model: big, price: BIG }, small: { model: small, price: SMALL } },
      scorer: new ToyScorer(),
    });
    const middleware = irtRouterMiddleware({ router, routing: "run", runCostWeight: 0.5 });
    const agent = createAgent({ model: fakeModel(), tools: [], middleware: [middleware] });
    small.respond(new AIMessage("done"));
    const first = await agent.invoke(
      { messages: [{ role: "user", content: "Rename the files in the folder." }] },
      { metadata: { irtRouterTask: "file-operations" } },
    );
    // a high cost weight: the cheap model
    expect(first.irtRouterRun!.chosen).toBe("small");
    expect(first.irtRouterRun!.policy).toContain("costWeight=0.5");
    expect(first.irtRouterRunTask).toEqual({ text: "Rename the files in the folder.", hint: "file-operations" });
    // the cheap model fails every file-operations task, the big one passes them: the router learns it
    for (let i = 0; i < 6; i++) {
      const task = { id: `t${i}`, text: `Move file ${i} into the archive folder.`, hint: "file-operations" };
      router.runs.feedback(task, "small", false);
      router.runs.feedback(task, "big", true);
    }
    router.runs.feedback(first.irtRouterRunTask!, first.irtRouterRun!.chosen, false);
    big.respond(new AIMessage("done"));
    const second = await agent.invoke(
      { messages: [{ role: "user", content: "Rename the files in the other folder." }] },
      { metadata: { irtRouterTask: "file-operations" } },
    );
    expect(second.irtRouterRun!.chosen).toBe("big");
    expect(second.irtRouterRunModels).toEqual(["big"]);
    expect(small.callCount).toBe(1);
  });

  it("falls back to the next model by p when the pinned one throws", async () => {
    const big = fakeModel().alwaysThrow(Object.assign(new Error("529 overloaded"), { status: 529 }));
    const small = fakeModel().respond(new AIMessage("done by small"));
    const router = new IrtRouter({
      models: { big: { model: big, price: BIG }, small: { model: small, price: SMALL } },
      scorer: new ToyScorer(),
    });
    const agent = createAgent({
      model: fakeModel(),
      tools: [],
      middleware: [irtRouterMiddleware({ router, routing: "run" })],
    });
    const result = await agent.invoke({ messages: [{ role: "user", content: "Say done." }] });
    expect(result.irtRouterRun!.chosen).toBe("big");
    expect(result.irtRouterRunModels).toEqual(["small"]);
    expect(result.messages.at(-1)!.content).toBe("done by small");
  });

  it("abandons a pinned model that does not answer within attemptTimeout and falls back (it waited forever)", async () => {
    const small = fakeModel().respond(new AIMessage("done by small"));
    const router = new IrtRouter({
      models: { big: { model: new HungModel({}), price: BIG }, small: { model: small, price: SMALL } },
      scorer: new ToyScorer(),
      attemptTimeout: 100,
    });
    const agent = createAgent({
      model: fakeModel(),
      tools: [],
      middleware: [irtRouterMiddleware({ router, routing: "run" })],
    });
    let hung: ReturnType<typeof setTimeout> | undefined;
    const result = await Promise.race([
      agent.invoke({ messages: [{ role: "user", content: "Say done." }] }),
      new Promise<undefined>((resolve) => (hung = setTimeout(() => resolve(undefined), 10_000))),
    ]);
    clearTimeout(hung);
    expect(result?.irtRouterRun!.chosen).toBe("big");
    expect(result?.irtRouterRunModels).toEqual(["small"]);
    expect(result?.messages.at(-1)!.content).toBe("done by small");
  }, 20_000);

  it("validates its options", () => {
    const router = new IrtRouter({
      models: { big: { model: fakeModel(), price: BIG }, small: { model: fakeModel(), price: SMALL } },
      scorer: new ToyScorer(),
    });
    expect(() => irtRouterMiddleware({ router, routing: "runs" as never })).toThrow(/options.routing/);
    expect(() => irtRouterMiddleware({ router, runCostWeight: 0.1 })).toThrow(
      /runCostWeight applies to routing: "run"/,
    );
    expect(() => irtRouterMiddleware({ router, routing: "run", runCostWeight: -1 })).toThrow(/options.runCostWeight/);
    // run-level routing needs every model's price
    const unpriced = new IrtRouter({ models: { "my-model": fakeModel() }, scorer: new ToyScorer() });
    expect(() => irtRouterMiddleware({ router: unpriced, routing: "run" })).toThrow(/needs a price/);
    expect(irtRouterMiddleware({ router, routing: "step" }).router).toBe(router);
  });
});
