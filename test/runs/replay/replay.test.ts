import { afterEach, describe, expect, it, vi } from "vitest";
import { DatasetFormatError, ValidationError } from "../../../src/errors.js";
import { RunRouter, SpendPacer } from "../../../src/runs/index.js";
import { bestFixed, foldOf, replayRuns, type RunTable } from "../../../src/runs/replay/index.js";

/** 20 tasks x 3 models: "good" passes 80% of tasks, "mid" 50%, "bad" never; costs 3, 1 and 0.1 USD per run. */
function table(): RunTable {
  const ids = Array.from({ length: 20 }, (_, i) => `task-${i}`);
  return {
    name: "toy-runs",
    ids,
    texts: ids.map((id) => `Fix the build of ${id}.`),
    models: ["good", "mid", "bad"],
    rate: ids.map((_, i) => Float64Array.from([i % 5 !== 0 ? 1 : 0, i % 2 === 0 ? 1 : 0, 0])),
    runCost: Float64Array.from([3, 1, 0.1]),
    costAssumption: "toy costs",
  };
}

afterEach(() => vi.restoreAllMocks());

describe("replayRuns", () => {
  it("replays a table with unobserved pairs: no policy runs one, the reference is scored on the tasks it has", async () => {
    const route = vi.spyOn(RunRouter.prototype, "route");
    const escalate = vi.spyOn(RunRouter.prototype, "escalate");
    const t = table();
    for (const i of [2, 3, 4, 5, 6, 7, 8]) t.rate[i]![1] = Number.NaN; // "mid" unobserved on 7 tasks
    t.rate[9]![0] = Number.NaN; // "good" on one (it passes the other 15 of its 19)
    const result = await replayRuns(t, { crossFitSeeds: 1, onlineSeeds: 2, costWeights: [0, 0.5] });
    expect(result.coverage).toEqual({ pairs: 60, missing: 8, tasksWithGaps: 8, modelsWithGaps: 2 });
    // anonymous names in alphabetical order of the ids: bad m01, good m02, mid m03
    const missing = new Map<string, readonly string[]>([
      ...[2, 3, 4, 5, 6, 7, 8].map((i) => [`task-${i}`, ["m03", "mid"]] as const),
      ["task-9", ["m02", "good"]],
    ]);
    const taskId = (task: unknown) => (task as { id: string }).id;
    for (const [task, options] of route.mock.calls) {
      const off = missing.get(taskId(task));
      if (off) expect(options?.exclude?.some((m) => off.includes(m))).toBe(true);
    }
    for (const [task, , , options] of escalate.mock.calls) {
      const off = missing.get(taskId(task));
      if (off) expect(options?.exclude).toEqual([off[0]]);
    }
    // "good" stays the reference (observed on 19 of 20 tasks), scored on its 19: 15 passes
    expect(result.crossFit.bestFixed.success).toBeCloseTo(15 / 19, 12);
    expect(result.online.anonymous.bestFixedHindsight.success).toBeGreaterThan(0.5);
  });

  it("gives finite intervals around their points when the reference changes between folds and has gaps", async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `task-${i}`);
    const t: RunTable = {
      name: "alternating",
      ids,
      texts: ids.map((id) => `Fix the build of ${id}.`),
      models: ["evens", "odds", "steady"],
      // "evens" is labelled on the even tasks only, "odds" on the odd ones: the reference alternates with the folds
      rate: ids.map((_, i) =>
        Float64Array.from([i % 2 ? Number.NaN : i % 3 ? 1 : 0.5, i % 2 ? (i % 3 ? 0.9 : 0.4) : Number.NaN, 0.3]),
      ),
      runCost: Float64Array.from([2, 2, 0.5]),
      costAssumption: "toy costs",
    };
    const r = await replayRuns(t, { crossFitSeeds: 3, onlineSeeds: 3, costWeights: [0], escalation: [] });
    const points = [
      r.crossFit.bestFixed,
      ...r.crossFit.single,
      r.online.anonymous.router,
      r.online.anonymous.bestFixedHindsight,
    ];
    for (const p of points) {
      const cis = ["successCi", "vsBestFixedCi", "vsBestFixedHindsightCi"].flatMap((k) =>
        k in p ? [(p as unknown as Record<string, [number, number]>)[k]!] : [],
      );
      for (const [lo, hi] of cis) {
        expect(Number.isFinite(lo) && Number.isFinite(hi)).toBe(true); // were NaN
        expect(lo).toBeLessThanOrEqual(hi);
      }
      expect(p.successCi[0]).toBeLessThanOrEqual(p.success + 1e-12);
      expect(p.successCi[1]).toBeGreaterThanOrEqual(p.success - 1e-12);
    }
    const ref = r.crossFit.bestFixed;
    expect(ref.successCi[1] - ref.successCi[0]).toBeGreaterThan(0); // was [0.5, 0.5] around 0.641
  });

  it("keeps a model observed on few tasks from being the reference, and refuses a task no model has a label on", async () => {
    const t = table();
    const rows = t.rate.map((r, i) => Float64Array.from([...r, i < 2 ? 1 : Number.NaN])); // "rare" passes its 2 tasks
    expect(
      bestFixed(
        rows,
        t.ids.map((_, i) => i),
      ),
    ).toBe(0);
    const feedback = vi.spyOn(RunRouter.prototype, "feedback");
    const empty = table();
    empty.rate[4]!.fill(Number.NaN);
    const run = replayRuns(empty, { crossFitSeeds: 1, onlineSeeds: 1, costWeights: [0], escalation: [] });
    await expect(run).rejects.toThrow(DatasetFormatError);
    await expect(run).rejects.toThrow(/toy-runs: 1 of the 20 tasks have no label for any model \("task-4"\)/);
    expect(feedback).not.toHaveBeenCalled();
  });

  it("refuses hints when no task has one, and a task hint __proto__, naming the item", async () => {
    const feedback = vi.spyOn(RunRouter.prototype, "feedback");
    const quick = { crossFitSeeds: 1, onlineSeeds: 1, costWeights: [0], escalation: [], hints: true };
    await expect(replayRuns(table(), quick)).rejects.toThrow(ValidationError);
    await expect(replayRuns({ ...table(), hints: table().ids.map(() => undefined) }, quick)).rejects.toThrow(
      /no item of toy-runs has a category/,
    );
    const proto = table().ids.map((_, i) => (i === 3 ? "__proto__" : "build"));
    await expect(replayRuns({ ...table(), hints: proto }, quick)).rejects.toThrow(
      /item "task-3" of toy-runs has the category "__proto__"/,
    );
    expect(feedback).not.toHaveBeenCalled(); // refused before any work
    const some = table().ids.map((_, i) => (i % 2 ? "build" : undefined)); // some items with one: fine
    await expect(replayRuns({ ...table(), hints: some }, quick)).resolves.toMatchObject({ runs: 20 });
  });

  it("goes through the RunRouter's public API: feedback from the training folds, route, escalate", async () => {
    const feedback = vi.spyOn(RunRouter.prototype, "feedback");
    const route = vi.spyOn(RunRouter.prototype, "route");
    const escalate = vi.spyOn(RunRouter.prototype, "escalate");
    const t = table();
    const result = await replayRuns(t, {
      crossFitSeeds: 1,
      onlineSeeds: 1,
      costWeights: [0],
      escalation: [{ costWeight: 0, cap: null }],
    });
    // Cross-fit: every training (task, model) outcome once per fold, models anonymous, the rate as the outcome.
    const trainingOutcomes = 3 * t.ids.filter((id) => foldOf(t.name, id, 1) !== 0).length; // fold 0's training set
    expect(feedback.mock.calls.some((c) => c[1] === "m01")).toBe(true);
    expect(feedback.mock.calls.every((c) => /^m0[1-3]$/.test(c[1]) || ["good", "mid", "bad"].includes(c[1]))).toBe(
      true,
    );
    expect(feedback.mock.calls.length).toBeGreaterThanOrEqual(trainingOutcomes);
    expect(escalate).toHaveBeenCalledTimes(t.ids.length); // one escalation per test item and setting
    expect(route.mock.calls.length).toBeGreaterThan(t.ids.length);
    expect(result.runs).toBe(20);
    expect(result.models).toBe(3);
  });

  it("scores the references and the router from the labels", async () => {
    const result = await replayRuns(table(), {
      crossFitSeeds: 2,
      onlineSeeds: 3,
      costWeights: [0, 5],
      escalation: [{ costWeight: 0, cap: null }],
    });
    const cf = result.crossFit;
    expect(cf.bestFixed).toMatchObject({ success: 0.8, costRatio: 1, vsBestFixedCi: [0, 0] }); // best on every training set
    expect(cf.single[0]).toMatchObject({ costWeight: 0, success: 0.8, costRatio: 1 });
    expect(cf.single[1]!.costRatio).toBeLessThan(0.5); // a high cost weight picks cheaper models
    // The capped rows follow the cost weights: the most able model whose run costs at most the cap x the reference's
    // (good, USD 3): under 50% that is mid (USD 1, passes half the tasks), under 25% bad (USD 0.1).
    expect(cf.single.slice(2).map((p) => p.cap)).toEqual([0.25, 0.5]);
    expect(cf.single[3]).toMatchObject({ costWeight: 0, cap: 0.5, success: 0.5 });
    expect(cf.single[3]!.costRatio).toBeCloseTo(1 / 3, 12);
    expect(cf.single[2]).toMatchObject({ cap: 0.25, success: 0 }); // bad, USD 0.1
    await expect(replayRuns(table(), { singleCaps: [0.5, -1] })).rejects.toThrow(/singleCaps/);
    // Escalation good -> mid -> bad on the all-fail path: success 1 - (1-r_good)(1-r_mid); here 0.9.
    expect(cf.escalation[0]!.success).toBeCloseTo(0.9, 9);
    expect(cf.escalation[0]!.attempts).toBeGreaterThanOrEqual(2);
    const [lo, hi] = cf.escalation[0]!.vsBestFixedCi;
    expect(lo).toBeGreaterThanOrEqual(0); // escalation never does worse than "good" alone on an item
    expect(hi).toBeGreaterThan(0);
    expect(cf.escalation[0]!.successCi[0]).toBeLessThanOrEqual(0.9);
    const online = result.online.anonymous;
    expect(online.oracle.success).toBe(0.9); // the best model per task passes 18 of 20 tasks
    expect(online.bestFixedHindsight).toMatchObject({ success: 0.8, costRatio: 1 });
    // Intervals over tasks, each task's outcomes averaged over the 3 seeds (rates are 0 or 1 here, so every seed draws
    // the same): the best fixed model's is that of 16 passes in 20, the oracle passes every task it does and 2 more.
    const [flo, fhi] = online.bestFixedHindsight.successCi;
    expect(flo).toBeGreaterThan(0.5);
    expect(flo).toBeLessThan(0.8);
    expect(fhi).toBeGreaterThan(0.8);
    expect(fhi).toBeLessThanOrEqual(1);
    expect(online.bestFixedHindsight.vsBestFixedHindsightCi).toEqual([0, 0]);
    const [olo, ohi] = online.oracle.vsBestFixedHindsightCi;
    expect(olo).toBeGreaterThanOrEqual(0);
    expect(ohi).toBeGreaterThan(0.1);
    expect(ohi).toBeLessThan(0.3);
    expect(online.thompson.success).toBeGreaterThanOrEqual(0);
    expect(online.router.success).toBeGreaterThan(online.thompson.success);
    expect(result.online.named.router.lastThird.success).toBeGreaterThanOrEqual(0);
  });

  it("paces an escalation with a spend target: the pacer's weight decides, each task's spend is recorded", async () => {
    const record = vi.spyOn(SpendPacer.prototype, "record");
    const escalate = vi.spyOn(RunRouter.prototype, "escalate");
    const result = await replayRuns(table(), {
      crossFitSeeds: 1,
      onlineSeeds: 1,
      costWeights: [0],
      escalation: [{ costWeight: 0.05, cap: null, spendTarget: 0.2 }],
    });
    const row = result.crossFit.escalation[0]!;
    expect(row.spendTarget).toBe(0.2);
    // One pacer over the seed's test folds in turn: every task's spend recorded once, as a share of the reference's
    // run cost ("good" on every fold), so their mean is the row's cost ratio.
    expect(record).toHaveBeenCalledTimes(20);
    const spends = record.mock.calls.map((c) => c[0]);
    expect(spends.reduce((a, b) => a + b, 0) / 20).toBeCloseTo(row.costRatio, 9);
    // The first task runs at the start weight; later ones at the weight its spend moved.
    const weights = escalate.mock.calls.map((c) => c[3]!.costWeight!);
    expect(weights[0]).toBe(0.05);
    expect(new Set(weights).size).toBeGreaterThan(1);
    expect(spends[0]).toBeGreaterThan(0.2);
    expect(weights[1]).toBeGreaterThan(weights[0]!);
  });
});

describe("bestFixed", () => {
  const rates = [
    [1, 1, 0],
    [0, 0, 1],
    [1, 1, 0],
  ].map((r) => Float64Array.from(r));

  it("breaks an exact tie of mean rates towards the first model in the folder's order, as an argmax does", () => {
    expect(bestFixed(rates, [0, 1, 2])).toBe(0); // models 0 and 1 tie at 2/3; model 0 is listed first
    const swapped = rates.map((r) => Float64Array.from([r[1]!, r[0]!, r[2]!]));
    expect(bestFixed(swapped, [0, 1, 2])).toBe(0);
  });

  it("takes the higher mean over the given items only, skipping models without a label there", () => {
    expect(bestFixed(rates, [1])).toBe(2);
    const unlabelled = rates.map((r) => Float64Array.from([Number.NaN, r[1]!, r[2]!]));
    expect(bestFixed(unlabelled, [0, 2])).toBe(1);
  });
});
