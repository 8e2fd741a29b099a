import { describe, expect, it } from "vitest";
import { IrtRouterError, ValidationError } from "../../src/errors.js";
import { predictAccuracy } from "../../src/learning/index.js";
import { seededRng } from "../../src/util/random.js";
import { alphaOf, makeWorld, trueAccuracy, trueP } from "./synthetic.js";

const d = 3;
const world = makeWorld(11, d, 400, 6);
const items = { dim: d, alphas: world.alphas, betas: world.betas };
const models = world.thetas.map((theta, m) => ({ id: `m${m}`, ability: Float32Array.from(theta) }));
const target = Array.from({ length: 200 }, (_, i) => i);
const targetItems = { dim: d, alphas: world.alphas.subarray(0, 200 * d), betas: world.betas.subarray(0, 200) };

/** Graded outcomes of ability `theta` on items 200.. (not among the target items), seeded. */
function probesOf(theta: ArrayLike<number>, count: number, seed: number) {
  const rng = seededRng(seed);
  return Array.from({ length: count }, (_, k) => {
    const i = 200 + k;
    return { alpha: alphaOf(world, i), beta: world.betas[i]!, y: rng.next() < trueP(world, theta, i) ? 1 : 0 };
  });
}

describe("predictAccuracy", () => {
  it("is the plain mean p at the pretrained ability when the posterior is (nearly) degenerate, with an interval shrunk onto it", () => {
    const [p] = predictAccuracy({
      scorer: { models, knownPrior: { scale: 1e-9, shrinkage: 0.2 } },
      items: targetItems,
      models: ["m2"],
    });
    const exact = trueAccuracy(world, world.thetas[2]!, target);
    expect(p!.known).toBe(true);
    expect(p!.accuracy).toBeCloseTo(exact, 6);
    expect(p!.interval[1] - p!.interval[0]).toBeLessThan(1e-4);
    expect(p!.interval[0]).toBeLessThanOrEqual(p!.accuracy + 1e-6);
    expect(p!.interval[1]).toBeGreaterThanOrEqual(p!.accuracy - 1e-6);
  });

  it("widens with the known-model prior's scale (the ability's uncertainty reaches the interval)", () => {
    const width = (scale: number) => {
      const [p] = predictAccuracy({
        scorer: { models, knownPrior: { scale, shrinkage: 0.2 } },
        items: targetItems,
        models: ["m0"],
      });
      return p!.interval[1] - p!.interval[0];
    };
    expect(width(0.5)).toBeGreaterThan(2 * width(0.02));
  });

  it("shrinks the interval as probes come in, and moves a new model's prediction toward its true accuracy", () => {
    const theta = Float64Array.from([1.5, -0.5, 0.8]);
    const truth = trueAccuracy(world, theta, target);
    const run = (n: number) =>
      predictAccuracy({
        scorer: { models },
        items: targetItems,
        models: [{ id: "newcomer", probes: probesOf(theta, n, 3) }],
        seed: 1,
      })[0]!;
    const few = run(5);
    const many = run(150);
    expect(few.known).toBe(false);
    expect(many.probes).toBe(150);
    expect(many.interval[1] - many.interval[0]).toBeLessThan(0.6 * (few.interval[1] - few.interval[0]));
    expect(many.sd).toBeLessThan(few.sd);
    expect(Math.abs(many.accuracy - truth)).toBeLessThan(0.05);
  });

  it("counts a probed target item with its observed outcome", () => {
    const base = predictAccuracy({
      scorer: { models },
      items: targetItems,
      models: [{ id: "m1", probes: [{ alpha: alphaOf(world, 0), beta: world.betas[0]!, y: 1 }] }],
    })[0]!;
    const counted = predictAccuracy({
      scorer: { models },
      items: targetItems,
      models: [{ id: "m1", probes: [{ alpha: alphaOf(world, 0), beta: world.betas[0]!, y: 1, item: 0 }] }],
    })[0]!;
    expect(counted.accuracy).toBeGreaterThan(base.accuracy);
    expect(counted.accuracy - base.accuracy).toBeLessThanOrEqual(1 / 200 + 1e-12);
  });

  it("is reproducible for a seed", () => {
    const a = predictAccuracy({ scorer: { models }, items, models: ["m3"], seed: 5 });
    const b = predictAccuracy({ scorer: { models }, items, models: ["m3"], seed: 5 });
    expect(a).toEqual(b);
  });

  it("refuses a model the scorer does not know when no probes are given, saying what to do", () => {
    let error: unknown;
    try {
      predictAccuracy({ scorer: { models }, items, models: ["m0", "mystery"] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IrtRouterError);
    expect(error).toMatchObject({ code: "UNKNOWN_MODEL", path: "predictAccuracy.models.1" });
    expect((error as Error).message).toMatch(/no probe results were given.*probes: \[\{ alpha, beta, y \}\]/);
  });

  it("predicts a model the scorer does not know from a given start, without probes, as sure as the start says", () => {
    const accuracies = world.thetas.map((theta) => trueAccuracy(world, theta, target));
    const strong = accuracies.indexOf(Math.max(...accuracies));
    const weak = accuracies.indexOf(Math.min(...accuracies));
    const direction = Float32Array.from({ length: d }, () => 1 / Math.sqrt(d));
    const predict = (m: number, sd: number) =>
      predictAccuracy({
        scorer: { models },
        items: targetItems,
        models: [
          { id: "today", start: { ability: Float32Array.from(world.thetas[m]!), placement: { sd, direction } } },
        ],
      })[0]!;
    const width = (p: { interval: readonly [number, number] }) => p.interval[1] - p.interval[0];
    expect(predict(strong, 0.1)).toMatchObject({ known: false, prior: "start", probes: 0 });
    expect(predict(strong, 0.1).accuracy).toBeGreaterThan(predict(weak, 0.1).accuracy + 0.1);
    expect(width(predict(strong, 2))).toBeGreaterThan(width(predict(strong, 0.1)));
    // the scorer's own row wins over a start; a bad start names its field
    const [known] = predictAccuracy({
      scorer: { models },
      items: targetItems,
      models: [{ id: "m1", start: { ability: [9, 9, 9] } }],
    });
    expect(known!.prior).toBe("scorer");
    expect(() =>
      predictAccuracy({ scorer: { models }, items, models: [{ id: "today", start: { ability: [1, 2] } }] }),
    ).toThrow(expect.objectContaining({ path: "predictAccuracy.models.0.start.ability" }));
  });

  it("validates its arguments, naming the field", () => {
    expect(() =>
      predictAccuracy({
        scorer: { models },
        items: { dim: 2, alphas: world.alphas, betas: world.betas },
        models: ["m0"],
      }),
    ).toThrow(ValidationError);
    expect(() => predictAccuracy({ scorer: { models }, items, models: [] })).toThrow(/predictAccuracy\.models/);
    expect(() => predictAccuracy({ scorer: { models }, items, models: ["m0", "m0"] })).toThrow(/listed twice/);
    expect(() =>
      predictAccuracy({
        scorer: { models },
        items,
        models: [{ id: "m0", probes: [{ alpha: [1, 0, 0], beta: 0, y: 2 }] }],
      }),
    ).toThrow(/predictAccuracy\.models\.0\.probes\.0\.y/);
    expect(() =>
      predictAccuracy({
        scorer: { models },
        items,
        models: [{ id: "m0", probes: [{ alpha: [1, 0], beta: 0, y: 1 }] }],
      }),
    ).toThrow(/alpha of length 2/);
    expect(() => predictAccuracy({ scorer: { models }, items, models: ["m0"], level: 1 })).toThrow(
      /predictAccuracy\.level/,
    );
  });
});
