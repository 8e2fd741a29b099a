import { describe, expect, it } from "vitest";
import {
  DEFAULT_UNATTRIBUTED_WEIGHT,
  IrtRouter,
  UNATTRIBUTED_SOURCE,
  type RouteDecision,
} from "../../../src/langchain/index.js";
import { FeedbackBudgetError, ValidationError } from "../../../src/errors.js";
import { rejectedWith } from "../../errors.js";
import { toyRouter } from "../../langchain/toy-router.js";

async function decision(router: IrtRouter, text: string, runId: string): Promise<string> {
  const r = await router.invoke(text, { metadata: { irtRouterRunId: runId } });
  return (r.response_metadata.irtRouter as RouteDecision).decisionId;
}

describe("feedback without an explicit source", () => {
  it("is recorded under the one shared default source, its weight scaled by unattributedWeight", async () => {
    const router = toyRouter();
    const a = await decision(router, "first question", "run-a");
    const b = await decision(router, "second question", "run-b");
    const [ea] = await router.feedback(a, false);
    const [eb] = await router.feedback(b, true, { weight: 0.5 });
    expect(ea).toMatchObject({ source: UNATTRIBUTED_SOURCE, weight: DEFAULT_UNATTRIBUTED_WEIGHT });
    expect(eb).toMatchObject({ source: UNATTRIBUTED_SOURCE, weight: 0.5 * DEFAULT_UNATTRIBUTED_WEIGHT });
    // an explicit source keeps the weight given
    const c = await decision(router, "third question", "run-c");
    const [ec] = await router.feedback(c, true, { source: "alice" });
    expect(ec!.source).toBe("alice");
    expect(ec!.weight ?? 1).toBe(1);
  });

  it("charges every run id to one budget: fresh run ids do not get fresh budgets", async () => {
    // a budget of 0.25 = 2.5 unattributed outcomes at the default factor 0.1
    const router = toyRouter({ feedbackLimits: { sourceBudget: { weight: 0.25, windowMs: 3_600_000 } } });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await decision(router, `question ${i}`, `fresh-run-${i}`));
    await router.feedback(ids[0]!, false);
    await router.feedback(ids[1]!, false);
    const err = await rejectedWith(FeedbackBudgetError, router.feedback(ids[2]!, false));
    expect(err.details).toMatchObject({ source: UNATTRIBUTED_SOURCE });
    // an authenticated caller has a budget of its own
    expect(await router.feedback(ids[2]!, false, { source: "alice", weight: 0.25 })).toHaveLength(1);
  });

  it("validates unattributedWeight, naming the field", async () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      const err = (() => {
        try {
          toyRouter({ feedbackLimits: { unattributedWeight: bad } });
        } catch (error) {
          return error;
        }
      })();
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).path).toMatch(/feedbackLimits\.unattributedWeight/);
    }
  });
});
