/**
 * Folding (`maxOutcomes`) at its edges: a task still in play, a first sync of a long log, and a router restarted
 * from a prior that holds a log's outcomes (run-checkpoint.test.ts has the rest). Each case failed before its fix.
 */
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { RunRouter, type RunPrior, type SharedRunOutcome } from "../../src/runs/index.js";
import { MemoryRunOutcomeLog } from "../../adapters/stores/run-outcome-memory.js";
import { MODELS } from "./trained-router.js";

const task = (t: number) => ({
  id: `t${t}`,
  text: `task ${t} ${["repair the build", "train a model", "recover a file"][t % 3]}`,
});

function feed(router: RunRouter, from: number, n: number): void {
  for (let t = from; t < from + n; t++) {
    router.feedback(task(t), "strong", t % 10 !== 0);
    router.feedback(task(t), "middle", t % 2 === 0);
    router.feedback(task(t), "weak", t % 10 === 0);
  }
}

/** What a router keeps as outcomes (not part of its API: read for the bound). */
const kept = (router: RunRouter) => (router as unknown as { observations: unknown[] }).observations.length;

describe("folding edge cases", () => {
  it("an escalation's failed attempt still counts at its next decision when a fold comes between", async () => {
    const bounded = new RunRouter({ models: MODELS, maxOutcomes: 100 });
    const full = new RunRouter({ models: MODELS, maxOutcomes: 1e7 });
    const recurring = { id: "nightly", text: "repair the nightly build of the service" };
    for (const r of [bounded, full]) {
      r.feedback(recurring, "strong", true); // seen once, long ago: its first outcome is the oldest
      feed(r, 0, 33); // 100 outcomes in all: the failure of the first attempt makes 101, and a fold
    }
    const second = async (r: RunRouter) => {
      const result = await r.escalate(
        recurring,
        async (modelId, attempt) => ({ modelId, attempt }),
        (out) => out.attempt > 1, // the first attempt fails
        { maxAttempts: 2, costWeight: 0 },
      );
      return result.attempts[1]!.decision;
    };
    const b = await second(bounded);
    const f = await second(full);
    // folded by first outcome, the task went whole, the failure just fed back with it
    expect(b.reason).toContain("after 2 outcome(s) on this task");
    // near the unbounded router's (0.07 apart here, the fold moved the fit a little; 0.36 when the failure was lost)
    expect(Math.abs(b.difficulty.mean - f.difficulty.mean)).toBeLessThan(0.1);
  });

  it("a first sync of a long log keeps to the bound, folding between pages", async () => {
    const log = new MemoryRunOutcomeLog();
    const others: SharedRunOutcome[] = Array.from({ length: 20_000 }, (_, i) => ({
      id: `o${i}`,
      task: `x${Math.floor(i / 3)}`,
      vector: [[i % 997, 1]],
      model: ["strong", "middle", "weak"][i % 3]!,
      outcome: i % 2,
      weight: 1,
    }));
    for (let i = 0; i < others.length; i += 500) await log.append(others.slice(i, i + 500));
    const router = new RunRouter({ models: MODELS, maxOutcomes: 1000 });
    expect((await router.sync(log)).pulled).toBe(20_000);
    expect(kept(router)).toBeLessThanOrEqual(1000); // it held all 20,000 until its next decision
    expect(router.feedbackCount).toBe(20_000);
  });
});

describe("a prior that holds a log's outcomes", () => {
  it("is marked and carries its checkpoint: a router started from it resumes; one without a checkpoint is refused", async () => {
    const log = new MemoryRunOutcomeLog();
    const a = new RunRouter({ models: MODELS });
    await a.sync(log);
    feed(a, 0, 20);
    expect((await a.sync(log)).pushed).toBe(60);
    const prior = a.toPrior();
    expect(prior.shared).toBe(true);
    expect(prior.sync?.cursor).toBeDefined();
    // it reads on from where a stopped: nothing new, nothing counted twice
    const resumed = new RunRouter({ models: MODELS, prior });
    expect(await resumed.sync(log)).toMatchObject({ pushed: 0, pulled: 0, duplicates: 0 });
    // a shared prior without its checkpoint (saved by an earlier version) does not say which outcomes it holds
    const { sync: _, ...older } = prior;
    const restarted = new RunRouter({ models: MODELS, prior: older });
    const error = await restarted.sync(log).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe("options.prior.shared");
    expect(restarted.feedbackCount).toBe(0);
    // its own prior stays marked, though it never synced, and has no checkpoint
    expect(restarted.toPrior().shared).toBe(true);
    expect(restarted.toPrior().sync).toBeUndefined();
    // a replica started without the prior learns the same outcomes from the log
    const fresh = new RunRouter({ models: MODELS });
    expect((await fresh.sync(log)).pulled).toBe(60);
  });

  it("is not marked when the router never shared, and a router started from it syncs", async () => {
    const a = new RunRouter({ models: MODELS });
    feed(a, 0, 10);
    const prior = a.toPrior();
    expect(prior.shared).toBeUndefined();
    expect(Object.values(prior.sync!.writers)).toEqual([{ next: 30 }]); // a's outcomes, numbered (no log has them)
    const b = new RunRouter({ models: MODELS, prior });
    await expect(b.sync(new MemoryRunOutcomeLog())).resolves.toMatchObject({ pushed: 0, pulled: 0 });
  });
});

describe("folding edge cases, found on a second read", () => {
  const two = { big: { runCost: 2 }, small: { runCost: 0.2 } };

  it("keeps an escalation's failures when a sync pulls many outcomes during one of its runs", async () => {
    const models = { big: { runCost: 2 }, mid: { runCost: 0.6 }, small: { runCost: 0.2 } };
    const log = new MemoryRunOutcomeLog();
    const other = new RunRouter({ models, tracing: false });
    const otherTask = (t: number) => ({ id: `o${t}`, text: `other task ${t} about builds` });
    for (let t = 0; t < 60; t++) other.feedback(otherTask(t), "mid", t % 2 === 0);
    await other.sync(log);
    const a = new RunRouter({ models, maxOutcomes: 100, tracing: false });
    await a.sync(log);
    const result = await a.escalate(
      { id: "esc", text: "Recover the lost commit in this repository." },
      async (modelId, attempt) => {
        if (attempt === 2) {
          // meanwhile the other replica learnt more, and this one syncs on its timer: a fold
          for (let t = 60; t < 120; t++) other.feedback(otherTask(t), "mid", t % 2 === 0);
          await other.sync(log);
          await a.sync(log);
        }
        return modelId;
      },
      async () => false,
      { maxAttempts: 3 },
    );
    expect(result.attempts).toHaveLength(3);
    expect(result.attempts[2]!.decision.reason).toContain("after 2 outcome(s) on this task"); // was 1
  });

  it("a folded task routed again without its hint keeps its hint's offsets", () => {
    const r = new RunRouter({ models: two, maxOutcomes: 100, tracing: false });
    for (let t = 0; t < 40; t++) r.feedback({ id: `g${t}`, text: `git task ${t}`, hint: "git" }, "small", t % 5 !== 0);
    r.feedback({ id: "mine", text: "recover the lost commit", hint: "git" }, "big", true);
    for (let t = 0; t < 100; t++) r.feedback({ id: `o${t}`, text: `other task ${t}` }, "small", t % 5 === 0); // folds
    const after = r.route({ id: "mine", text: "recover the lost commit" });
    const withHint = r.route({ id: "mine", text: "recover the lost commit", hint: "git" });
    expect(after.reason).not.toContain("outcome(s)"); // folded
    const p = (d: typeof after) => d.candidates.find((c) => c.modelId === "small")!.p;
    expect(p(after)).toBeCloseTo(p(withHint), 9);
  });

  it("keeps at most maxOutcomes past tasks across restarts from its own prior (each start's were kept)", () => {
    let prior: RunPrior | undefined;
    for (let restart = 0; restart < 5; restart++) {
      const r = new RunRouter({ models: two, maxOutcomes: 100, tracing: false, ...(prior && { prior }) });
      for (let t = 0; t < 60; t++) {
        r.feedback({ id: `r${restart}t${t}`, text: `task ${restart} ${t} of repo` }, "small", t % 2 === 0);
      }
      prior = r.toPrior();
    }
    // at most 100 from earlier starts, and the last start's 60 outcomes, unfolded
    expect(prior!.tasks.length).toBeLessThanOrEqual(160);
    expect(new RunRouter({ models: two, maxOutcomes: 100, prior }).toPrior().tasks.length).toBeLessThanOrEqual(100);
  });

  it("a sync refused for a bad log does not mark the router's prior shared", async () => {
    const a = new RunRouter({ models: two, tracing: false });
    a.feedback({ id: "t", text: "task about git" }, "small", false);
    await expect(a.sync({} as never)).rejects.toBeInstanceOf(ValidationError);
    expect(a.toPrior().shared).toBeUndefined();
  });
});
