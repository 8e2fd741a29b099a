import { describe, expect, it } from "vitest";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { IrtRouter } from "../../../src/langchain/index.js";
import { RunRouter, SpendPacer } from "../../../src/runs/index.js";
import { ValidationError } from "../../../src/errors.js";
import { quietLogger } from "../helpers.js";

const price = (input: number, output: number) => ({ inputPer1M: input, outputPer1M: output });

function router(runs?: ConstructorParameters<typeof IrtRouter>[0]["runs"]) {
  return new IrtRouter({
    models: {
      dear: { model: fakeModel().respond(new AIMessage("dear")), price: price(5, 25) },
      cheap: { model: fakeModel().respond(new AIMessage("cheap")), price: price(0.5, 3) },
    },
    logger: quietLogger(),
    ...(runs ? { runs } : {}),
  });
}

describe("IrtRouter run-level routing", () => {
  it("routeRun decides with a RunRouter over the registered models and their prices", () => {
    const r = router();
    expect(r.runs).toBeInstanceOf(RunRouter);
    expect(r.runs.modelIds).toEqual(["dear", "cheap"]);
    expect(r.runs.runCost("dear")).toBeCloseTo(3, 12); // 400k x $5/M + 40k x $25/M
    const d = r.routeRun({ id: "t1", text: "Fix the failing build." });
    expect(d.chosen).toBe("dear"); // the dearer model is presumed the abler before any outcome
    expect(r.routeRun("Fix the failing build.", { costWeight: 5 }).chosen).toBe("cheap");
    expect(r.modelFor(d.chosen)).toBe(
      (r as unknown as { engine: { slots: { model: unknown }[] } }).engine.slots[0]!.model,
    );
    expect(() => r.modelFor("nope")).toThrow(ValidationError);
  });

  it("takes the runs option (validated) and shares the run router with derived routers", () => {
    const r = router({ costWeight: 5 });
    expect(r.routeRun("task").chosen).toBe("cheap");
    expect(r.bindTools([]).runs).toBe(r.runs);
    expect(() => router({ costWeight: -1 })).toThrow(/options\.runs\.costWeight/);
  });

  it("runTask escalates after a failed run and feeds every attempt back", async () => {
    const r = router();
    const replies: string[] = [];
    const result = await r.runTask(
      { id: "t2", text: "Make the tests pass." },
      async (modelId) => (await r.modelFor(modelId).invoke("go")).text,
      (text) => replies.push(text) === 2, // the first run fails, the second passes
    );
    expect(new Set(replies)).toEqual(new Set(["dear", "cheap"])); // a failed model is not run again
    expect(result.passed).toBe(true);
    expect(r.runs.feedbackCount).toBe(2);
  });

  it("runTask takes a pacer: its cost weight decides, the spend is recorded", async () => {
    const r = router();
    const pacer = new SpendPacer({ target: 0.5, start: 2 });
    const result = await r.runTask(
      { id: "t9", text: "Fix the failing build." },
      async (modelId) => modelId,
      () => true,
      { pacer },
    );
    expect(result.attempts[0]!.decision.policy).toContain("costWeight=2,");
    expect(result.attempts[0]!.modelId).toBe("cheap"); // a high weight: the cheap model first
    expect(pacer.taskCount).toBe(1);
    expect(pacer.meanSpend).toBeCloseTo(r.runs.runCost("cheap"), 12);
  });

  it("runTask takes a signal: run gets it for the agent's calls, and an abort cancels the escalation at once", async () => {
    const r = router();
    const controller = new AbortController();
    const reason = new Error("cancelled by the user");
    const given: (AbortSignal | undefined)[] = [];
    const pending = r.runTask(
      { id: "t3", text: "Make the tests pass." },
      async (modelId, attempt, { signal }) => {
        given.push(signal);
        if (attempt === 1) return (await r.modelFor(modelId).invoke("go", { signal })).text;
        queueMicrotask(() => controller.abort(reason)); // the second run hangs and is cancelled meanwhile
        return new Promise<string>(() => undefined);
      },
      () => false,
      { maxAttempts: 3, signal: controller.signal },
    );
    await expect(pending).rejects.toBe(reason);
    expect(given).toEqual([controller.signal, controller.signal]);
    expect(r.runs.feedbackCount).toBe(1); // the first, failed run; not the cancelled one
    const bad = { signal: "soon" as never };
    const error = await r
      .runTask(
        "t4",
        async (m) => m,
        () => true,
        bad,
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe("options.signal");
    expect((error as Error).message).toMatch(/options\.signal: must be an AbortSignal/);
  });
});
