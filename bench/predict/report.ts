/**
 * Aggregation of the accuracy-prediction benchmark's fold results into its table: per method and probe count,
 * MAE in points (mean over held-out categories of the mean over models of |predicted - observed|, each category's
 * figure averaged over seeds) with a 95% bootstrap interval over categories, the paired interval of the difference
 * to irt-moe at the same probe count, Spearman and Kendall across models (mean over categories), and the coverage
 * of irt-moe's 95% intervals. Pure.
 */
import { bootstrapDiffCi, bootstrapMeanCi, bootstrapPlan } from "../../src/stats/bootstrap.js";
import { foldFigures, type FoldFigures } from "./category-folds.js";
import type { FoldResult, ModelOutcome } from "./fold-run.js";
import { withCalibration } from "./calibrate.js";

export const METHODS = ["irt-moe", "irt-moe-cal", "mean-accuracy", "embedllm-mf", "probe-accuracy"] as const;
export type PredictMethod = (typeof METHODS)[number];

/** One row of `--json`. */
export interface PredictRow {
  readonly dataset: string;
  readonly probes: number;
  readonly method: PredictMethod;
  /** Points (0-100). */
  readonly mae: number;
  readonly maeCi95: [number, number];
  readonly spearman: number;
  readonly kendall: number;
  /** Paired 95% interval of this method's MAE minus irt-moe's at the same probe count (absent for irt-moe). */
  readonly diffVsIrtCi95?: [number, number];
  /** Paired 95% interval of this method's MAE minus irt-moe-cal's at the same probe count (baselines only). */
  readonly diffVsCalCi95?: [number, number];
  /** irt-moe and irt-moe-cal: the share of (category, model, seed) whose observed accuracy lies in the 95% interval. */
  readonly coverage?: number;
}

/** A category's MAE (points, mean over seeds) per method key ("irt-moe@10"). */
export interface CategoryRow {
  readonly dataset: string;
  readonly category: string;
  readonly nTest: number;
  readonly mae: Record<string, number>;
}

/** The (probes, method) pairs reported: the baselines without probes at 0 only, probe-accuracy with probes only. */
export function reportedPairs(probeCounts: readonly number[]): { probes: number; method: PredictMethod }[] {
  const out: { probes: number; method: PredictMethod }[] = [];
  for (const probes of probeCounts) {
    out.push({ probes, method: "irt-moe" }, { probes, method: "irt-moe-cal" });
    if (probes === 0) out.push({ probes, method: "mean-accuracy" }, { probes, method: "embedllm-mf" });
    else out.push({ probes, method: "probe-accuracy" });
  }
  return out;
}

/** A method's predicted accuracy of one model. */
export function predictionOf(o: ModelOutcome, method: PredictMethod, probes: number): number {
  switch (method) {
    case "irt-moe":
      return o.irt[probes]!.accuracy;
    case "irt-moe-cal":
      return o.cal![probes]!.accuracy;
    case "mean-accuracy":
      return o.meanAccuracy;
    case "embedllm-mf":
      return o.embedllmMf;
    case "probe-accuracy":
      return o.probe[probes]!;
  }
}

/** Figures of one fold result (one category, one seed) for a method. */
export function resultFigures(r: FoldResult, method: PredictMethod, probes: number): FoldFigures {
  return foldFigures(
    r.models.map((o) => predictionOf(o, method, probes)),
    r.models.map((o) => o.truth),
  );
}

const mean = (v: readonly number[]) => v.reduce((s, x) => s + x, 0) / v.length;
const finiteMean = (v: readonly number[]) => {
  const f = v.filter(Number.isFinite);
  return f.length > 0 ? mean(f) : NaN;
};

/**
 * The table of one dataset from its fold results (any number of seeds per category).
 *
 * @example
 * ```ts
 * const { rows, categories } = summarisePredict("mmlu-pro-29models", results, [0, 10, 50]);
 * ```
 */
export function summarisePredict(
  dataset: string,
  input: readonly FoldResult[],
  probeCounts: readonly number[],
  bootstrapSeed = 7,
): { rows: PredictRow[]; categories: CategoryRow[] } {
  const results = withCalibration(input, probeCounts);
  const byCategory = new Map<string, FoldResult[]>();
  for (const r of results) byCategory.set(r.category, [...(byCategory.get(r.category) ?? []), r]);
  const names = [...byCategory.keys()].sort();
  const plan = bootstrapPlan(names.length, 2000, bootstrapSeed);
  const perCategory = (method: PredictMethod, probes: number) =>
    names.map((c) => {
      const figs = byCategory.get(c)!.map((r) => resultFigures(r, method, probes));
      return {
        mae: mean(figs.map((f) => f.mae)),
        spearman: finiteMean(figs.map((f) => f.spearman)),
        kendall: finiteMean(figs.map((f) => f.kendall)),
      };
    });
  const pairs = reportedPairs(probeCounts);
  const maes = new Map(pairs.map((p) => [`${p.method}@${p.probes}`, perCategory(p.method, p.probes)]));
  const rows = pairs.map(({ probes, method }): PredictRow => {
    const figs = maes.get(`${method}@${probes}`)!;
    const points = figs.map((f) => 100 * f.mae);
    const [lo, hi] = bootstrapMeanCi(points, plan);
    const row: PredictRow = {
      dataset,
      probes,
      method,
      mae: mean(points),
      maeCi95: [lo, hi],
      spearman: finiteMean(figs.map((f) => f.spearman)),
      kendall: finiteMean(figs.map((f) => f.kendall)),
    };
    if (method === "irt-moe-cal") {
      const irt = maes.get(`irt-moe@${probes}`)!.map((f) => 100 * f.mae);
      return { ...row, diffVsIrtCi95: bootstrapDiffCi(points, irt, plan), coverage: coverage(results, method, probes) };
    }
    if (method !== "irt-moe") {
      const irt = maes.get(`irt-moe@${probes}`)!.map((f) => 100 * f.mae);
      const cal = maes.get(`irt-moe-cal@${probes}`)!.map((f) => 100 * f.mae);
      return {
        ...row,
        diffVsIrtCi95: bootstrapDiffCi(points, irt, plan),
        diffVsCalCi95: bootstrapDiffCi(points, cal, plan),
      };
    }
    return { ...row, coverage: coverage(results, method, probes) };
  });
  const categories = names.map((c, k): CategoryRow => {
    const mae: Record<string, number> = {};
    for (const [key, figs] of maes) mae[key] = 100 * figs[k]!.mae;
    return { dataset, category: c, nTest: byCategory.get(c)![0]!.nTest, mae };
  });
  return { rows, categories };
}

/** The share of (category, model, seed) whose observed accuracy lies inside the method's 95% interval. */
function coverage(results: readonly FoldResult[], method: "irt-moe" | "irt-moe-cal", probes: number): number {
  let inside = 0;
  let total = 0;
  for (const r of results) {
    for (const o of r.models) {
      const p = method === "irt-moe" ? o.irt[probes]! : o.cal![probes]!;
      total++;
      if (o.truth >= p.lo && o.truth <= p.hi) inside++;
    }
  }
  return total > 0 ? inside / total : NaN;
}

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : "-");
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "-");
const ci = (v: readonly [number, number] | undefined) => (v ? `[${f1(v[0])}, ${f1(v[1])}]` : "-");

/** Markdown tables of one dataset (overall, then per category). */
export function formatPredictMarkdown(rows: readonly PredictRow[], categories: readonly CategoryRow[]): string {
  const lines = [
    "| probes | method | MAE (points) | 95% CI | minus irt-moe, 95% CI | minus irt-moe-cal, 95% CI | Spearman | Kendall | 95% interval coverage |",
    "|---|---|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.probes} | ${r.method} | ${f1(r.mae)} | [${f1(r.maeCi95[0])}, ${f1(r.maeCi95[1])}] | ` +
        `${ci(r.diffVsIrtCi95)} | ${ci(r.diffVsCalCi95)} | ${f2(r.spearman)} | ${f2(r.kendall)} | ` +
        `${r.coverage !== undefined ? `${(100 * r.coverage).toFixed(0)}%` : "-"} |`,
    ),
  ];
  if (categories.length > 0) {
    const keys = Object.keys(categories[0]!.mae);
    lines.push(
      "",
      `| held-out category | test items | ${keys.join(" | ")} |`,
      `|---|---|${keys.map(() => "---|").join("")}`,
    );
    for (const c of categories)
      lines.push(`| ${c.category} | ${c.nTest} | ${keys.map((k) => f1(c.mae[k]!)).join(" | ")} |`);
  }
  return lines.join("\n");
}
