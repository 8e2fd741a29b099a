/** The cost side of a router's decision log: expected against realized cost per model, fallbacks, shadow choices. */
import type { Figure, ReportData } from "./types.js";
import { BASE } from "./figures-scorer.js";

type Rows = NonNullable<ReportData["decisions"]>["rows"];

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const usd = (x: number) => `$${x.toPrecision(3)}`;

/** Whether a log has what {@link decisionCostFigure} draws (expected cost on at least one decision). */
export function hasDecisionCosts(rows: Rows): boolean {
  return rows.some((r) => r.expectedCostUsd !== undefined);
}

/**
 * Mean USD per call of each model that answered: expected before the call and realized from the provider's reported
 * usage; with a shadow log, also the expected cost of the router's own choices. The caption gives the totals, the
 * fallbacks and each model's share.
 */
export function decisionCostFigure(decisions: NonNullable<ReportData["decisions"]>): Figure {
  const rows = decisions.rows;
  const values: { model: string; measure: string; usd: number; calls: number }[] = [];
  const push = (model: string, measure: string, xs: number[]) => {
    if (xs.length > 0) values.push({ model, measure, usd: mean(xs), calls: xs.length });
  };
  for (const model of [...new Set(rows.map((r) => r.model))].sort()) {
    const own = rows.filter((r) => r.model === model);
    push(
      model,
      "expected (chosen model)",
      own.flatMap((r) => r.expectedCostUsd ?? []),
    );
    push(
      model,
      "realized (reported usage)",
      own.flatMap((r) => r.realizedCostUsd ?? []),
    );
  }
  const shadow = rows.filter((r) => r.routed !== undefined);
  for (const model of [...new Set(shadow.map((r) => r.routed!))].sort()) {
    push(
      model,
      "expected (router's choice, shadow)",
      shadow.filter((r) => r.routed === model).flatMap((r) => r.routedExpectedCostUsd ?? []),
    );
  }
  const total = (xs: (number | undefined)[]) => usd(xs.reduce<number>((a, b) => a + (b ?? 0), 0));
  const fallbacks = rows.filter((r) => r.fallbackFrom !== undefined).length;
  const shares = [...new Set(rows.map((r) => r.model))]
    .map((m) => `${m} ${((100 * rows.filter((r) => r.model === m).length) / rows.length).toFixed(0)}%`)
    .join(", ");
  const title = `Expected and realized cost per call, by model (${decisions.source})`;
  return {
    id: "decision-costs",
    title,
    caption:
      `Mean USD per call of each model over the ${rows.length} logged calls: expected before the call, realized ` +
      `from the usage the provider reported. Totals: expected ${total(rows.map((r) => r.expectedCostUsd))}, ` +
      `realized ${total(rows.map((r) => r.realizedCostUsd))}` +
      (shadow.length > 0 ? `, router's choices (shadow) ${total(shadow.map((r) => r.routedExpectedCostUsd))}` : "") +
      `. Fallbacks: ${fallbacks} of ${rows.length} calls. Shares: ${shares}.`,
    spec: {
      ...BASE,
      title,
      width: 520,
      height: 240,
      data: { values },
      mark: "bar",
      encoding: {
        x: { field: "model", type: "nominal", title: "model", axis: { labelAngle: -30 } },
        xOffset: { field: "measure" },
        y: { field: "usd", type: "quantitative", title: "mean cost per call (USD)" },
        color: { field: "measure", type: "nominal", title: "cost" },
        tooltip: [{ field: "model" }, { field: "measure" }, { field: "usd", format: ".3~g" }, { field: "calls" }],
      },
    },
  };
}
