import { describe, expect, it } from "vitest";
import { FeedbackError, IrtRouterError, ValidationError } from "../../src/errors.js";
import {
  calibrateModel,
  OnlineLearner,
  probeBankFrom,
  type FeedbackEvent,
  type LearnerState,
} from "../../src/learning/index.js";
const MAX_ITEM_PARAMETER = 1e6;
const WIDE = { itemBounds: { alphaNorm: MAX_ITEM_PARAMETER, beta: MAX_ITEM_PARAMETER } } as const;
import { AbilityPosterior } from "../../src/learning/posterior.js";
import { rejectedWith, thrownBy } from "../errors.js";

const known = [
  { id: "a", ability: [0.5, -0.2, 0.1, 0.3] },
  { id: "b", ability: [-0.4, 0.3, 0.2, -0.1] },
  { id: "c", ability: [0.1, 0.1, -0.3, 0.2] },
];
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function ev(i: number, patch: Partial<FeedbackEvent> = {}): FeedbackEvent {
  return {
    id: `e${i}`,
    model: "a",
    alpha: [Math.sin(i), Math.cos(i), 0.3, -0.2],
    beta: 0.1 * (i % 5) - 0.2,
    y: i % 3 === 0 ? 0 : 1,
    at: 1_700_000_000_000 + i * 1000,
    ...patch,
  };
}

function expectSamePosterior(x: AbilityPosterior, y: AbilityPosterior, tol: number): void {
  for (let k = 0; k < x.mean.length; k++) expect(Math.abs(x.mean[k]! - y.mean[k]!)).toBeLessThan(tol);
  for (let k = 0; k < x.covariance.length; k++) expect(Math.abs(x.covariance[k]! - y.covariance[k]!)).toBeLessThan(tol);
}

describe("forgetting underflow", () => {
  it("a decay factor that underflows to 0 decays the data part fully to the prior and the event applies", () => {
    const live = new OnlineLearner(known, { forgetting: { halfLifeMs: HOUR } });
    for (let i = 0; i < 5; i++) expect(live.observe(ev(i, { at: i }))).toBe("applied");
    // 46 days = 1104 half-lives: 2^-1104 rounds to 0.
    const late = ev(10, { at: 46 * DAY });
    expect(live.observe(late)).toBe("applied");
    // The exact limit: the prior plus this one event, as in a learner that never saw the earlier ones.
    const fresh = new OnlineLearner(known, { forgetting: { halfLifeMs: HOUR } });
    fresh.observe(late);
    expectSamePosterior(live.posterior("a"), fresh.posterior("a"), 1e-12);
    expect(live.posterior("a").evidence).toBe(1);
    // Later events keep working, and the saved state is a usable one.
    expect(live.observe(ev(11, { at: 46 * DAY + 1 }))).toBe("applied");
    const state = live.exportState();
    expect(state.models.a!.pendingDecay).toBeGreaterThan(0);
    const restored = OnlineLearner.fromState(JSON.parse(JSON.stringify(state)), { forgetting: { halfLifeMs: HOUR } });
    const next = ev(12, { at: 47 * DAY });
    expect(restored.observe(next)).toBe("applied");
    expect(live.observe(next)).toBe("applied");
    expectSamePosterior(restored.posterior("a"), live.posterior("a"), 1e-9);
  });

  it("halfLifeEvents 1e-4 works the same way: every event starts from the prior", () => {
    const l = new OnlineLearner(known, { forgetting: { halfLifeEvents: 1e-4 } });
    for (let i = 0; i < 4; i++) expect(l.observe(ev(i))).toBe("applied");
    const fresh = new OnlineLearner(known);
    fresh.observe(ev(3));
    expectSamePosterior(l.posterior("a"), fresh.posterior("a"), 1e-12);
  });

  it("a state saved with pendingDecay 0 (by the old bug) restores and applies the full decay", () => {
    const l = new OnlineLearner(known, { forgetting: { halfLifeEvents: 50 } });
    l.observe(ev(1));
    const state = JSON.parse(JSON.stringify(l.exportState())) as LearnerState;
    (state.models.a as { pendingDecay: number }).pendingDecay = 0;
    const restored = OnlineLearner.fromState(state, { forgetting: { halfLifeEvents: 50 } });
    expect(restored.observe(ev(2))).toBe("applied");
    const fresh = new OnlineLearner(known);
    fresh.observe(ev(2));
    expectSamePosterior(restored.posterior("a"), fresh.posterior("a"), 1e-12);
  });

  it("an event whose update is refused after a due decay leaves the posterior, clock and memory as they were", () => {
    const opts = { forgetting: { halfLifeMs: HOUR }, ...WIDE } as const;
    const base = new OnlineLearner(known, opts);
    base.observe(ev(1, { at: 0 }));
    const state = JSON.parse(JSON.stringify(base.exportState())) as LearnerState;
    // A posterior so wide (variance ~1e304) that Sigma alpha overflows for a large alpha.
    const p = state.models.a!.posterior as { priorPrecision: number[]; dataPrecision: number[]; dataEta: number[] };
    p.priorPrecision = p.priorPrecision.map((_, k) => (k % 5 === 0 ? 1e-305 : 0));
    p.dataPrecision = p.dataPrecision.map((_, k) => (k % 5 === 0 ? 1e-304 : 0));
    p.dataEta = p.dataEta.map(() => 1e-310);
    const l = OnlineLearner.fromState(state, opts);
    const before = JSON.stringify(l.exportState());
    const err = thrownBy(FeedbackError, () =>
      l.observe(ev(2, { at: 10 * HOUR, alpha: [MAX_ITEM_PARAMETER, 0, 0, 0] })),
    );
    expect(err).toBeInstanceOf(FeedbackError);
    expect(err.path).toBe("event");
    expect(err.message).toMatch(/"e2".*non-finite.*not applied/);
    expect(JSON.stringify(l.exportState())).toBe(before);
    expect(l.hasSeen("e2")).toBe(false);
    expect(Array.from(l.posterior("a").mean).every(Number.isFinite)).toBe(true);
  });
});

describe("item-parameter bound and non-finite guard", () => {
  it("rejects alpha or beta beyond the item bounds given with the field path; the bound itself is accepted", () => {
    const l = new OnlineLearner(known, WIDE);
    const mean = Array.from(l.posterior("a").mean);
    for (const [patch, path] of [
      [{ alpha: [0.1, 0.2, 1e200, 0.4] }, "event.alpha"],
      [{ alpha: [-1e7, 0, 0, 0] }, "event.alpha"],
      [{ beta: 1e308 }, "event.beta"],
      [{ beta: -2e6 }, "event.beta"],
    ] as const) {
      const err = thrownBy(FeedbackError, () => l.observe(ev(1, patch as Partial<FeedbackEvent>)));
      expect(err).toBeInstanceOf(FeedbackError);
      expect(err.path).toBe(path);
    }
    expect(Array.from(l.posterior("a").mean)).toEqual(mean);
    expect(l.observe(ev(2, { alpha: [MAX_ITEM_PARAMETER, 0, 0, 0], beta: -MAX_ITEM_PARAMETER }))).toBe("applied");
    expect(Array.from(l.posterior("a").mean).every(Number.isFinite)).toBe(true);
  });

  it("the posterior refuses an update with non-finite intermediates and stays unchanged", () => {
    for (const mode of ["full", "diagonal"] as const) {
      const post = new AbilityPosterior({ mean: [0, 0], covariance: [1e300, 0, 0, 1e300] }, { mode });
      const state = JSON.stringify(post.toState());
      const mean = Array.from(post.mean);
      const cov = Array.from(post.covariance);
      const err = thrownBy(FeedbackError, () => post.update([1e200, 1e200], 0, 1));
      expect(err).toBeInstanceOf(FeedbackError);
      expect(err.path).toBe("event");
      expect(JSON.stringify(post.toState())).toBe(state);
      expect(Array.from(post.mean)).toEqual(mean);
      expect(Array.from(post.covariance)).toEqual(cov);
    }
  });

  it("choose() never picks a candidate whose score is NaN, and says so when all are", () => {
    const l = new OnlineLearner(
      [
        { id: "hot", ability: [2, 2, 2, 2] },
        { id: "zero", ability: [0, 0, 0, 0] },
      ],
      { explore: "none" },
    );
    const item = { alpha: [1e308, 1e308, 1e308, 1e308], beta: 0 };
    const scores = l.score(item, ["hot", "zero"]);
    expect(Number.isNaN(scores[0]!.score)).toBe(true);
    expect(Number.isNaN(scores[1]!.score)).toBe(false);
    expect(l.choose(item, ["hot", "zero"])).toBe("zero");
    expect(l.choose(item, ["zero", "hot"])).toBe("zero");
    expect(() => l.choose(item, ["hot"])).toThrow(FeedbackError);
  });
});

describe("ids, model names and state", () => {
  it("a whitespace-only id or model is a FeedbackError naming the field (as in the store)", () => {
    const l = new OnlineLearner(known);
    expect(thrownBy(FeedbackError, () => l.observe(ev(1, { id: "   " }))).path).toBe("event.id");
    const err = thrownBy(FeedbackError, () => l.observe(ev(1, { model: " \t" })));
    expect(err).toBeInstanceOf(FeedbackError);
    expect(err.path).toBe("event.model");
  });

  it('a model named "__proto__" survives exportState / JSON / fromState', () => {
    const l = new OnlineLearner(known, { unknownModels: "add" });
    l.observe(ev(1, { model: "__proto__" }));
    l.observe(ev(2, { model: "constructor" }));
    const state = l.exportState();
    expect(Object.keys(state.models)).toContain("__proto__");
    expect(Object.getPrototypeOf(state.models)).toBe(Object.prototype);
    const back = OnlineLearner.fromState(JSON.parse(JSON.stringify(state)), { unknownModels: "add" });
    expect(back.models().sort()).toEqual(l.models().sort());
    expectSamePosterior(back.posterior("__proto__"), l.posterior("__proto__"), 1e-12);
    expect(back.observe(ev(3, { model: "__proto__" }))).toBe("applied");
  });

  it("fromState rejects malformed state with a ValidationError naming the field", () => {
    const good = JSON.parse(JSON.stringify(new OnlineLearner(known).exportState())) as LearnerState;
    const other = JSON.parse(
      JSON.stringify(
        new OnlineLearner([
          { id: "x", ability: [1, 2, 3] },
          { id: "y", ability: [0, 1, 0] },
        ]).exportState(),
      ),
    ) as LearnerState;
    const cases: [string, (s: Record<string, any>) => unknown, string][] = [
      ["not an object", () => null, "state"],
      ["version", (s) => ((s.version = 2), s), "state.version"],
      ["dim not matching", (s) => ((s.dim = 5), s), "state.population.mean"],
      ["a posterior of another dim", (s) => ((s.models.b = other.models.x), s), "state.models.b.posterior.dim"],
      ["dim as string", (s) => ((s.dim = "4"), s), "state.dim"],
      [
        "non-finite number",
        (s) => ((s.models.a.posterior.dataEta[2] = "NaN"), s),
        "state.models.a.posterior.dataEta.2",
      ],
      ["short array", (s) => (s.models.c.posterior.priorMean.pop(), s), "state.models.c.posterior.priorMean"],
      ["models missing", (s) => (delete s.models, s), "state.models"],
      ["pendingDecay", (s) => ((s.models.a.pendingDecay = 2), s), "state.models.a.pendingDecay"],
      ["clock", (s) => ((s.models.a.clock = "yesterday"), s), "state.models.a.clock"],
      ["seenIds", (s) => ((s.seenIds = [1]), s), "state.seenIds.0"],
      ["removed", (s) => ((s.removed = "b"), s), "state.removed"],
    ];
    for (const [name, mutate, path] of cases) {
      const err = thrownBy(ValidationError, () =>
        OnlineLearner.fromState(mutate(structuredClone(good) as Record<string, any>)),
      );
      expect(err, name).toBeInstanceOf(ValidationError);
      expect(err.path, name).toBe(path);
    }
    expect(OnlineLearner.fromState(good).models()).toEqual(["a", "b", "c"]);
  });
});

describe("check()", () => {
  it("reports what observe would do without changing anything, and throws what it would throw", () => {
    const l = new OnlineLearner(known, { forgetting: { halfLifeEvents: 2 } });
    l.observe(ev(1));
    l.removeModel("c");
    const before = JSON.stringify(l.exportState());
    expect(l.check(ev(2))).toBe("applied");
    expect(l.check(ev(1))).toBe("duplicate");
    expect(l.check(ev(3, { model: "c" }))).toBe("removed-model");
    expect(thrownBy(IrtRouterError, () => l.check(ev(4, { model: "zz" }))).code).toBe("UNKNOWN_MODEL");
    expect(thrownBy(FeedbackError, () => l.check(ev(5, { alpha: [1, 2, 3] }))).path).toBe("event.alpha");
    expect(thrownBy(FeedbackError, () => l.check(ev(6, { alpha: [1, 2, 3, 2e6] }))).path).toBe("event.alpha");
    expect(JSON.stringify(l.exportState())).toBe(before);
    expect(l.has("zz")).toBe(false);
    const lax = new OnlineLearner(known, { unknownModels: "add" });
    expect(lax.check(ev(7, { model: "zz" }))).toBe("applied");
    expect(lax.has("zz")).toBe(false);
  });

  it("a removed id cannot be added back (a restore could not place the re-add in the journal); a new id can", () => {
    const l = new OnlineLearner(known, { unknownModels: "add" });
    for (let i = 0; i < 5; i++) l.observe(ev(i, { model: "new", y: 0 }));
    l.removeModel("new");
    const before = JSON.stringify(l.exportState());
    const error = thrownBy(FeedbackError, () => l.addModel("new"));
    expect(error).toMatchObject({ path: "modelId", details: { model: "new", removed: true } });
    expect(error.message).toMatch(/cannot be added back under the same id.*new@2/);
    expect(JSON.stringify(l.exportState())).toBe(before);
    expect(l.observe(ev(9, { model: "new" }))).toBe("removed-model");
    l.addModel("new@2");
    expect(l.observe(ev(10, { model: "new@2" }))).toBe("applied");
    // What a restore replays agrees with the live learner: the old id's events stay no-ops.
    const restored = OnlineLearner.restore(
      {
        events: [
          ...Array.from({ length: 5 }, (_, i) => ev(i, { model: "new", y: 0 })),
          ev(9, { model: "new" }),
          ev(10, { model: "new@2" }),
        ],
      },
      known,
      { unknownModels: "add" },
      { removed: l.removedModels() },
    );
    expect(restored.has("new")).toBe(false);
    expectSamePosterior(restored.posterior("new@2"), l.posterior("new@2"), 1e-12);
  });

  it("a restore whose snapshot has a model removed keeps it removed when membership also lists it as added", () => {
    const l = new OnlineLearner(known);
    l.addModel("mine", { like: ["a"] });
    l.removeModel("mine");
    const restored = OnlineLearner.restore(
      { snapshot: { state: JSON.parse(JSON.stringify(l.exportState())) }, events: [ev(1, { model: "mine" })] },
      known,
      {},
      {
        added: [{ id: "mine", like: ["a"] }],
        removed: ["mine"],
      },
    );
    expect(restored.has("mine")).toBe(false);
    expect(restored.removedModels()).toEqual(["mine"]);
  });

  it("removeModel is idempotent for a removed model and still rejects an id never tracked", () => {
    const l = new OnlineLearner(known);
    l.removeModel("b");
    l.removeModel("b");
    expect(l.removedModels()).toEqual(["b"]);
    expect(thrownBy(IrtRouterError, () => l.removeModel("nope")).code).toBe("UNKNOWN_MODEL");
  });
});

describe("calibrateModel checks each event with the learner before onEvent", () => {
  it("an event the learner rejects is never handed to onEvent (never journaled)", async () => {
    const learner = new OnlineLearner(known);
    // A probe bank whose parameters are beyond the learner's bound (e.g. a bank built with a broken scorer).
    const bank = probeBankFrom("broken", [{ id: "q1", alpha: [2e6, 0, 0, 0], beta: 0 }]);
    const handed: FeedbackEvent[] = [];
    const err = await rejectedWith(
      FeedbackError,
      calibrateModel({
        learner,
        modelId: "new",
        probes: bank,
        budget: 1,
        targetSd: 0,
        ask: async () => 1,
        onEvent: (e) => void handed.push(e),
      }),
    );
    expect(err).toBeInstanceOf(FeedbackError);
    expect(err.path).toBe("event.alpha");
    expect(handed).toEqual([]);
    expect(learner.hasSeen("calibrate:new:q1")).toBe(false);
  });
});
