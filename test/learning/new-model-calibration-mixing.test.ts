import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { calibrateModel, OnlineLearner, probeBankFrom, type ProbeBank } from "../../src/learning/index.js";
import {
  DEFAULT_ADAPTIVE_PROBES,
  DEFAULT_HAND_OVER,
  DEFAULT_RANDOM_FIRST,
  DEFAULT_RANDOM_SHARE,
  type CalibrationOptions,
} from "../../src/learning/new-model-calibration.js";
import { shuffledIndices } from "../../src/learning/probe-picker.js";
import { ItemTracker } from "../../src/learning/tracker.js";
import { seededRng } from "../../src/util/random.js";
import { rejectedWith } from "../errors.js";
import { alphaOf, makeWorld } from "./synthetic.js";

// Random probes mixed into an adaptive rule (calibrateModel's randomShare and mixRandom), and the hand-over from the
// adaptive rule to the seeded random order after `adaptiveProbes` probes (the default).
const w = makeWorld(41, 8, 400, 8, 1.3);
const bank: ProbeBank = probeBankFrom(
  "synthetic",
  Array.from({ length: 400 }, (_, i) => ({ id: `q${i}`, alpha: alphaOf(w, i), beta: w.betas[i]! })),
);
const known = w.thetas.map((t, i) => ({ id: `m${i}`, ability: t }));

/** The probe ids a calibration asks, in order, with `answer` grading each. */
async function asked(
  options: {
    strategy?: "accuracy" | "random";
    randomShare?: number;
    mixRandom?: "always" | "on-conflict";
    adaptiveProbes?: number | "all";
    handOver?: "replace" | "insert";
    randomFirst?: number;
  },
  answer: (probe: { alpha: Float32Array; beta: number }, learner: OnlineLearner) => number = () => 1,
  budget = 30,
): Promise<string[]> {
  const learner = new OnlineLearner(known);
  const r = await calibrateModel({
    learner,
    modelId: "new",
    probes: bank,
    budget,
    targetSd: 0,
    seed: 7,
    adaptiveProbes: "all",
    ...options,
    ask: async (probe) => answer(probe, learner),
  });
  return r.answers.map((a) => a.probeId);
}

describe("calibrateModel: random probes mixed into the adaptive rule", () => {
  it("a share of 1 asks the seeded random order; a share of 0.5 asks every second probe from it", async () => {
    const random = await asked({ strategy: "random" });
    expect(await asked({ randomShare: 1 })).toEqual(random);
    const half = await asked({ randomShare: 0.5 });
    const pure = await asked({ randomShare: 0 });
    expect(half).not.toEqual(pure);
    // positions 1, 3, 5, ... are the random order's probes, skipping those the adaptive rule already asked
    const fromRandom = half.filter((_, k) => k % 2 === 1);
    const expected: string[] = [];
    const taken = new Set<string>();
    let cursor = 0;
    half.forEach((id, k) => {
      if (k % 2 === 1) {
        while (taken.has(random[cursor] ?? "")) cursor++;
        expected.push(random[cursor]!);
        cursor++;
      }
      taken.add(id);
    });
    // the random order beyond the first 30 is not known here: compare the prefix the 30-probe random run shows
    const n = expected.findIndex((id) => id === undefined);
    expect(fromRandom.slice(0, n < 0 ? undefined : n)).toEqual(expected.slice(0, n < 0 ? undefined : n));
  });

  it("the default mixes in no random probes", async () => {
    expect(DEFAULT_RANDOM_SHARE).toBe(0);
    expect(await asked({})).toEqual(await asked({ randomShare: 0 }));
  });

  it('"on-conflict" starts mixing only once the answers contradict the prior', async () => {
    // answers equal to the predictive p leave no residual: never a conflict, so the adaptive rule alone
    const expected = (probe: { alpha: Float32Array; beta: number }, learner: OnlineLearner) =>
      learner.posterior("new").predict(probe.alpha, probe.beta);
    expect(await asked({ randomShare: 0.5, mixRandom: "on-conflict" }, expected)).toEqual(
      await asked({ randomShare: 0, mixRandom: "on-conflict" }, expected),
    );
    // an average new model that answers everything right contradicts its prior within a few answers
    const conflict = await asked({ randomShare: 0.5, mixRandom: "on-conflict" });
    const pure = await asked({ randomShare: 0 });
    const firstDiff = conflict.findIndex((id, k) => id !== pure[k]);
    expect(firstDiff).toBeGreaterThanOrEqual(3);
    expect(firstDiff).toBeLessThan(30);
    // "always" mixes from the second probe
    const always = await asked({ randomShare: 0.5, mixRandom: "always" });
    expect(always.findIndex((id, k) => id !== pure[k])).toBe(1);
  });

  it("refuses a share outside [0, 1] and an unknown mixRandom, naming the option", async () => {
    const e1 = await rejectedWith(ValidationError, asked({ randomShare: 1.5 }));
    expect(e1.message).toMatch(/randomShare/);
    const e2 = await rejectedWith(ValidationError, asked({ mixRandom: "sometimes" as never }));
    expect(e2.message).toMatch(/mixRandom/);
  });
});

/**
 * A bank whose parameters mislead about the model (bench/dev/calibration-misspecified.ts): its most discriminating
 * half is answered at 50% whatever the difficulty, its weakly discriminating easy half at 95%.
 */
function misleading() {
  const rng = seededRng(7);
  const items = [
    ...Array.from({ length: 200 }, (_, i) => ({ id: `x${i}`, alpha: [3, 0], beta: 2 * rng.next() - 1, q: 0.5 })),
    ...Array.from({ length: 200 }, (_, i) => ({ id: `y${i}`, alpha: [0.3, 0.3], beta: -1, q: 0.95 })),
  ];
  return { items, bank: probeBankFrom("misleading", items), truth: items.reduce((a, it) => a + it.q, 0) / 400 };
}
const misled = misleading();
const misledKnown = [
  { id: "a", ability: [0.5, 0] },
  { id: "b", ability: [-0.5, 0.2] },
  { id: "c", ability: [0, -0.3] },
  { id: "d", ability: [0.2, 0.4] },
];

/** Mean error (points) of the predicted bank accuracy after `budget` probes over seeds 1..20 (answers drawn per seed). */
async function misledError(options: Partial<CalibrationOptions>, budget: number): Promise<number> {
  let sum = 0;
  for (let seed = 1; seed <= 20; seed++) {
    const learner = new OnlineLearner(misledKnown);
    learner.addModel("new");
    const tracker = new ItemTracker(learner.posterior("new"), misled.bank.alphas, misled.bank.betas);
    const draws = seededRng(1000 + seed);
    const y = new Map(misled.items.map((it) => [it.id, draws.next() < it.q ? 1 : 0]));
    await calibrateModel({
      learner,
      modelId: "new",
      probes: misled.bank,
      budget,
      targetSd: 0,
      seed,
      ...options,
      ask: async (probe) => y.get(probe.id)!,
    });
    sum += 100 * Math.abs(tracker.predictedAccuracy() - misled.truth);
    tracker.dispose();
  }
  return sum / 20;
}

describe("calibrateModel: the adaptive rule hands over to the seeded random order", () => {
  it("by default, DEFAULT_RANDOM_FIRST probes of the random order, then DEFAULT_ADAPTIVE_PROBES adaptive ones in its places, then the order", async () => {
    expect(typeof DEFAULT_ADAPTIVE_PROBES).toBe("number");
    expect(DEFAULT_HAND_OVER).toBe("replace");
    const k = DEFAULT_ADAPTIVE_PROBES as number;
    const j = DEFAULT_RANDOM_FIRST;
    const byDefault = await asked({ adaptiveProbes: undefined }, () => 1, 400);
    expect(byDefault).toEqual(await asked({ adaptiveProbes: k, randomFirst: j, handOver: "replace" }, () => 1, 400));
    const random = await asked({ strategy: "random" }, () => 1, 400);
    expect(byDefault.slice(0, j)).toEqual(random.slice(0, j));
    const head = new Set(byDefault.slice(j, j + k));
    expect(byDefault.slice(j + k, 30)).toEqual(random.slice(j + k, 30).filter((id) => !head.has(id)));
    // "all" keeps the strategy for every probe from the first (randomFirst defaults to 0 there)
    expect(await asked({ adaptiveProbes: "all" })).toEqual(await asked({ adaptiveProbes: "all", randomFirst: 0 }));
    // strategy "random" ignores it; 0 is the random order from the first probe
    expect(await asked({ adaptiveProbes: 0 })).toEqual(await asked({ strategy: "random" }));
    expect(await asked({ adaptiveProbes: 0, handOver: "insert" })).toEqual(await asked({ strategy: "random" }));
  });

  it('"replace": after the hand-over, probe j is the one random order with the same seed asks j-th', async () => {
    const random = await asked({ strategy: "random" }, () => 1, 400);
    for (const k of [1, 2, 3]) {
      const rule = await asked({ adaptiveProbes: k, handOver: "replace", randomFirst: 0 }, () => 1, 400);
      const head = new Set(rule.slice(0, k));
      expect(rule.slice(0, k)).toEqual((await asked({ adaptiveProbes: "all" })).slice(0, k));
      // every later place holds random order's probe of that place, unless the adaptive rule took it already
      for (let j = k; j < 400 - k; j++) if (!head.has(random[j]!)) expect(rule.includes(random[j]!)).toBe(true);
      const tail = random.slice(k).filter((id) => !head.has(id));
      expect(rule.slice(k, k + tail.length)).toEqual(tail);
      // the random order's first places, displaced by the adaptive probes, come last; the bank is asked once each
      expect(rule.slice(k + tail.length)).toEqual(random.slice(0, k).filter((id) => !head.has(id)));
      expect(new Set(rule).size).toBe(400);
    }
  });

  it('"insert": the adaptive probes come before the random order, whose probes move back', async () => {
    const k = 2;
    const rule = await asked({ adaptiveProbes: k, handOver: "insert", randomFirst: 0 });
    const head = new Set(rule.slice(0, k));
    const order = shuffledIndices(400, 7)
      .map((i) => `q${i}`)
      .filter((id) => !head.has(id));
    expect(rule.slice(k)).toEqual(order.slice(0, 30 - k));
  });

  it("handOver changes nothing when the adaptive rule never hands over, nor for strategy random", async () => {
    for (const handOver of ["replace", "insert"] as const) {
      expect(await asked({ adaptiveProbes: "all", handOver })).toEqual(await asked({ adaptiveProbes: "all" }));
      expect(await asked({ strategy: "random", adaptiveProbes: 2, handOver })).toEqual(
        await asked({ strategy: "random" }),
      );
    }
  });

  it("randomFirst: the random order's first probes, then the adaptive ones in its next places, then the order", async () => {
    const random = await asked({ strategy: "random" }, () => 1, 400);
    for (const j of [1, 3, 5]) {
      const rule = await asked({ adaptiveProbes: 1, randomFirst: j }, () => 1, 400);
      expect(rule.slice(0, j)).toEqual(random.slice(0, j));
      const a = rule[j]!;
      // from the hand-over on, place i holds random order's probe i (the one the adaptive probe took comes last)
      const tail = random.slice(j + 1).filter((id) => id !== a);
      expect(rule.slice(j + 1, j + 1 + tail.length)).toEqual(tail);
      expect(new Set(rule).size).toBe(400);
    }
    // DEFAULT_RANDOM_FIRST is the default with a bounded adaptiveProbes; with strategy "random" it changes nothing
    expect(await asked({ adaptiveProbes: 1 })).toEqual(
      await asked({ adaptiveProbes: 1, randomFirst: DEFAULT_RANDOM_FIRST }),
    );
    expect(await asked({ strategy: "random", randomFirst: 3 })).toEqual(await asked({ strategy: "random" }));
  });

  it("refuses a negative or fractional randomFirst, naming the option", async () => {
    for (const bad of [-1, 2.5]) {
      const e = await rejectedWith(ValidationError, asked({ adaptiveProbes: 1, randomFirst: bad }));
      expect(e.message).toMatch(/randomFirst/);
    }
  });

  it("refuses an unknown handOver, naming the option", async () => {
    const e = await rejectedWith(ValidationError, asked({ adaptiveProbes: 1, handOver: "after" as never }));
    expect(e.message).toMatch(/handOver/);
  });

  it("on a bank that misleads about the model, the adaptive rule loses to random order and the default does not", async () => {
    const random = await misledError({ strategy: "random" }, 50);
    const adaptive = await misledError({ adaptiveProbes: "all" }, 50);
    const byDefault = await misledError({}, 50);
    // measured (seeds 1-20): random 6.3 points, adaptive throughout 11.6, the default (5 random probes, 1 adaptive in
    // the order's 6th place, then the order) 6.3
    expect(adaptive - random).toBeGreaterThan(2);
    expect(byDefault - random).toBeLessThan(1);
  });

  it("refuses a negative, fractional or unknown adaptiveProbes, naming the option", async () => {
    for (const bad of [-1, 1.5, "some"]) {
      const e = await rejectedWith(ValidationError, asked({ adaptiveProbes: bad as never }));
      expect(e.message).toMatch(/adaptiveProbes/);
    }
  });
});
