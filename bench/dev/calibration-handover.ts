/**
 * `npx tsx bench/dev/calibration-handover.ts [--datasets a,b] [--seeds-for name=1,2] [--orders 10] [--out file]`
 *
 * Why the hand-over rule (1 adaptive probe, then the seeded random order) loses first crossings to random order
 * held out (docs/online.md, "Calibration on data it was not tuned on"). The worlds of `npm run bench:calibration-lodo`
 * (cached in .cache/online-bench), each held-out model's probe sequence replayed into the learner directly, so that
 * probe orders the library does not ask can be compared with the same measures (first crossing of the 3-point band,
 * cap 300; absolute error after 5, 10, 20, 50 probes), per random order o:
 * - random: the seeded order o (the baseline);
 * - head1: the adaptive probe a, then order o without a (the default since 0.4.0);
 * - placebo: a uniformly random probe x (from another seed's order), then order o without x. In distribution it IS
 *   random order; its paired difference from the baseline measures what the shift of one probe alone does to the
 *   paired statistics;
 * - swap: a in order o's first place (order o's first probe moved to the end): the same distribution as head1, the
 *   trajectory aligned with the baseline's;
 * - late5, late10: order o with a asked 6th or 11th (the adaptive answer linearised nearer the model's ability).
 * Writes per pair, per variant, per order the counts, errors and trajectories as JSON (default
 * /tmp/calibration-handover.json). `--summary a.json,b.json [--base random] [--split test]` prints, per dataset, each
 * variant's mean paired difference from the base (first crossing in probes; error after 1, 2, 3, 5, 10, 20, 50 probes
 * in points) with a 95% bootstrap interval over the (model, seed) pairs (2,000 resamples, as the study's tables), and
 * per pair the truth, the predicted accuracy where the random orders end, and each variant's mean first crossing.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { loadDataset } from "../../adapters/data/index.js";
import { getTf } from "../../adapters/tf.js";
import { splitIndices } from "../../src/data/split.js";
import { calibrateModel, ItemTracker, OnlineLearner } from "../../src/learning/index.js";
import { shuffledIndices } from "../../src/learning/probe-picker.js";
import { embeddingsFor } from "../online/embeddings.js";
import { calibrationSetup, type SimWorld } from "../online/sim.js";
import { defaultLeaveOut, validationWorld } from "../online/world.js";
import { seededRng } from "../../src/util/random.js";
import { listFlag, scriptFlags, seedListFlag, seedsFlag, seedsForFlag } from "../flags.js";

const CAP = 300;
const TOL = 0.03;
const AT = [1, 2, 3, 5, 10, 20, 50];

type Seq = (r: number[], a: number, x: number) => number[];
const without = (r: number[], i: number) => r.filter((j) => j !== i);
const VARIANTS: Record<string, Seq> = {
  random: (r) => r,
  head1: (r, a) => [a, ...without(r, a)],
  placebo: (r, _a, x) => [x, ...without(r, x)],
  swap: (r, a) => (r[0] === a ? r : [a, ...without(r.slice(1), a), r[0]!]),
  late5: (r, a) => lateAt(r, a, 5),
  late10: (r, a) => lateAt(r, a, 10),
};
/** Order r with a asked (k+1)-th (after r's first k probes without a). */
function lateAt(r: number[], a: number, k: number): number[] {
  const rest = without(r, a);
  return [...rest.slice(0, k), a, ...rest.slice(k)];
}

const values = scriptFlags(
  "bench/dev/calibration-handover.ts",
  {
    datasets: { type: "string" },
    seeds: { type: "string" },
    "seeds-for": { type: "string", multiple: true },
    orders: { type: "string" },
    out: { type: "string" },
    variants: { type: "string" },
    summary: { type: "string" },
    base: { type: "string" },
    split: { type: "string" },
  },
  z
    .object({
      datasets: listFlag(z.string()).default([
        "mmlu-pro-29models",
        "routerdc-7models",
        "routerbench-subset-11models",
        "terminal-bench-2-32models",
      ]),
      seeds: seedListFlag().default([1, 2, 3]),
      "seeds-for": seedsForFlag(),
      orders: seedsFlag(10),
      out: z.string().min(1).default("/tmp/calibration-handover.json"),
      variants: listFlag(z.enum(Object.keys(VARIANTS))).default(Object.keys(VARIANTS)),
      summary: listFlag(z.string()).optional(),
      base: z.string().min(1).default("random"),
      split: z.enum(["val", "test"]).default("test"),
    })
    .strict(),
);
if (values.summary) {
  summary(
    values.summary.flatMap((f) => JSON.parse(readFileSync(f, "utf8")) as Pair[]),
    values.base,
    values.split,
  );
  process.exit(0);
}
const { datasets, seeds, orders, variants } = values;
const seedsFor = values["seeds-for"];
const log = (s: string) => process.stderr.write(`${s}\n`);

function evalSet(w: SimWorld, m: number, rows: readonly number[]) {
  const items: number[] = [];
  const y: number[] = [];
  for (const i of rows)
    for (let j = w.offsets[i]!; j < w.offsets[i + 1]!; j++)
      if (w.model[j] === m) {
        items.push(i);
        y.push(w.y[j]!);
      }
  const alphas = new Float32Array(items.length * w.d);
  items.forEach((i, k) => alphas.set(w.alphas.subarray(i * w.d, (i + 1) * w.d), k * w.d));
  return { alphas, betas: Float32Array.from(items, (i) => w.betas[i]!), acc: y.reduce((a, b) => a + b, 0) / y.length };
}

const { tf } = await getTf();
const out: unknown[] = [];
for (const name of datasets) {
  const ds = await loadDataset(name);
  const split = splitIndices(
    ds.name,
    ds.items.map((it) => it.id),
  );
  const emb = await embeddingsFor(ds, log, "static");
  for (const seed of seedsFor.get(name) ?? seeds) {
    const w = await validationWorld(tf, ds, emb, split, defaultLeaveOut(ds.name), seed, log, false);
    for (const m of w.heldOut) {
      const setup = calibrationSetup(w, m, seed, 2000);
      const n = setup.bank.ids.length;
      const sets = { val: evalSet(w, m, w.test), test: evalSet(w, m, split.test) };
      const known = [...w.knownTheta.entries()].map(([k, theta]) => ({ id: w.models[k]!, ability: theta }));
      const modelId = w.models[m]!;
      const ask = async (p: { id: string }) => setup.label.get(Number(p.id))!;
      // the adaptive first probe (deterministic)
      const l0 = new OnlineLearner(known);
      const r0 = await calibrateModel({
        learner: l0,
        modelId,
        probes: setup.bank,
        budget: 1,
        adaptiveProbes: "all",
        targetSd: 0,
        ask,
      });
      const a = setup.bank.ids.indexOf(r0.answers[0]!.probeId);
      // a's logit moments at the prior, beside the bank's typical ones
      const l1 = new OnlineLearner(known);
      l1.addModel(modelId);
      const tb = new ItemTracker(l1.posterior(modelId), setup.bank.alphas, setup.bank.betas);
      const s2s = [...tb.variances()].sort((x, y) => x - y);
      const prior = {
        m: tb.means()[a]!,
        s2: tb.variances()[a]!,
        s2Median: s2s[Math.floor(s2s.length / 2)]!,
        acc0: tb.predictedAccuracy(),
      };
      tb.dispose();
      const replay = (seq: number[]) => {
        const learner = new OnlineLearner(known);
        learner.addModel(modelId);
        const post = learner.posterior(modelId);
        const tr = {
          val: new ItemTracker(post, sets.val.alphas, sets.val.betas),
          test: new ItemTracker(post, sets.test.alphas, sets.test.betas),
        };
        const res = {
          val: { first: CAP + 1, err: [] as number[], traj: [] as number[] },
          test: { first: CAP + 1, err: [] as number[], traj: [] as number[] },
        };
        const look = (t: number) => {
          for (const k of ["val", "test"] as const) {
            const p = tr[k].predictedAccuracy();
            res[k].traj.push(p);
            const e = Math.abs(p - sets[k].acc);
            if (res[k].first > CAP && e <= TOL) res[k].first = t;
            if (AT.includes(t)) res[k].err.push(e);
          }
        };
        look(0);
        const d = setup.bank.dim;
        for (let t = 0; t < Math.min(CAP, seq.length); t++) {
          const i = seq[t]!;
          learner.observe({
            id: `p:${i}`,
            model: modelId,
            alpha: Array.from(setup.bank.alphas.subarray(i * d, (i + 1) * d)),
            beta: setup.bank.betas[i]!,
            y: setup.label.get(Number(setup.bank.ids[i]))!,
            at: 0,
          });
          look(t + 1);
        }
        for (const k of ["val", "test"] as const)
          while (res[k].err.length < AT.length) res[k].err.push(Math.abs(res[k].traj.at(-1)! - sets[k].acc));
        tr.val.dispose();
        tr.test.dispose();
        return res;
      };
      const pair: Record<string, unknown> = {
        dataset: name,
        seed,
        model: modelId,
        n,
        a,
        aY: setup.label.get(Number(setup.bank.ids[a])),
        prior,
        truth: {
          val: sets.val.acc,
          test: sets.test.acc,
          bank: [...setup.label.values()].reduce((s, v) => s + v, 0) / n,
        },
      };
      for (const v of variants) pair[v] = [] as unknown[];
      for (let o = 0; o < orders; o++) {
        const r = shuffledIndices(n, seed * 101 + m + 7777 * o);
        const x = shuffledIndices(n, seed * 101 + m + 7777 * o + 55555)[0]!;
        for (const v of variants) (pair[v] as unknown[]).push(replay(VARIANTS[v]!(r, a, x)));
      }
      out.push(pair);
      log(`${name} seed ${seed} ${modelId}: n ${n}, a ${a} (y ${String(pair.aY)})`);
    }
  }
}
writeFileSync(values.out, JSON.stringify(out));

interface Run {
  val: { first: number; err: number[]; traj: number[] };
  test: { first: number; err: number[]; traj: number[] };
}
type Pair = { dataset: string; seed: number; model: string; aY: number; truth: Record<string, number> } & Record<
  string,
  unknown
>;

function summary(pairs: Pair[], base: string, split: "val" | "test"): void {
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const runs = (p: Pair, v: string) => p[v] as Run[];
  const ci = (xs: readonly number[]): [number, number] => {
    const rng = seededRng(12345);
    const st: number[] = [];
    for (let b = 0; b < 2000; b++) {
      let s = 0;
      for (let i = 0; i < xs.length; i++) s += xs[Math.floor(rng.next() * xs.length)]!;
      st.push(s / xs.length);
    }
    st.sort((a, b) => a - b);
    return [st[Math.floor(0.025 * 1999)]!, st[Math.ceil(0.975 * 1999)]!];
  };
  const f = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(1)}`;
  const cell = (xs: readonly number[]) => {
    const [lo, hi] = ci(xs);
    return `${f(mean(xs))} [${f(lo)}, ${f(hi)}]`;
  };
  for (const d of [...new Set(pairs.map((p) => p.dataset))]) {
    const ps = pairs.filter((p) => p.dataset === d);
    const vs = Object.keys(ps[0]!).filter((k) => k !== base && Array.isArray(ps[0]![k]));
    console.log(`\n${d} (${ps.length} pairs), ${split} split, minus ${base}:`);
    for (const v of vs) {
      const first = ps.map(
        (p) => mean(runs(p, v).map((r) => r[split].first)) - mean(runs(p, base).map((r) => r[split].first)),
      );
      const err = AT.map((_, k) =>
        cell(
          ps.map(
            (p) =>
              100 * (mean(runs(p, v).map((r) => r[split].err[k]!)) - mean(runs(p, base).map((r) => r[split].err[k]!))),
          ),
        ),
      );
      console.log(`  ${v}: first crossing ${cell(first)}; error after ${AT.join(" / ")}: ${err.join(" / ")}`);
    }
    for (const p of ps) {
      const end = mean(runs(p, "random").map((r) => r[split].traj.at(-1)!));
      console.log(
        `    seed ${p.seed} ${p.model}: truth ${(100 * p.truth[split]!).toFixed(0)}, bank ${(100 * p.truth.bank!).toFixed(0)}, ` +
          `random order ends at ${(100 * end).toFixed(0)}; adaptive answer ${p.aY}; mean first crossing ` +
          vs
            .concat(base)
            .map((v) => `${v} ${mean(runs(p, v).map((r) => r[split].first)).toFixed(0)}`)
            .join(", "),
      );
    }
  }
}
