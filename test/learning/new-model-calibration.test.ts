import { describe, expect, it } from "vitest";
import { FeedbackError, ValidationError } from "../../src/errors.js";
import { calibrateModel, OnlineLearner, probeBankFrom, seededRng, type ProbeBank } from "../../src/learning/index.js";
import { DEFAULT_ADAPTIVE_PROBES } from "../../src/learning/new-model-calibration.js";
import { rejectedWith } from "../errors.js";
import { alphaOf, makeWorld, trueAccuracy, trueP } from "./synthetic.js";

// A synthetic "dataset": 12 models x 3000 items with recorded 0/1 correctness sampled once.
const w = makeWorld(31, 12, 3000, 14, 1.3);
const rng = seededRng(32);
const recorded = w.thetas.map((t) => Uint8Array.from({ length: w.n }, (_, i) => (rng.next() < trueP(w, t, i) ? 1 : 0)));
const bankItems = Array.from({ length: 2000 }, (_, i) => i);
const testItems = Array.from({ length: 1000 }, (_, k) => 2000 + k);
const bank: ProbeBank = probeBankFrom(
  "synthetic",
  bankItems.map((i) => ({ id: `q${i}`, alpha: alphaOf(w, i), beta: w.betas[i]! })),
);
const known = w.thetas.slice(0, 10).map((t, i) => ({ id: `m${i}`, ability: t }));
/** REPLAY model: answers probe qN with the recorded correctness of model `m` on item N. */
const replay = (m: number) => async (probe: { id: string }) => recorded[m]![Number(probe.id.slice(1))]!;
const testAccuracy = (m: number) => testItems.reduce((s, i) => s + recorded[m]![i]!, 0) / testItems.length;

async function errorAfter(
  m: number,
  budget: number,
  strategy: "fisher" | "accuracy" | "random",
  seed: number,
  // the strategies themselves by default (the shipped default hands over to the random order after a few probes)
  adaptiveProbes: number | "all" | undefined = "all",
): Promise<number> {
  const learner = new OnlineLearner(known);
  await calibrateModel({
    learner,
    modelId: `new${m}`,
    probes: bank,
    budget,
    strategy,
    adaptiveProbes,
    seed,
    targetSd: 0,
    ask: replay(m),
  });
  const post = learner.posterior(`new${m}`);
  const pred = testItems.reduce((s, i) => s + post.predict(alphaOf(w, i), w.betas[i]!), 0) / testItems.length;
  return Math.abs(pred - testAccuracy(m));
}

describe("calibrateModel", () => {
  it("with a replay model: predicted test accuracy approaches the recorded one; progress is reported", async () => {
    const learner = new OnlineLearner(known);
    const seen: number[] = [];
    const result = await calibrateModel({
      learner,
      modelId: "new10",
      probes: bank,
      budget: 60,
      targetSd: 0,
      ask: replay(10),
      onProgress: (p) => seen.push(p.asked),
    });
    expect(result.asked).toBe(60);
    expect(result.stopReason).toBe("budget");
    expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(new Set(result.answers.map((a) => a.probeId)).size).toBe(60);
    const post = learner.posterior("new10");
    const pred = testItems.reduce((s, i) => s + post.predict(alphaOf(w, i), w.betas[i]!), 0) / testItems.length;
    const fresh = new OnlineLearner(known);
    fresh.addModel("new10");
    const prior =
      testItems.reduce((s, i) => s + fresh.posterior("new10").predict(alphaOf(w, i), w.betas[i]!), 0) /
      testItems.length;
    expect(Math.abs(pred - testAccuracy(10))).toBeLessThan(0.08);
    expect(Math.abs(pred - testAccuracy(10))).toBeLessThan(Math.abs(prior - testAccuracy(10)));
    // calibrating again is idempotent on the same probes (event ids dedupe)
    expect(learner.hasSeen(`calibrate:new10:${result.answers[0]!.probeId}`)).toBe(true);
  });

  it("Fisher-chosen probes beat random probes at the same budget (mean error over models and seeds)", async () => {
    let fisher = 0;
    let random = 0;
    for (const m of [10, 11, 12, 13]) {
      for (const seed of [1, 2]) {
        fisher += await errorAfter(m, 25, "fisher", seed);
        random += await errorAfter(m, 25, "random", seed);
      }
    }
    expect(fisher).toBeLessThan(random);
  });

  it('the "accuracy" strategy (targeted variance reduction) also beats random probes', async () => {
    let targeted = 0;
    let random = 0;
    for (const m of [10, 12]) {
      targeted += await errorAfter(m, 60, "accuracy", 1);
      random += await errorAfter(m, 60, "random", 1);
    }
    expect(targeted).toBeLessThan(random);
  });

  it("where the bank is right, the default keeps the adaptive rule's lead over its adaptive probes", async () => {
    const k = DEFAULT_ADAPTIVE_PROBES as number;
    let byDefault = 0;
    let random = 0;
    for (const m of [10, 11])
      for (let seed = 1; seed <= 10; seed++) {
        byDefault += await errorAfter(m, k, "accuracy", seed, undefined);
        random += await errorAfter(m, k, "random", seed);
      }
    expect(byDefault).toBeLessThan(0.9 * random);
  });

  it("a second calibration of the same model never re-asks a probe it already answered", async () => {
    const learner = new OnlineLearner(known);
    const asked: string[] = [];
    const ask = async (p: { id: string }) => {
      asked.push(p.id);
      return replay(12)(p);
    };
    const first = await calibrateModel({ learner, modelId: "again", probes: bank, budget: 10, targetSd: 0, ask });
    const second = await calibrateModel({ learner, modelId: "again", probes: bank, budget: 10, targetSd: 0, ask });
    expect(second.asked).toBe(10);
    expect(new Set(asked).size).toBe(20);
    expect(second.answers.some((a) => first.answers.some((b) => b.probeId === a.probeId))).toBe(false);
  });

  it("stops early once the predicted accuracy is pinned down", async () => {
    const learner = new OnlineLearner(known);
    const r = await calibrateModel({
      learner,
      modelId: "new11",
      probes: bank,
      budget: 2000,
      targetSd: 0.03,
      ask: replay(11),
    });
    expect(r.stopReason).toBe("uncertainty");
    expect(r.asked).toBeLessThan(2000);
    expect(r.accuracySd).toBeLessThan(0.03);
    expect(Math.abs(r.predictedAccuracy - trueAccuracy(w, w.thetas[11]!, bankItems))).toBeLessThan(0.1);
  });

  it("a failing model degrades gracefully: probes skipped, then stop with ask-failed", async () => {
    const learner = new OnlineLearner(known);
    let calls = 0;
    const r = await calibrateModel({
      learner,
      modelId: "flaky",
      probes: bank,
      budget: 50,
      maxConsecutiveFailures: 3,
      ask: async () => {
        calls++;
        if (calls <= 2) return 1;
        if (calls === 3) return NaN;
        throw new Error("HTTP 503");
      },
    });
    expect(r.stopReason).toBe("ask-failed");
    expect(r.asked).toBe(2);
    expect(r.failures).toBe(3);
    expect(r.lastFailure).toBe("HTTP 503");
  });

  it("rejects a probe bank of another dimension and bad options", async () => {
    const learner = new OnlineLearner(known);
    const other = probeBankFrom("x", [{ id: "a", alpha: [1, 2], beta: 0 }]);
    await expect(
      calibrateModel({ learner, modelId: "n", probes: other, budget: 5, ask: async () => 1 }),
    ).rejects.toThrow(FeedbackError);
    await expect(
      calibrateModel({ learner, modelId: "n", probes: bank, budget: 0, ask: async () => 1 }),
    ).rejects.toThrow(/calibrate\.budget/);
  });

  it("names the missing or wrong argument instead of failing with a TypeError", async () => {
    const learner = new OnlineLearner(known);
    const pathOf = async (args: unknown) => (await rejectedWith(ValidationError, calibrateModel(args as never))).path;
    expect(await pathOf({ learner, modelId: "n", budget: 5, ask: async () => 1 })).toBe("calibrate.probes");
    expect(
      await pathOf({
        learner,
        modelId: "n",
        probes: { ...bank, alphas: Array.from(bank.alphas) },
        budget: 5,
        ask: async () => 1,
      }),
    ).toBe("calibrate.probes.alphas");
    expect(await pathOf({ learner, modelId: "n", probes: bank, budget: 5 })).toBe("calibrate.ask");
    expect(await pathOf({ learner: {}, modelId: "n", probes: bank, budget: 5, ask: async () => 1 })).toBe(
      "calibrate.learner",
    );
    expect(
      await pathOf({ learner, modelId: "n", probes: bank, budget: 5, ask: async () => 1, onEvent: "journal" }),
    ).toBe("calibrate.onEvent");
    expect(await pathOf(undefined)).toBe("calibrate");
    expect(learner.has("n")).toBe(false);
  });
});
