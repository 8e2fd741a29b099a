/**
 * The run-level router under inputs a careless or hostile caller may give: many models and attempts, values at the
 * edge of what the schemas accept, callbacks that are no functions. Each case failed before its fix.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { UnknownModelError, ValidationError } from "../../src/errors.js";
import { RunRouter, SpendPacer, type RunPrior, type RunFunction } from "../../src/runs/index.js";
import { PLAN_DEPTH, PLAN_WORK, planHorizon } from "../../src/runs/plan.js";

/** `n` models with run costs 0.1, 0.2, ...: before any outcome each is on the (p, cost) frontier. */
function models(n: number): Record<string, { runCost: number }> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`m${i}`, { runCost: 0.1 * (i + 1) }]));
}

describe("the escalation plan is bounded", () => {
  it("looks ahead over every attempt while the tree of plans is small, as before", () => {
    expect(planHorizon(3, 5, false)).toBe(5);
    expect(planHorizon(3, 5, true)).toBe(5);
    expect(planHorizon(32, 3, false)).toBe(3); // Terminal-Bench's 32 models, the default 3 attempts
  });

  it("looks ahead fewer attempts when the tree would pass the work bound, and never deeper than the depth bound", () => {
    const tree = (width: number, h: number, retry: boolean) => {
      let nodes = 0;
      let level = 1;
      for (let l = 0; l < h; l++) nodes += level *= retry ? width : width - l;
      return nodes * width;
    };
    for (const [width, attempts, retry] of [
      [30, 5, false],
      [30, 30, true],
      [200, 3, false],
    ] as const) {
      const h = planHorizon(width, attempts, retry);
      expect(h).toBeGreaterThanOrEqual(1);
      expect(h).toBeLessThan(attempts);
      if (h > 1) expect(tree(width, h, retry)).toBeLessThanOrEqual(PLAN_WORK);
    }
    expect(planHorizon(1, 1e9, true)).toBe(PLAN_DEPTH);
  });

  it("a decision with allowRetry and a huge attemptsLeft returns (it overflowed the stack)", () => {
    const router = new RunRouter({ models: { only: { runCost: 1 } } });
    expect(router.route("task", { attemptsLeft: 1e6, allowRetry: true }).chosen).toBe("only");
  });

  it("an escalation over 30 models with 8 attempts picks its first model (it ran for minutes)", async () => {
    const router = new RunRouter({ models: models(30) });
    const result = await router.escalate(
      "task",
      async (m) => m,
      () => true,
      { maxAttempts: 8 },
    );
    expect(result.passed).toBe(true);
    expect(result.attempts).toHaveLength(1);
  });
});

describe("values that made every p NaN are refused, naming the field", () => {
  const M = { big: { runCost: 2 }, small: { runCost: 0.2 } };
  const finite = (router: RunRouter) => {
    router.feedback({ id: "a", text: "fix the git repo", hint: "sys" }, "big", 0);
    const d = router.route({ text: "fix the git repo", hint: "sys" });
    return d.candidates.every((c) => Number.isFinite(c.p)) && Number.isFinite(d.difficulty.mean);
  };
  const refused = (make: () => unknown, path: string) => {
    expect(make).toThrow(ValidationError);
    expect(make).toThrow(expect.objectContaining({ path }));
  };

  it("priors: sds, price slope and tier strength out of their bounds", () => {
    refused(() => new RunRouter({ models: M, priors: { abilitySd: 1e308 } }), "options.priors.abilitySd");
    refused(() => new RunRouter({ models: M, priors: { difficultySd: 1e-320 } }), "options.priors.difficultySd");
    refused(() => new RunRouter({ models: M, priors: { hintSd: 1e-320 } }), "options.priors.hintSd");
    refused(() => new RunRouter({ models: M, priors: { priceSlope: -1e308 } }), "options.priors.priceSlope");
    refused(() => new RunRouter({ models: M, priors: { tierStrength: 1e308 } }), "options.priors.tierStrength");
    // at the bounds every p is a number
    for (const priors of [
      { abilitySd: 1e-4, difficultySd: 1e-4, hintSd: 1e-4, priceSlope: -1000 },
      { abilitySd: 1e4, difficultySd: 1e4, hintSd: 1e4, priceSlope: 1000, tierStrength: 1e6 },
    ]) {
      expect(finite(new RunRouter({ models: M, priors }))).toBe(true);
    }
  });

  it("a run prior with difficulties or vector values past their bounds", () => {
    const source = new RunRouter({ models: M });
    source.feedback({ id: "a", text: "fix the git repo" }, "big", 1);
    source.feedback({ id: "b", text: "compile the kernel" }, "small", 0);
    const prior = source.toPrior();
    const edited = (edit: (p: { -readonly [K in keyof RunPrior]: any }) => void): RunPrior => {
      const p = structuredClone(prior) as { -readonly [K in keyof RunPrior]: any };
      edit(p);
      return p as RunPrior;
    };
    const huge = edited((p) => p.tasks.forEach((t: { difficulty: number }) => (t.difficulty = 1e308)));
    refused(() => new RunRouter({ models: M, prior: huge }), "options.prior.tasks.0.difficulty");
    const vector = edited((p) => (p.tasks[0].vector[0][1] = 1e308));
    refused(() => new RunRouter({ models: M, prior: vector }), "options.prior.tasks.0.vector.0.1");
    const index = edited((p) => (p.tasks[0].vector[0][0] = 1 << 14));
    refused(() => new RunRouter({ models: M, prior: index }), "options.prior.tasks.0.vector.0.0");
    const mean = edited((p) => (p.models.big.ability.mean = -1e308));
    refused(() => new RunRouter({ models: M, prior: mean }), "options.prior.models.big.ability.mean");
    expect(finite(new RunRouter({ models: M, prior: edited((p) => (p.tasks[0].difficulty = 1000)) }))).toBe(true);
  });

  it("a price whose run cost overflows", () => {
    refused(
      () =>
        new RunRouter({ models: { dear: { price: { inputPer1M: 1e308, outputPer1M: 1 } }, cheap: { runCost: 1 } } }),
      "options.models.dear.price",
    );
  });
});

describe('"__proto__" as a model id or a hint', () => {
  it("is refused as a model id (zod dropped it: one model fewer without a word)", () => {
    const models = JSON.parse('{"__proto__": {"runCost": 1}, "other": {"runCost": 2}}') as Record<string, object>;
    expect(() => new RunRouter({ models })).toThrow(expect.objectContaining({ path: "options.models" }));
  });

  it("is refused as a hint (toPrior() lost its offsets: the key set the object's prototype)", () => {
    const router = new RunRouter({ models: { big: { runCost: 2 }, small: { runCost: 0.2 } } });
    const task = { id: "t", text: "a task", hint: "__proto__" };
    expect(() => router.feedback(task, "big", true)).toThrow(ValidationError);
    expect(() => router.route(task)).toThrow(expect.objectContaining({ path: "task.hint" }));
    // "constructor" is an ordinary key: its offsets survive toPrior()
    for (let t = 0; t < 6; t++) router.feedback({ id: `c${t}`, text: "a task", hint: "constructor" }, "big", true);
    expect(Object.keys(router.toPrior().hintOffsets.big!)).toEqual(["constructor"]);
  });
});

describe("escalate's arguments", () => {
  const router = () => new RunRouter({ models: { big: { runCost: 2 }, small: { runCost: 0.2 } } });

  it("a run or check that is no function is a ValidationError naming it, and the pacer bills nothing", async () => {
    const pacer = new SpendPacer({ target: 1 });
    const notRun = "agent" as unknown as RunFunction<string>;
    await expect(router().escalate("t", notRun, () => true, { pacer })).rejects.toMatchObject({ path: "run" });
    await expect(router().escalate("t", async (m) => m, undefined as never, { pacer })).rejects.toMatchObject({
      path: "check",
    });
    expect(pacer.taskCount).toBe(0); // it recorded a run that never started
  });

  it("a bad task rejects the promise, as bad options do, instead of throwing synchronously", async () => {
    let pending: Promise<unknown> | undefined;
    expect(() => {
      pending = router().escalate(
        "",
        async (m) => m,
        () => true,
      );
    }).not.toThrow();
    await expect(pending).rejects.toBeInstanceOf(ValidationError);
  });
});

describe("toPrior()", () => {
  it("gives no ability to a model without any outcome (it was saved as if measured)", () => {
    const models = { big: { runCost: 2 }, small: { runCost: 0.2 }, unseen: { runCost: 1 } };
    const router = new RunRouter({ models });
    for (let t = 0; t < 8; t++) {
      router.feedback({ id: `t${t}`, text: `task ${t}` }, "big", t % 2 === 0);
      router.feedback({ id: `t${t}`, text: `task ${t}` }, "small", false);
    }
    const prior = router.toPrior();
    expect(Object.keys(prior.models).sort()).toEqual(["big", "small"]);
    // a router started from it keeps the measured models, and from it again nothing is lost
    const restarted = new RunRouter({ models, prior });
    expect(Object.keys(restarted.toPrior().models).sort()).toEqual(["big", "small"]);
    expect(restarted.toPrior().models.big!.ability.mean).toBeCloseTo(prior.models.big!.ability.mean, 9);
  });

  it("is the same after restarts without new outcomes (each save and load added 0.05 to every variance)", () => {
    const models = { big: { runCost: 2 }, small: { runCost: 0.2 } };
    const router = new RunRouter({ models });
    for (let t = 0; t < 8; t++) router.feedback({ id: `t${t}`, text: `task ${t}` }, "big", t % 3 !== 0);
    const first = router.toPrior();
    let prior = first;
    for (let k = 0; k < 20; k++) prior = new RunRouter({ models, prior }).toPrior();
    expect(prior.models.big!.ability.variance).toBeCloseTo(first.models.big!.ability.variance, 9);
    expect(prior.models.big!.ability.mean).toBeCloseTo(first.models.big!.ability.mean, 9);
  });

  it("keeps what new outcomes add after a restart: the variance shrinks, not grows", () => {
    const models = { big: { runCost: 2 }, small: { runCost: 0.2 } };
    const router = new RunRouter({ models });
    for (let t = 0; t < 8; t++) router.feedback({ id: `t${t}`, text: `task ${t}` }, "big", t % 3 !== 0);
    const first = router.toPrior();
    const restarted = new RunRouter({ models, prior: first });
    for (let t = 8; t < 12; t++) restarted.feedback({ id: `t${t}`, text: `task ${t}` }, "big", true);
    const next = restarted.toPrior().models.big!.ability;
    expect(next.variance).toBeLessThan(first.models.big!.ability.variance);
    expect(next.mean).toBeGreaterThan(first.models.big!.ability.mean);
  });
});

describe("memory", () => {
  it("routing many long texts without feedback keeps none of them (2000 x 108 KB kept 217 MB)", () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const router = new RunRouter({ models: { big: { runCost: 2 }, small: { runCost: 0.2 } } });
    router.feedback("a first task", "big", true);
    const text = "lorem ipsum dolor sit amet ".repeat(4000);
    router.route({ id: "warm", text });
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 2000; i++) router.route({ id: `t${i}`, text: text + i });
    gc();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(50e6);
  });
});

describe("route's exclude", () => {
  it("a model id the router does not know is an UnknownModelError naming the entry (a typo excluded nothing)", () => {
    const router = new RunRouter({ models: { big: { runCost: 2 }, small: { runCost: 0.2 } } });
    expect(router.route("task").chosen).toBe("big");
    const typo = () => router.route("task", { exclude: ["bgi"] });
    expect(typo).toThrow(UnknownModelError);
    expect(typo).toThrow(expect.objectContaining({ path: "options.exclude.0" }));
    expect(router.route("task", { exclude: ["big"] }).chosen).toBe("small");
  });
});

describe("toPrior() of a router with fewer models than its prior", () => {
  it("saves the prior's other models and their hint offsets as they were (they were dropped)", () => {
    const all = { big: { runCost: 2 }, small: { runCost: 0.2 }, retired: { runCost: 1 } };
    const first = new RunRouter({ models: all });
    for (let t = 0; t < 6; t++) {
      const task = { id: `t${t}`, text: `task ${t}`, hint: "files" };
      for (const m of Object.keys(all)) first.feedback(task, m, t % 2 === 0);
    }
    const prior = first.toPrior();
    const { retired: _gone, ...current } = all;
    const fewer = new RunRouter({ models: current, prior, maxOutcomes: 100 });
    for (let t = 0; t < 120; t++) fewer.feedback({ id: `n${t}`, text: `new ${t}` }, "big", true); // folds, too
    const again = fewer.toPrior();
    expect(again.models.retired).toEqual(prior.models.retired);
    expect(again.hintOffsets.retired).toEqual(prior.hintOffsets.retired);
    // and a router with every model, started from it, has the retired model's ability back
    expect(new RunRouter({ models: all, prior: again }).toPrior().models.retired!.ability.mean).toBeCloseTo(
      prior.models.retired!.ability.mean,
      9,
    );
  });
});
