/** Figures from routing decisions and from a store's feedback: routing share and learning curves. */
import type { Figure, ReportData } from "./types.js";
import { BASE } from "./figures-scorer.js";
import { modelColourScale } from "./names.js";

/** Share of the decisions routed to each model, overall and within each category (stacked bars). */
export function routingShareFigure(
  decisions: NonNullable<ReportData["decisions"]>,
  colours = modelColourScale(decisions.rows.map((d) => d.model)),
): Figure {
  const counts = new Map<string, number>();
  const perCategory = new Map<string, number>();
  for (const d of decisions.rows) {
    for (const cat of ["all", d.category]) {
      counts.set(`${cat}\u0000${d.model}`, (counts.get(`${cat}\u0000${d.model}`) ?? 0) + 1);
      perCategory.set(cat, (perCategory.get(cat) ?? 0) + 1);
    }
  }
  const values = [...counts].map(([key, n]) => {
    const [category, model] = key.split("\u0000") as [string, string];
    return { category, model, n, share: n / perCategory.get(category)! };
  });
  const title = `Routing share by model and by category (${decisions.source})`;
  return {
    id: "routing-share",
    title,
    caption:
      `Each bar is one category of the ${decisions.rows.length} routed steps ("all": every step), split by the model ` +
      "it was sent to: a wide segment is a model the router trusts for that kind of task.",
    spec: {
      ...BASE,
      title,
      width: 520,
      height: Math.max(120, 26 * perCategory.size),
      data: { values },
      mark: "bar",
      encoding: {
        y: { field: "category", type: "nominal", title: "category (task label)", sort: { field: "category" } },
        x: {
          field: "share",
          type: "quantitative",
          title: "share of the category's steps (%)",
          axis: { format: "%" },
          stack: "normalize",
        },
        color: { field: "model", type: "nominal", title: "model", scale: colours },
        tooltip: [
          { field: "category" },
          { field: "model" },
          { field: "n", title: "steps" },
          { field: "share", format: ".0%" },
        ],
      },
    },
  };
}

/** Each model's ability estimate (with a 2-sd band) against the number of feedback events seen. */
export function learningCurveFigure(
  learning: NonNullable<ReportData["learning"]>,
  colours = modelColourScale(learning.curves.map((c) => c.model)),
): Figure {
  const values = learning.curves.map((c) => ({ ...c, low: c.estimate - 2 * c.sd, high: c.estimate + 2 * c.sd }));
  const title = `Learning curves: ability estimate against feedback events (${learning.source})`;
  const x = { field: "events", type: "quantitative", title: "feedback events replayed (count)" };
  // the bands are drawn faint (opacity 0.2), and a legend takes its symbols' opacity from the marks: its swatches
  // are set to solid strokes, the lines' colours
  const color = {
    field: "model",
    type: "nominal",
    title: "model",
    scale: colours,
    legend: { symbolType: "stroke", symbolOpacity: 1, symbolStrokeWidth: 3 },
  };
  return {
    id: "learning-ability",
    title,
    caption:
      "Each model's posterior ability along the workload's mean item direction (logits) as the store's events are " +
      "replayed in order; the band is plus or minus two posterior standard deviations and narrows as the model is learned.",
    spec: {
      ...BASE,
      title,
      width: 560,
      height: 320,
      data: { values },
      layer: [
        {
          mark: { type: "area", opacity: 0.2 },
          encoding: {
            x,
            y: { field: "low", type: "quantitative", title: "ability along the workload direction (logits)" },
            y2: { field: "high" },
            color,
          },
        },
        {
          mark: "line",
          encoding: {
            x,
            y: { field: "estimate", type: "quantitative" },
            color,
            tooltip: [
              { field: "model" },
              { field: "events" },
              { field: "estimate", format: ".3f" },
              { field: "sd", format: ".3f" },
            ],
          },
        },
      ],
    },
  };
}

/** Share of the store's events answered by each model, window by window (what the router sent where, over time). */
export function learningShareFigure(
  learning: NonNullable<ReportData["learning"]>,
  colours = modelColourScale(learning.share.map((c) => c.model)),
): Figure {
  const title = `Routing share over time (${learning.source})`;
  return {
    id: "learning-share",
    title,
    caption:
      "Share of the feedback events in each window that came from each model, in the order they were recorded: a " +
      "growing band is a model the router sends more traffic to as it learns.",
    spec: {
      ...BASE,
      title,
      width: 560,
      height: 280,
      data: { values: learning.share },
      mark: "area",
      encoding: {
        x: { field: "events", type: "quantitative", title: "feedback events recorded (count, end of window)" },
        y: {
          field: "share",
          type: "quantitative",
          stack: "normalize",
          title: "share of the window's events (%)",
          axis: { format: "%" },
        },
        color: { field: "model", type: "nominal", title: "model", scale: colours },
      },
    },
  };
}
