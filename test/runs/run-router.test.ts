import { describe, expect, it, vi } from "vitest";
import { FeedbackError, UnknownModelError, ValidationError } from "../../src/errors.js";
import { RunRouter } from "../../src/runs/index.js";
import { MODELS, trained } from "./trained-router.js";
import { difficultyPrior, textVector } from "../../src/runs/text-prior.js";

describe("RunRouter.route", () => {
  it("chooses the most likely model at cost weight 0, and a cheaper one as the cost weight grows", () => {
    const router = trained();
    const d = router.route({ id: "new", text: "a new task about files" });
    expect(d.chosen).toBe("strong");
    expect(d.candidates.map((c) => c.modelId)).toEqual(["strong", "middle", "weak"]);
    expect(d.candidates[0]!.p).toBeGreaterThan(d.candidates[1]!.p);
    expect(d.candidates.find((c) => c.modelId === "middle")!.costRatio).toBeCloseTo(1 / 3, 9);
    expect(d.candidates.find((c) => c.modelId === "strong")!.expectedCost).toBe(3);
    expect(d.policy).toBe("run(costWeight=0, attemptsLeft=1)");
    expect(d.reason).toContain("strong has the highest p");
    expect(router.route("a new task about files", { costWeight: 2 }).chosen).toBe("weak");
  });

  it("a failure on the task raises its difficulty for every model", () => {
    const router = trained();
    const task = { id: "hard", text: "another task" };
    const before = router.route(task);
    const after = router.route(task, { outcomes: [{ modelId: "strong", outcome: 0 }] });
    expect(after.difficulty.mean).toBeGreaterThan(before.difficulty.mean);
    const p = (d: typeof before, id: string) => d.candidates.find((c) => c.modelId === id)!.p;
    expect(p(after, "middle")).toBeLessThan(p(before, "middle"));
    expect(after.excluded).toEqual(["strong"]);
    expect(after.chosen).toBe("middle");
    expect(after.reason).toContain("after 1 outcome(s) on this task");
  });

  it("a new task's difficulty prior follows feedback on similar tasks given after an earlier decision on it", () => {
    const router = trained();
    const task = { id: "probe", text: "compile the kernel module with custom flags" };
    const before = router.route(task).difficulty.mean;
    expect(router.route(task, { costWeight: 0.2 }).difficulty.mean).toBe(before); // same fit, same prior
    for (let t = 0; t < 6; t++) {
      const similar = { id: `kernel-${t}`, text: `compile the kernel module with custom flags, variant ${t}` };
      for (const m of ["strong", "middle", "weak"]) router.feedback(similar, m, false);
    }
    expect(router.route(task).difficulty.mean).toBeGreaterThan(before + 0.5);
    // The same id with another text is another text prior (the similar tasks' words are not in it).
    const other = router.route({ id: "probe", text: "write a haiku about spring rain" }).difficulty.mean;
    expect(other).toBeLessThan(router.route(task).difficulty.mean);
  });

  it("learns from feedback: a model that keeps passing overtakes the price-tier prior", () => {
    const router = new RunRouter({ models: MODELS });
    expect(router.route("first task").chosen).toBe("strong"); // the dearest is presumed the ablest before any outcome
    for (let t = 0; t < 20; t++) {
      router.feedback(`task ${t}`, "strong", false);
      router.feedback(`task ${t}`, "weak", true);
    }
    expect(router.route("next task").chosen).toBe("weak");
    expect(router.feedbackCount).toBe(40);
  });

  it("with task hints, learns which model is best on each kind of task; without, one model for all", () => {
    // strong passes "code" tasks, middle passes "math" tasks; each fails the other kind (same text pattern for both)
    const feed = (router: RunRouter, hints: boolean) => {
      for (let t = 0; t < 24; t++) {
        const kind = t % 2 === 0 ? "code" : "math";
        const task = { id: `t${t}`, text: `task number ${t}`, ...(hints && { hint: kind }) };
        router.feedback(task, "strong", kind === "code");
        router.feedback(task, "middle", kind === "math");
        router.feedback(task, "weak", false);
      }
    };
    const hinted = new RunRouter({ models: MODELS });
    feed(hinted, true);
    expect(hinted.route({ text: "a new one", hint: "code" }).chosen).toBe("strong");
    expect(hinted.route({ text: "a new one", hint: "math" }).chosen).toBe("middle");
    const p = (d: ReturnType<RunRouter["route"]>, id: string) => d.candidates.find((c) => c.modelId === id)!.p;
    const math = hinted.route({ text: "a new one", hint: "math" });
    expect(p(math, "middle") - p(math, "strong")).toBeGreaterThan(0.3);
    // an unknown hint, or none: no offset
    expect(p(hinted.route({ text: "a new one", hint: "art" }), "strong")).toBeCloseTo(
      p(hinted.route("a new one"), "strong"),
      9,
    );
    const blind = new RunRouter({ models: MODELS });
    feed(blind, false);
    const a = blind.route({ text: "a new one" });
    expect(Math.abs(p(a, "middle") - p(a, "strong"))).toBeLessThan(0.15);
    expect(() => hinted.route({ text: "x", hint: "" })).toThrow(/task\.hint/);
  });

  it("a hint whose tasks show the same outcomes as the others leaves p as it is", () => {
    const router = new RunRouter({ models: MODELS });
    for (let t = 0; t < 40; t++) {
      // the same pattern on both kinds: the hint says nothing
      const task = { id: `t${t}`, text: `task number ${t}`, hint: t < 20 ? "code" : "math" };
      router.feedback(task, "strong", t % 4 !== 0);
      router.feedback(task, "middle", t % 4 === 1);
      router.feedback(task, "weak", false);
    }
    const p = (hint: string) => router.route({ text: "new", hint }).candidates.find((c) => c.modelId === "strong")!.p;
    expect(Math.abs(p("code") - p("math"))).toBeLessThan(0.05);
  });

  it("a free model (run cost 0) starts where the cheapest priced model does, not at log(0)", () => {
    const router = new RunRouter({ models: { local: { runCost: 0 }, small: { runCost: 0.05 }, big: { runCost: 2 } } });
    const d = router.route({ id: "a", text: "Fix the failing test" }, { costWeight: 0.5 });
    const p = (id: string) => d.candidates.find((c) => c.modelId === id)!.p;
    expect(p("local")).toBeCloseTo(p("small"), 12); // same price-tier prior (it was 0.001 against 0.5)
    expect(p("big")).toBeGreaterThan(p("small"));
    // At cost weight 0.5 (big: 0.77 - 0.5 x 1) the free model, as likely as the cheapest and costing nothing, is chosen.
    expect(d.chosen).toBe("local");
    expect(d.candidates.find((c) => c.modelId === "local")!.costRatio).toBe(0);
  });

  it("prices in units of the most able priced model, also when a free model is rated most able", () => {
    const router = new RunRouter({ models: { local: { runCost: 0 }, small: { runCost: 0.5 }, big: { runCost: 2 } } });
    for (let i = 0; i < 20; i++) {
      const task = { id: `t${i}`, text: `Refactor module ${i} of the service` };
      router.feedback(task, "local", true);
      router.feedback(task, "big", i % 2 === 0);
      router.feedback(task, "small", i % 4 === 0);
    }
    const d = router.route({ id: "new", text: "Refactor the service" }, { costWeight: 0.1 });
    expect(d.candidates[0]!.modelId).toBe("local"); // rated most able
    // The unit is big's run cost (the most able priced model), so the ratios are finite: big 1, small 0.25.
    expect(d.candidates.find((c) => c.modelId === "big")!.costRatio).toBe(1);
    expect(d.candidates.find((c) => c.modelId === "small")!.costRatio).toBe(0.25);
    // With no priced model every cost is 0 and the router still decides.
    const free = new RunRouter({ models: { a: { runCost: 0 }, b: { runCost: 0 } } });
    const e = free.route("Fix the build", { costWeight: 0.5 });
    expect(e.candidates.map((c) => c.costRatio)).toEqual([0, 0]);
    expect(e.candidates.every((c) => Number.isFinite(c.p))).toBe(true);
  });

  it("validates its options, tasks, models and outcomes, naming the field", () => {
    expect(() => new RunRouter({ models: {} })).toThrow(ValidationError);
    expect(() => new RunRouter({ models: { a: {} } })).toThrow(/options\.models\.a.*price or a runCost/);
    expect(() => new RunRouter({ models: MODELS, costWeight: -1 })).toThrow(/options\.costWeight/);
    const router = new RunRouter({ models: { a: { price: { inputPer1M: 1, outputPer1M: 10 } } } });
    expect(router.runCost("a")).toBeCloseTo(0.4 + 0.4, 12); // 400k in + 40k out
    expect(() => router.route("")).toThrow(ValidationError);
    expect(() => router.feedback("t", "nope", true)).toThrow(UnknownModelError);
    expect(() => router.feedback("t", "a", 1.5)).toThrow(FeedbackError);
    expect(() => router.route("t", { costWieght: 1 } as never)).toThrow(/did you mean "costWeight"/);
  });
});

describe("RunRouter.escalate", () => {
  it("stops at the first success and feeds back every attempt", async () => {
    const router = trained();
    const feedback = vi.spyOn(router, "feedback");
    const run = vi.fn(async (modelId: string, attempt: number) => ({ modelId, attempt }));
    const result = await router.escalate("fix it", run, (r) => r.attempt === 2, { maxAttempts: 3 });
    expect(result.passed).toBe(true);
    expect(result.stopReason).toBe("passed");
    expect(result.attempts).toHaveLength(2);
    expect(run).toHaveBeenCalledTimes(2);
    expect(feedback.mock.calls.map((c) => [c[1], c[2]])).toEqual([
      [result.attempts[0]!.modelId, 0],
      [result.attempts[1]!.modelId, 1],
    ]);
    expect(result.attempts[0]!.modelId).not.toBe(result.attempts[1]!.modelId);
    expect(result.cost).toBeCloseTo(
      result.attempts.reduce((s, a) => s + a.cost, 0),
      12,
    );
  });

  it("respects max attempts and never reruns a failed model unless allowed", async () => {
    const router = trained();
    const failing = await router.escalate(
      "t1",
      async (m) => m,
      () => false,
      { maxAttempts: 3 },
    );
    expect(failing.stopReason).toBe("max-attempts");
    expect(new Set(failing.attempts.map((a) => a.modelId)).size).toBe(3);
    const five = await router.escalate(
      "t2",
      async (m) => m,
      () => false,
      { maxAttempts: 5 },
    );
    expect(five.stopReason).toBe("no-model");
    expect(five.attempts).toHaveLength(3);
    const retry = await router.escalate(
      "t3",
      async (m) => m,
      () => false,
      { maxAttempts: 5, allowRetry: true },
    );
    expect(retry.attempts).toHaveLength(5);
    expect(new Set(retry.attempts.map((a) => a.modelId)).size).toBeLessThan(5);
  });

  it("respects the cost cap: no attempt that would pass it starts", async () => {
    const router = trained();
    const capped = await router.escalate(
      "t",
      async (m) => m,
      () => false,
      { maxAttempts: 3, costCap: 1.2 },
    );
    expect(capped.cost).toBeLessThanOrEqual(1.2);
    expect(capped.attempts.map((a) => a.modelId)).not.toContain("strong");
    expect(capped.attempts.length).toBeGreaterThan(0);
    const none = await router.escalate(
      "u",
      async (m) => m,
      () => false,
      { costCap: 0.05 },
    );
    expect(none.attempts).toHaveLength(0);
    expect(none.stopReason).toBe("no-model");
  });

  it("with learn: false feeds nothing back but still knows what failed", async () => {
    const router = trained();
    const before = router.feedbackCount;
    const result = await router.escalate(
      "t",
      async (m) => m,
      () => false,
      { learn: false, maxAttempts: 2 },
    );
    expect(router.feedbackCount).toBe(before);
    expect(result.attempts[1]!.decision.excluded).toEqual([result.attempts[0]!.modelId]);
    expect(result.attempts[1]!.decision.reason).toContain("after 1 outcome(s)");
  });

  it("rejects a check that is not a pass/fail or grade", async () => {
    const router = trained();
    await expect(
      router.escalate(
        "t",
        async (m) => m,
        () => 2,
      ),
    ).rejects.toThrow(FeedbackError);
  });
});

describe("RunRouter difficulty prior", () => {
  it("does not depend on the order outcomes came in when past tasks tie in similarity", () => {
    const models = { big: { runCost: 2 }, small: { runCost: 0.2 } };
    // 14 past tasks with the same text (a tie at similarity 1) and different outcomes: 10 neighbours of 14 are taken
    const outcomes = Array.from({ length: 14 }, (_, t) => ({ id: `same${t}`, passed: t % 3 === 0 }));
    const feed = (order: typeof outcomes) => {
      const router = new RunRouter({ models, tracing: false });
      for (const o of order) router.feedback({ id: o.id, text: "Rename the files in the folder." }, "small", o.passed);
      return router.route({ id: "new", text: "Rename the files in the folder." });
    };
    const a = feed(outcomes);
    const b = feed([...outcomes].reverse());
    expect(b.difficulty.mean).toBeCloseTo(a.difficulty.mean, 9);
    expect(b.candidates[0]!.p).toBeCloseTo(a.candidates[0]!.p, 9);
  });
});

describe("difficultyPrior with exact ties at the k-th place", () => {
  it("averages every tied past task: 10 hard and 10 easy of one text give their mean (k = 10 took the easy half)", () => {
    const vector = textVector("Make the failing test in tests/test_io.py pass.");
    const known = Array.from({ length: 20 }, (_, i) => ({ vector, difficulty: i % 2 === 0 ? 2 : -2 }));
    expect(difficultyPrior(vector, known, 10, 1)).toBeCloseTo(0, 9);
    // no tie at the edge: the k nearest, as before
    const near = [{ vector, difficulty: 1 }, ...known.map((t) => ({ ...t, vector: textVector("another text") }))];
    expect(difficultyPrior(vector, near, 1, 1)).toBeCloseTo(1, 9);
  });
});
