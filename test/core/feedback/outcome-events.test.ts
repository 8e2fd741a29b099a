import { describe, expect, it } from "vitest";
import { runEvents } from "../../../src/core/feedback/outcome-events.js";
import type { LoggedDecision } from "../../../src/core/routing/decision-log.js";

/** A logged step of run "r" answered by `model` on the query with parameters (alpha, beta), predicted p 0.9. */
function step(id: string, model: string, beta: number, toolError = false): LoggedDecision {
  return {
    decision: {
      decisionId: id,
      runId: "r",
      chosen: model,
      policy: "quality",
      candidates: [{ id: model, p: 0.9, expectedCost: 0, utility: 0.9 }],
      excluded: [],
      encodeMs: 0,
      scoreMs: 0,
      cacheHit: false,
      inputTokens: 10,
      attempts: [],
    },
    alpha: Float32Array.from([1, 0]),
    beta,
    catalogIds: { [model]: model },
    predicted: { [model]: 0.9 },
    feedbackGiven: false,
    ...(toolError ? { toolError: true } : {}),
  } as unknown as LoggedDecision;
}

describe("runEvents: a failed run explained by a tool error the agent never recovered from", () => {
  it("blames only the tool-error steps when the retry failed visibly too", () => {
    const steps = [step("a", "big", 0), step("b", "big", 1, true), step("c", "big", 1, true), step("d", "big", 2)];
    const events = runEvents("r", steps, 0, 1, 0);
    expect(events.map((e) => [e.decisionId, e.y])).toEqual([
      ["b", 0],
      ["c", 0],
    ]);
  });

  it("spreads the failure over the other steps when the step was sent again and answered", () => {
    const steps = [step("a", "big", 0), step("b", "big", 1, true), step("c", "small", 1), step("d", "big", 2)];
    const events = runEvents("r", steps, 0, 1, 0);
    expect(events.map((e) => e.decisionId)).toEqual(["a", "b", "c", "d"]);
    expect(events.find((e) => e.decisionId === "b")).toMatchObject({ y: 0 });
    for (const id of ["a", "c", "d"]) expect(events.find((e) => e.decisionId === id)!.weight).toBeLessThan(1);
  });

  it("leaves a successful run and a run without tool errors as they were", () => {
    const ok = runEvents("r", [step("a", "big", 0), step("b", "big", 1, true), step("c", "big", 1)], 1, 1, 0);
    expect(ok.map((e) => [e.decisionId, e.y])).toEqual([
      ["a", 1],
      ["b", 0],
      ["c", 1],
    ]);
    const failed = runEvents("r", [step("a", "big", 0), step("b", "big", 1)], 0, 1, 0);
    expect(failed.map((e) => e.decisionId)).toEqual(["a", "b"]);
  });
});
