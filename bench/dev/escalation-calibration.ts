/**
 * `npx tsx bench/dev/escalation-calibration.ts [--set all|half:<d>|tasks:<d>] [--cost-weight 0.1] [--cap 0.6]`
 *
 * How well the run-level router predicts the runs of an escalation, on the replay's folds (2 seeds x 5, models
 * anonymous as in the replay, learn: false): for the 1st, 2nd and 3rd attempt, the chance the escalation gets there,
 * the router's predicted p of the model it runs (its decision's candidate row) and that model's real rate on the task,
 * both averaged over the tasks weighted by the chance of getting there, and the mean cost of the attempt as a share of
 * the best fixed model's on the training folds. Sets as in run-robustness.ts (`half:5` is "tb 16 models #5").
 */
import { z } from "zod";
import { loadRunTable } from "../../adapters/data/run-dataset.js";
import { RunRouter } from "../../src/runs/run-router.js";
import { foldOf, type RunTable } from "../../src/runs/replay/protocol.js";
import { bestFixed } from "../../src/runs/replay/references.js";
import { modelHalf, taskDraw } from "./run-sets.js";
import { decimalFlag, scriptFlags } from "../flags.js";

const values = scriptFlags(
  "bench/dev/escalation-calibration.ts",
  { set: { type: "string" }, "cost-weight": { type: "string" }, cap: { type: "string" } },
  z
    .object({
      set: z
        .string()
        .regex(/^(all|(half|tasks):[1-9][0-9]*)$/, "takes all, half:<d> or tasks:<d> (d: a draw, from 1)")
        .default("all"),
      "cost-weight": decimalFlag().default(0.1),
      cap: z
        .string()
        .default("0.6")
        .transform((text) => (text === "none" ? null : text))
        .pipe(decimalFlag("a share of the best fixed model's cost, or none").nullable()),
    })
    .strict(),
);
const costWeight = values["cost-weight"];
const cap = values.cap;
const tb = await loadRunTable("terminal-bench-2-32models");
const [kind, d] = values.set.split(":");
const t: RunTable = kind === "half" ? modelHalf(tb, Number(d)) : kind === "tasks" ? taskDraw(tb, Number(d), 60) : tb;
const rate = (i: number, k: number) => (Number.isFinite(t.rate[i]![k]!) ? t.rate[i]![k]! : 0);
const idx = new Map(t.models.map((m, k) => [m, k]));
const acc = [0, 1, 2].map(() => ({ reach: 0, predicted: 0, real: 0, cost: 0 }));
let n = 0;
for (let seed = 1; seed <= 2; seed++) {
  const fold = t.ids.map((id) => foldOf(t.name, id, seed, 5));
  for (let f = 0; f < 5; f++) {
    const train = fold.flatMap((g, i) => (g !== f ? [i] : []));
    const test = fold.flatMap((g, i) => (g === f ? [i] : []));
    const ref = t.runCost[bestFixed(t.rate, train)]!;
    const router = new RunRouter({
      models: Object.fromEntries(t.models.map((m, k) => [m, { runCost: t.runCost[k]! }])),
    });
    for (const i of train) {
      t.models.forEach((m, k) => {
        if (Number.isFinite(t.rate[i]![k]!)) router.feedback({ id: t.ids[i]!, text: t.texts[i]! }, m, t.rate[i]![k]!);
      });
    }
    for (const i of test) {
      n++;
      const result = await router.escalate(
        { id: t.ids[i]!, text: t.texts[i]! },
        async (m) => m,
        () => false,
        { maxAttempts: 3, costWeight, ...(cap === null ? {} : { costCap: cap * ref }), learn: false },
      );
      let reach = 1;
      result.attempts.forEach((a, j) => {
        const k = idx.get(a.modelId)!;
        const p = a.decision.candidates.find((c) => c.modelId === a.modelId)!.p;
        const e = acc[j]!;
        e.reach += reach;
        e.predicted += reach * p;
        e.real += reach * rate(i, k);
        e.cost += (reach * t.runCost[k]!) / ref;
        reach *= 1 - rate(i, k);
      });
    }
  }
}
console.log(`set ${values.set}, cost weight ${costWeight}, cap ${cap ?? "none"}: ${n} escalations`);
acc.forEach((e, j) => {
  if (e.reach === 0) return;
  console.log(
    `attempt ${j + 1}: reached ${(e.reach / n).toFixed(3)}, predicted p ${(e.predicted / e.reach).toFixed(3)}, ` +
      `real rate ${(e.real / e.reach).toFixed(3)}, cost ${((e.cost / n) * 100).toFixed(1)}%`,
  );
});
