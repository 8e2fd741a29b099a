/**
 * Online learning speed: one posterior update at d = 64 (target <= 50 us p50), and the extra cost of
 * posterior-aware scoring (predictive p with uncertainty, 29 candidate models) over plain
 * point-estimate scoring of the same candidates in the same process (target <= 0.2 ms).
 */
import { OnlineLearner, seededRng } from "../../../src/learning/index.js";
import { mdTable, percentile, timeCalls, type BenchSection } from "../section.js";

const D = 64;
const MODELS = 29;

function world(seed: number) {
  const rng = seededRng(seed);
  const abilities = Array.from({ length: MODELS }, () => Float64Array.from({ length: D }, () => rng.normal() * 0.5));
  const items = Array.from({ length: 512 }, () => ({
    alpha: Float32Array.from({ length: D }, () => rng.normal() / Math.sqrt(D)),
    beta: rng.normal(),
  }));
  return { abilities, items, rng };
}

export async function run(): Promise<BenchSection> {
  const { abilities, items, rng } = world(1);
  const known = abilities.map((a, m) => ({ id: `m${m}`, ability: a }));
  const learner = new OnlineLearner(known, { unknownModels: "add" });
  const ids = known.map((k) => k.id);
  let k = 0;

  // Warm the posterior with some evidence first so the update is a typical one.
  for (let i = 0; i < 200; i++) {
    const it = items[i % items.length]!;
    learner.observe({
      id: `w${i}`,
      model: "m0",
      alpha: Array.from(it.alpha),
      beta: it.beta,
      y: rng.next() < 0.5 ? 1 : 0,
      at: i,
    });
  }
  const post = learner.posterior("m0");
  const updateMs = await timeCalls(
    () => {
      const it = items[k++ % items.length]!;
      post.update(it.alpha, it.beta, k % 2);
    },
    5000,
    200,
  );
  const events = items.map((it, i) => ({ alpha: Array.from(it.alpha), beta: it.beta, y: i % 3 === 0 ? 0 : 1 }));
  const observeMs = await timeCalls(
    () => {
      const e = events[k % events.length]!;
      learner.observe({ id: `o${k++}`, model: "m1", ...e, at: k });
    },
    5000,
    200,
  );

  // Point-estimate scoring of 29 candidates (the scorer's own rule) vs the posterior-aware predictive.
  const thetas = ids.map((id) => Float64Array.from(learner.posterior(id).mean));
  let sink = 0;
  const pointMs = await timeCalls(
    () => {
      const it = items[k++ % items.length]!;
      for (let m = 0; m < MODELS; m++) {
        let z = -it.beta;
        const th = thetas[m]!;
        for (let c = 0; c < D; c++) z += it.alpha[c]! * th[c]!;
        sink += 1 / (1 + Math.exp(-z));
      }
    },
    3000,
    200,
  );
  const posteriorMs = await timeCalls(
    () => {
      const it = items[k++ % items.length]!;
      sink += learner.score(it, ids, "none")[0]!.p;
    },
    3000,
    200,
  );
  const thompsonMs = await timeCalls(
    () => {
      const it = items[k++ % items.length]!;
      sink += learner.score(it, ids, "thompson")[0]!.score;
    },
    3000,
    200,
  );
  if (!Number.isFinite(sink)) throw new Error("non-finite scores");

  const us = (v: number) => (1000 * v).toFixed(1);
  const p50 = (xs: number[]) => percentile(xs, 50);
  const p95 = (xs: number[]) => percentile(xs, 95);
  const extra = p50(posteriorMs) - p50(pointMs);
  const table = mdTable(
    ["operation", "p50 (us)", "p95 (us)", "target"],
    [
      [
        "posterior update (d = 64, full covariance, rank-1 + periodic Cholesky refresh)",
        us(p50(updateMs)),
        us(p95(updateMs)),
        "<= 50 us p50",
      ],
      ["learner.observe (validation + dedupe + update)", us(p50(observeMs)), us(p95(observeMs)), ""],
      [`point-estimate scoring, ${MODELS} models (baseline)`, us(p50(pointMs)), us(p95(pointMs)), ""],
      [`posterior-aware scoring (predictive p), ${MODELS} models`, us(p50(posteriorMs)), us(p95(posteriorMs)), ""],
      [`Thompson scoring, ${MODELS} models`, us(p50(thompsonMs)), us(p95(thompsonMs)), ""],
    ],
  );
  return {
    title: "Online learning speed",
    markdown: `${table}

Posterior-aware scoring adds ${us(extra)} us p50 per query over point-estimate scoring of the same ${MODELS} candidates (target <= 200 us): ${extra <= 0.2 ? "met" : "**not met**"}. One update: ${us(p50(updateMs))} us p50 (target <= 50 us): ${p50(updateMs) <= 0.05 ? "met" : "**not met**"}. Timings are single calls measured with performance.now on a shared machine; the item parameters are computed once per query by the scorer and are not included.`,
  };
}
