import { describe, expect, it } from "vitest";
import { DEFAULT_ATTRIBUTION } from "../../../src/learning/attribution.js";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { IrtRouter, UNATTRIBUTED_SOURCE, type RouteDecision } from "../../../src/langchain/index.js";
import { FeedbackError } from "../../../src/errors.js";
import type { FeedbackEvent } from "../../../src/learning/events.js";
import { attributeRun, DEFAULT_ATTRIBUTION_DISCOUNT, stepEventId } from "../../../src/learning/attribution.js";
import { OnlineLearner } from "../../../src/learning/learner.js";
import { rejectedWith } from "../../errors.js";
import { ToyScorer } from "../../langchain/helpers.js";
import { toyRouter } from "../../langchain/toy-router.js";

function makeRouter(sink?: { append(events: readonly FeedbackEvent[]): unknown }, maxRunWeight?: number) {
  return toyRouter({
    // These tests check the events' shapes: an unattributed outcome at full weight (the default scales it by 0.1).
    feedbackLimits: { unattributedWeight: 1, ...(maxRunWeight ? { maxRunWeight } : {}) },
    ...(sink ? { feedbackSink: sink } : {}),
  });
}

describe("router.feedback", () => {
  it("records one typed event per decision with the query's alpha and beta", async () => {
    const router = makeRouter();
    const reply = await router.invoke("What is 12 + 30?");
    const d = reply.response_metadata.irtRouter as RouteDecision;
    const events = await router.feedback(d.decisionId, true);
    const item = await new ToyScorer().itemParams("What is 12 + 30?");
    expect(events).toEqual([
      {
        id: `${d.decisionId}:feedback`,
        model: "gpt-4-1106-preview", // the catalog id behind the alias "gpt-4"
        alpha: Array.from(item.alpha),
        beta: item.beta,
        y: 1,
        decisionId: d.decisionId,
        source: UNATTRIBUTED_SOURCE, // no source given: the one shared default source
        at: expect.any(Number),
      },
    ]);
    expect(router.feedbackEvents).toEqual(events);
  });

  it("credits every decision of a run by run id, with graded outcomes and weights", async () => {
    const appended: FeedbackEvent[][] = [];
    const router = makeRouter({ append: async (events) => void appended.push([...events]) });
    const config = { metadata: { irtRouterRunId: "run-1" } };
    await router.invoke("first step", config);
    await router.invoke("second step", config);
    await router.invoke("other run", { metadata: { irtRouterRunId: "run-2" } });
    const events = await router.feedback("run-1", 0.5, { weight: 0.5, attribution: { mode: "every" } });
    expect(events).toHaveLength(2);
    expect(events.every((e) => e.runId === "run-1" && e.y === 0.5 && e.weight === 0.5)).toBe(true);
    expect(appended).toEqual([events]);
    expect(router.feedbackEvents).toBeUndefined();
  });

  it("rejects unknown ids, bad outcomes and repeats with FEEDBACK errors", async () => {
    const router = makeRouter();
    const reply = await router.invoke("question");
    const id = (reply.response_metadata.irtRouter as RouteDecision).decisionId;
    await expect(router.feedback("no-such-id", true)).rejects.toMatchObject({ code: "FEEDBACK", path: "id" });
    await expect(router.feedback("", true)).rejects.toBeInstanceOf(FeedbackError);
    for (const bad of [1.5, -0.1, Number.NaN, Number.POSITIVE_INFINITY, "yes" as never]) {
      await expect(router.feedback(id, bad)).rejects.toMatchObject({ code: "FEEDBACK", path: "outcome" });
    }
    await expect(router.feedback(id, true, { weight: 0 })).rejects.toMatchObject({ path: "options.weight" });
    await expect(router.feedback(id, true, { wieght: 0.5 } as never)).rejects.toMatchObject({ path: "options.wieght" });
    await expect(router.feedback(id, true, 0.5 as never)).rejects.toMatchObject({ code: "FEEDBACK", path: "options" });
    // null options read as none (weight 1)
    expect(await router.feedback(id, false, null as never)).toHaveLength(1);
    await expect(router.feedback(id, true)).rejects.toThrow(/already has an outcome/);
  });

  it("refuses a second outcome given while the first is still being stored", async () => {
    const router = makeRouter();
    const id = ((await router.invoke("question")).response_metadata.irtRouter as RouteDecision).decisionId;
    const [first, second] = await Promise.allSettled([router.feedback(id, true), router.feedback(id, false)]);
    expect(first.status).toBe("fulfilled");
    expect(second.status).toBe("rejected");
    expect((second as PromiseRejectedResult).reason).toBeInstanceOf(FeedbackError);
    expect((second as PromiseRejectedResult).reason).toMatchObject({
      path: "id",
      message: expect.stringMatching(/already has an outcome/),
    });
    expect(router.feedbackEvents!.map((e) => e.y)).toEqual([1]);
  });

  it("releases a decision whose outcome the sink failed to store, also when a concurrent call was refused meanwhile", async () => {
    let fail = true;
    const stored: FeedbackEvent[] = [];
    const router = makeRouter({
      append: async (events) => {
        if (fail) throw new Error("disk full");
        stored.push(...events);
      },
    });
    const id = ((await router.invoke("question")).response_metadata.irtRouter as RouteDecision).decisionId;
    const [first, second] = await Promise.allSettled([router.feedback(id, true), router.feedback(id, false)]);
    expect((first as PromiseRejectedResult).reason).toMatchObject({
      code: "FEEDBACK",
      message: expect.stringMatching(/disk full/),
    });
    expect((second as PromiseRejectedResult).reason).toMatchObject({
      message: expect.stringMatching(/already has an outcome/),
    });
    fail = false;
    await router.feedback(id, false);
    expect(stored.map((e) => e.y)).toEqual([0]);
  });

  it("wraps a failing sink in a FEEDBACK error and lets the outcome be retried", async () => {
    let fail = true;
    const router = makeRouter({
      append: async () => {
        if (fail) throw new Error("disk full");
      },
    });
    const reply = await router.invoke("q");
    const id = (reply.response_metadata.irtRouter as RouteDecision).decisionId;
    await expect(router.feedback(id, true)).rejects.toThrow(/disk full/);
    fail = false;
    await expect(router.feedback(id, true)).resolves.toHaveLength(1);
  });
});

describe("router.feedback of a run: attribution over its steps", () => {
  async function threeStepRun(router: IrtRouter, runId = "run-1"): Promise<string[]> {
    const ids: string[] = [];
    for (const q of ["first step", "second step here", "third and last step"]) {
      ids.push(
        ((await router.invoke(q, { metadata: { irtRouterRunId: runId } })).response_metadata.irtRouter as RouteDecision)
          .decisionId,
      );
    }
    return ids;
  }

  it("by default spreads a run's outcome by posterior blame, tool errors as failures (best on the agent benchmark)", async () => {
    const router = makeRouter(undefined, 3); // a run-weight bound that leaves three steps of weight 1 unscaled
    const ids = await threeStepRun(router);
    expect(DEFAULT_ATTRIBUTION).toEqual({ mode: "posterior", discount: 0.7, toolErrorsAsFailures: true });
    // a success credits every step in full
    expect((await router.feedback("run-1", 1)).map((e) => [e.decisionId, e.y, e.weight])).toEqual(
      ids.map((id) => [id, 1, undefined]),
    );
    // a failure blames the steps by probabilities that sum to at most 1, as the explicit mode does
    const other = makeRouter(undefined, 3);
    await threeStepRun(other, "run-a");
    await threeStepRun(other, "run-b");
    const implicit = await other.feedback("run-a", 0);
    const explicit = await other.feedback("run-b", 0, { attribution: { mode: "posterior" } });
    expect(implicit.map((e) => e.weight)).toEqual(explicit.map((e) => e.weight));
    expect(implicit.reduce((s, e) => s + (e.weight ?? 1), 0)).toBeLessThanOrEqual(1 + 1e-12);
    // the earlier default, discounted (0.7), is one option away
    const again = await threeStepRun(router, "run-2");
    const discounted = await router.feedback("run-2", 1, { attribution: { mode: "discounted" } });
    expect(
      discounted.map((e) => [e.decisionId, e.weight === undefined ? undefined : Number(e.weight.toFixed(12))]),
    ).toEqual([
      [again[0], 0.49],
      [again[1], 0.7],
      [again[2], undefined],
    ]);
  });

  it("posterior: blames each step of a failed run by its chance of being the failure, from the learner's predictive p", async () => {
    const scorer = new ToyScorer();
    const learner = new OnlineLearner(scorer.models, { explore: "thompson", seed: 3 });
    const router = new IrtRouter({
      models: { "gpt-4": new FakeListChatModel({ responses: ["b"] }) },
      scorer,
      learner,
      feedbackLimits: { unattributedWeight: 1 },
    });
    const queries = ["first step", "second step here", "third and last step"];
    await threeStepRun(router);
    // the predictive p of each step (not the exploration draw the router ranked by), before any feedback
    const p = await Promise.all(
      queries.map(async (q) => learner.score(await scorer.itemParams(q), ["gpt-4-1106-preview"], "none")[0]!.p),
    );
    const events = await router.feedback("run-1", 0, { attribution: { mode: "posterior" } });
    const fails = 1 - p[0]! * p[1]! * p[2]!;
    const blame = p.map((pk, k) => ((1 - pk) * p.reduce((a, pj, j) => (j === k ? a : a * pj), 1)) / fails);
    expect(events.map((e) => e.y)).toEqual([0, 0, 0]);
    // bounded like a success of the same run (3 steps of weight 1 to maxRunWeight 1), not by the failure's own total
    events.forEach((e, k) => expect(e.weight).toBeCloseTo(blame[k]! / 3, 12));
    await threeStepRun(router, "run-2");
    const success = await router.feedback("run-2", 1, { attribution: { mode: "posterior" } });
    expect(success.map((e) => [e.y, Number(e.weight!.toFixed(12))])).toEqual([
      [1, 0.333333333333],
      [1, 0.333333333333],
      [1, 0.333333333333],
    ]);
  });

  it("posterior without a learner uses the scorer's p of the model that answered", async () => {
    const router = makeRouter(undefined, 3);
    const p: number[] = [];
    for (const q of ["first step", "second step here", "third and last step"]) {
      const d = (await router.invoke(q, { metadata: { irtRouterRunId: "run-1" } })).response_metadata
        .irtRouter as RouteDecision;
      p.push(d.candidates.find((c) => c.id === d.chosen)!.p);
    }
    const events = await router.feedback("run-1", 0, { attribution: { mode: "posterior" } });
    const fails = 1 - p[0]! * p[1]! * p[2]!;
    events.forEach((e, k) => {
      const others = p.reduce((a, pj, j) => (j === k ? a : a * pj), 1);
      expect(e.y).toBe(0);
      expect(e.weight).toBeCloseTo(((1 - p[k]!) * others) / fails, 12);
    });
  });

  it("discounted: step k of n gets discount^(n-1-k), times the weight given", async () => {
    const router = makeRouter(undefined, 3);
    const ids = await threeStepRun(router);
    const events = await router.feedback("run-1", 0, {
      weight: 0.5,
      attribution: { mode: "discounted", discount: 0.5 },
    });
    expect(events.map((e) => [e.decisionId, e.y, e.weight])).toEqual([
      [ids[0], 0, 0.125],
      [ids[1], 0, 0.25],
      [ids[2], 0, 0.5],
    ]);
    // without a discount, attributeRun's own default (0.7)
    const again = await threeStepRun(router, "run-2");
    const defaulted = await router.feedback("run-2", 1, { attribution: { mode: "discounted" } });
    expect(defaulted.map((e) => [e.decisionId, e.weight])).toEqual([
      [again[0], DEFAULT_ATTRIBUTION_DISCOUNT ** 2],
      [again[1], DEFAULT_ATTRIBUTION_DISCOUNT],
      [again[2], undefined],
    ]);
    expect(DEFAULT_ATTRIBUTION_DISCOUNT).toBe(0.7);
  });

  it("last: only the final step is credited, and the run's outcome is then given for every step", async () => {
    const router = makeRouter();
    const ids = await threeStepRun(router);
    const events = await router.feedback("run-1", 1, { attribution: { mode: "last" } });
    expect(events.map((e) => e.decisionId)).toEqual([ids[2]]);
    await expect(router.feedback(ids[0]!, 0)).rejects.toThrow(/already has an outcome/);
    await expect(router.feedback("run-1", 1)).rejects.toThrow(/already has an outcome/);
  });

  it("gives a step one event id whichever way its outcome arrives, the id attributeRun gives it, so it is applied once", async () => {
    const scorer = new ToyScorer();
    const learner = new OnlineLearner(scorer.models);
    const router = new IrtRouter({
      models: { "gpt-4": new FakeListChatModel({ responses: ["b"] }) },
      scorer,
      learner,
      feedbackLimits: { unattributedWeight: 1 },
    });
    const ids = await threeStepRun(router);
    const [single] = await router.feedback(ids[0]!, 1);
    expect(single!.id).toBe(stepEventId("run-1", ids[0]!));
    await expect(router.feedback("run-1", 1)).rejects.toThrow(/already has an outcome/); // one of its steps has one
    // attributeRun over the route log, as a user replaying the run would: the step already applied is a duplicate
    const replay = attributeRun({
      runId: "run-1",
      outcome: 1,
      steps: [{ decisionId: ids[0]!, model: single!.model, alpha: [...single!.alpha], beta: single!.beta, p: 0.6 }],
    });
    expect(replay.map((e) => e.id)).toEqual([single!.id]);
    expect(learner.observe(replay[0]!)).toBe("duplicate");
  });

  it("rejects attribution for a decision id and bad attribution options, naming the field", async () => {
    const router = makeRouter();
    const ids = await threeStepRun(router);
    const e1 = await rejectedWith(FeedbackError, router.feedback(ids[0]!, 1, { attribution: { mode: "last" } }));
    expect(e1.path).toBe("options.attribution");
    const e2 = await rejectedWith(
      FeedbackError,
      router.feedback("run-1", 1, { attribution: { mode: "first" as never } }),
    );
    expect(e2.path).toBe("options.attribution.mode");
    const e3 = await rejectedWith(FeedbackError, router.feedback("run-1", 1, { attribution: { discount: 0 } }));
    expect(e3.path).toBe("options.attribution.discount");
    const e4 = await rejectedWith(
      FeedbackError,
      router.feedback("run-1", 1, { attribution: { toolErrorsAsFailure: true } as never }),
    );
    expect(e4).toMatchObject({
      path: "options.attribution.toolErrorsAsFailure",
      message: expect.stringMatching(/did you mean "toolErrorsAsFailures"/),
    });
    // nothing was claimed by the refused calls
    expect(await router.feedback("run-1", 1)).toHaveLength(3);
  });

  it("a run whose events cannot be built (an infinite logged alpha) is a FeedbackError and releases its steps", async () => {
    class InfiniteScorer extends ToyScorer {
      override async itemParams(text: string | Float32Array) {
        const item = await super.itemParams(text);
        return { alpha: item.alpha.map(() => Number.POSITIVE_INFINITY), beta: item.beta }; // p = 1: routable
      }
    }
    const router = new IrtRouter({
      models: { "gpt-4": new FakeListChatModel({ responses: ["b"] }) },
      scorer: new InfiniteScorer(),
    });
    const ids = await threeStepRun(router);
    const error = await rejectedWith(FeedbackError, router.feedback("run-1", 1));
    expect(error.path).toBe("run.steps.0.alpha.0");
    // the steps were released: an outcome for one of them is refused by the router's in-memory learner for its alpha
    // (not as a repeat), again and again
    for (let i = 0; i < 2; i++) {
      const single = await rejectedWith(FeedbackError, router.feedback(ids[0]!, 1));
      expect(single.message).toMatch(/alpha\[0\] is Infinity/);
    }
    expect(router.feedbackEvents).toEqual([]);
  });
});
