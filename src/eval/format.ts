import { IRT_MOE, type EvalReport, type MethodReport } from "./evaluate.js";
import { upperHull } from "./cost.js";

const f4 = (v: number | null | undefined): string =>
  v === null || v === undefined || !Number.isFinite(v) ? "–" : v.toFixed(4);
const f3 = (v: number | null | undefined): string =>
  v === null || v === undefined || !Number.isFinite(v) ? "–" : v.toFixed(3);
const signed = (v: number | null | undefined): string =>
  v === null || v === undefined || !Number.isFinite(v) ? "–" : `${v >= 0 ? "+" : ""}${v.toFixed(4)}`;
const ci = (c: readonly [number, number] | null): string => (c ? `[${f4(c[0])}, ${f4(c[1])}]` : "–");

/**
 * A cost-aware figure computed per seed and averaged over the seeds that have it: the mean alone when every seed has
 * it, "mean (k/n seeds; <none> in n-k)" when only some do, "<none>" when none does. A report saved by an older
 * version (a null mean although some seeds had the figure) prints "–" with the count.
 */
function perSeedFigure(
  value: number | null | undefined,
  have: number | undefined,
  of: number,
  fmt: (v: number) => string,
  none: string,
): string {
  const n = have ?? (value === null || value === undefined ? 0 : of);
  const seeds = (k: number) => `${k}/${of} seed${of === 1 ? "" : "s"}`;
  if (value === null || value === undefined)
    return n > 0 ? `– (reached in ${seeds(n)}; mean not recorded)` : of > 1 ? `${none} (${seeds(0)})` : none;
  return n < of ? `${fmt(value)} (${seeds(n)}; ${none} in ${of - n})` : fmt(value);
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/**
 * What the paired difference from irt-moe says, never calling a difference a win when its 95% CI
 * covers 0.
 */
export function verdict(m: MethodReport): string {
  if (m.name === IRT_MOE || m.name === "oracle" || !m.diffVsIrtMoeCi95 || m.diffVsIrtMoe === null) return "";
  const [lo, hi] = m.diffVsIrtMoeCi95;
  if (lo > 0) return `beats irt-moe (CI > 0)`;
  if (hi < 0) return `irt-moe better (CI < 0)`;
  return `no significant difference (CI covers 0)`;
}

/** The one-paragraph plain-language summary of where irt-moe stands. */
export function summarise(report: EvalReport): string {
  const irt = report.methods.find((m) => m.name === IRT_MOE);
  const contenders = report.methods.filter((m) => m.name !== "oracle");
  // On a tie irt-moe is the top row (then reported as a tie), whatever the order of the rows.
  const top = contenders.reduce((a, b) =>
    b.routingAccuracy > a.routingAccuracy || (b.routingAccuracy === a.routingAccuracy && b.name === IRT_MOE) ? b : a,
  );
  if (!irt) {
    return `No irt-moe row in this run; the highest routing accuracy among the evaluated methods is ${top.name} (${f4(top.routingAccuracy)}).`;
  }
  const lines: string[] = [];
  const tied = contenders
    .filter((m) => m.name !== IRT_MOE && m.routingAccuracy === irt.routingAccuracy)
    .map((m) => m.name);
  if (top.name === IRT_MOE && tied.length > 0) {
    lines.push(
      `irt-moe ties for the highest mean routing accuracy (${f4(irt.routingAccuracy)}, 95% CI ${ci(irt.routingCi95)}) with ${tied.join(", ")}: it does not beat them.`,
    );
  } else if (top.name === IRT_MOE) {
    lines.push(
      `irt-moe has the highest mean routing accuracy (${f4(irt.routingAccuracy)}, 95% CI ${ci(irt.routingCi95)}) of all methods except the oracle.`,
    );
  } else {
    lines.push(
      `irt-moe does NOT have the highest mean routing accuracy: ${top.name} has ${f4(top.routingAccuracy)} against irt-moe's ${f4(irt.routingAccuracy)} ` +
        `(difference ${signed(top.diffVsIrtMoe)}, paired 95% CI ${ci(top.diffVsIrtMoeCi95)}: ${verdict(top)}).`,
    );
  }
  for (const m of contenders) {
    if (m.name === IRT_MOE || m.name === top.name) continue;
    lines.push(
      `vs ${m.name}: ${signed(-(m.diffVsIrtMoe ?? NaN))} for irt-moe, CI of ${m.name} - irt-moe ${ci(m.diffVsIrtMoeCi95)}: ${verdict(m)}.`,
    );
  }
  for (const m of report.methods) {
    if (m.diffVsBestPerTask === undefined || !m.diffVsBestPerTaskCi95) continue;
    lines.push(
      `${m.name} vs best-per-task: ${signed(m.diffVsBestPerTask)}, paired 95% CI ${ci(m.diffVsBestPerTaskCi95)}.`,
    );
  }
  const withAuc = report.methods.filter((m) => m.auc !== null && Number.isFinite(m.auc));
  const bestAuc = withAuc.reduce((a, b) => ((b.auc ?? 0) > (a.auc ?? 0) ? b : a), withAuc[0]!);
  if (bestAuc) {
    lines.push(
      bestAuc.name === IRT_MOE
        ? `irt-moe has the best correctness AUC (${f4(irt.auc)}); its ECE is ${f4(irt.ece)}.`
        : `Best correctness AUC: ${bestAuc.name} ${f4(bestAuc.auc)} (irt-moe ${f4(irt.auc)}, ${signed((irt.auc ?? NaN) - (bestAuc.auc ?? NaN))}); irt-moe ECE ${f4(irt.ece)}.`,
    );
  }
  return lines.map((l) => `- ${l}`).join("\n");
}

/**
 * The report as markdown tables (also the CLI's readable output): routing with CIs and paired
 * differences, correctness figures, per-category routing, cost-aware figures, method details.
 *
 * @example
 * ```ts
 * process.stdout.write(formatEvalMarkdown(report));
 * ```
 */
export function formatEvalMarkdown(
  report: EvalReport,
  options: { headingLevel?: number; command?: string; note?: string } = {},
): string {
  const h = "#".repeat(options.headingLevel ?? 2);
  const out: string[] = [];
  out.push(`${h} ${report.dataset}`);
  out.push("");
  if (options.command) out.push(`Command: \`${options.command}\`${options.note ? ` (${options.note})` : ""}`, "");
  out.push(
    `Split (protocol rule): train ${report.counts.train}, val ${report.counts.val}, test ${report.counts.test}. ` +
      `Seeds: ${report.seeds.join(", ")}. Paired bootstrap: ${report.bootstrap.resamples} resamples of the test items, seed ${report.bootstrap.seed}. ` +
      `Best single model (highest train accuracy): ${report.bestSingleModel}.`,
    "",
  );
  out.push(summarise(report), "");
  out.push(`${h}# Routing accuracy and correctness prediction (test)`, "", routingTable(report), "");
  out.push(
    "Routing accuracy: mean over test items of the observed label of the observed candidate with the highest p (mean and sd over seeds). " +
      "CIs: paired bootstrap over test items on the per-item routing score averaged over seeds. Correctness figures over all observed test (model, item) pairs, " +
      "mean over seeds; labels y >= 0.5 count as positive for acc@0.5 and AUC, Brier and ECE (15 bins) use the raw label. " +
      "Train seconds include hyperparameter search on val where the method does one (first seed only); inference is the batch prediction of the test split divided by its size.",
    "",
  );
  if (report.categories.length > 0) {
    const names = report.methods.map((m) => m.name);
    out.push(`${h}# Routing accuracy per category (test)`, "");
    out.push(
      table(
        ["category", "n", ...names],
        report.categories.map((c) => [c.category, String(c.n), ...names.map((n) => f4(c.routing[n]))]),
      ),
      "",
    );
  }
  if (report.costAwareNotComputed) {
    out.push(`${h}# Cost-aware routing (test)`, "", report.costAwareNotComputed.reason, "");
  }
  if (report.costReference)
    out.push(`${h}# Cost-aware routing (test)`, "", ...costAwareSection(report, report.costReference));
  out.push(`${h}# What was fitted`, "");
  for (const m of report.methods) out.push(`- **${m.name}**: ${m.description.join(" | ")}`);
  out.push("");
  return out.join("\n");
}

/** The routing and correctness table: one row per method. */
function routingTable(report: EvalReport): string {
  const header = ["method", "routing acc", "sd", "95% CI", "diff vs irt-moe", "diff 95% CI", "verdict", "gap closed"];
  return table(
    [...header, "acc@0.5", "AUC", "Brier", "ECE", "train s", "infer ms/query"],
    report.methods.map((m) => [
      m.name,
      f4(m.routingAccuracy),
      m.kind === "learned" ? f4(m.routingAccuracySd) : "–",
      ci(m.routingCi95),
      m.name === IRT_MOE ? "–" : signed(m.diffVsIrtMoe),
      m.name === IRT_MOE ? "–" : ci(m.diffVsIrtMoeCi95),
      verdict(m),
      f3(m.gapClosed),
      f4(m.accuracy),
      f4(m.auc),
      f4(m.brier),
      f4(m.ece),
      m.trainSeconds === null ? "–" : m.trainSeconds.toFixed(1),
      m.inferMsPerQuery === null ? "–" : m.inferMsPerQuery.toFixed(3),
    ]),
  );
}

/** The cost-aware section's paragraphs and tables (after its heading), each followed by a blank line. */
function costAwareSection(report: EvalReport, ref: NonNullable<EvalReport["costReference"]>): string[] {
  const out: string[] = [];
  out.push(
    `Policy: choose argmax p - lambda x expectedCost among the observed candidates, expectedCost estimated before the call ` +
      `(${ref.note ?? "input tokens x input price + expected output tokens x output price"}); spend accounted at each chosen call's RECORDED cost. ` +
      (ref.unknownTrainCost > 0
        ? `${ref.unknownTrainCost} train calls have no recorded cost: the estimate is made from the others. `
        : "") +
      `Best single model ${ref.bestSingle.model}: accuracy ${f4(ref.bestSingle.accuracy)} at ${ref.bestSingle.meanCost.toExponential(3)} USD/query. ` +
      `Each figure is computed per seed (one fitted router) and averaged over the seeds that have it; "(k/n seeds)" says when only some do. ` +
      `Accuracy at <= 50% spend: lambda chosen on VAL (highest val accuracy with val spend <= 50% of the best single model's), applied to test. ` +
      `Match cost fraction: the cheapest test point whose accuracy reaches the best single model's, divided by that model's test spend; "never" when the curve does not reach it. ` +
      `Hull area: area under the upper convex hull of the test curve between the cheapest and the most expensive single model, divided by that cost range.`,
    "",
  );
  const header = ["method", "acc at <= 50% spend", "sd", "its test spend / best single", "match cost fraction"];
  const rows = report.methods
    .filter((m) => m.costAware)
    .map((m) => {
      const c = m.costAware!;
      const of = m.seeds.length;
      return [
        m.name,
        perSeedFigure(c.accuracyAtHalfCost, c.halfCostSeeds, of, f4, "no lambda under the cap on val"),
        f4(c.accuracyAtHalfCostSd),
        f3(c.halfCostSpendFraction),
        perSeedFigure(c.matchCostFraction, c.matchedSeeds, of, f3, "never"),
        f3(c.matchCostFractionSd),
        f4(c.hullArea),
        f4(c.hullAreaSd),
      ];
    });
  out.push(table([...header, "sd", "hull area", "sd"], rows), "");
  out.push(
    table(
      ["single model", "test accuracy", "mean cost USD/query"],
      ref.singleModels.map((s) => [s.model, f4(s.accuracy), s.meanCost.toExponential(3)]),
    ),
    "",
  );
  const irt = report.methods.find((m) => m.name === IRT_MOE && m.costAware);
  if (irt) {
    const hull = upperHull(irt.costAware!.curve);
    out.push(`irt-moe accuracy-vs-cost curve (upper hull vertices, seed-averaged):`, "");
    const points = hull.map((p) => [
      p.lambda === undefined ? "–" : p.lambda.toPrecision(3),
      p.meanCost.toExponential(3),
      f4(p.accuracy),
    ]);
    out.push(table(["lambda (1/USD)", "mean cost USD/query", "accuracy"], points), "");
  }
  return out;
}

/**
 * The report as the protocol's JSON object (`dataset`, `counts`, `seeds`, `methods[]` with
 * routing, CIs, paired differences, correctness figures, gap closed, timings and `costAware`),
 * plus extra fields (bootstrap, categories, cost reference). Non-finite numbers become null.
 */
export function formatEvalJson(report: EvalReport): string {
  return JSON.stringify(
    report,
    (_key, value) => (typeof value === "number" && !Number.isFinite(value) ? null : value),
    2,
  );
}
