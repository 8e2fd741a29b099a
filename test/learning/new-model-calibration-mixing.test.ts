import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { calibrateModel, OnlineLearner, probeBankFrom, type ProbeBank } from "../../src/learning/index.js";
import { DEFAULT_RANDOM_SHARE } from "../../src/learning/new-model-calibration.js";
import { rejectedWith } from "../errors.js";
import { alphaOf, makeWorld } from "./synthetic.js";

// Random probes mixed into an adaptive rule (calibrateModel's randomShare and mixRandom).
const w = makeWorld(41, 8, 400, 8, 1.3);
const bank: ProbeBank = probeBankFrom(
  "synthetic",
  Array.from({ length: 400 }, (_, i) => ({ id: `q${i}`, alpha: alphaOf(w, i), beta: w.betas[i]! })),
);
const known = w.thetas.map((t, i) => ({ id: `m${i}`, ability: t }));

/** The probe ids a calibration asks, in order, with `answer` grading each. */
async function asked(
  options: { strategy?: "accuracy" | "random"; randomShare?: number; mixRandom?: "always" | "on-conflict" },
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
