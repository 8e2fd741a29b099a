/** Figures from labelled data and cost results: difficulty against accuracy, reliability, cost-accuracy frontier. */
import type { Figure, ReportData } from "./types.js";
import { paretoFrontier, reliabilityBins } from "./stats.js";
import { BASE } from "./figures-scorer.js";

/** Each item's difficulty beta against its observed accuracy over the dataset's models, with a binned mean. */
export function difficultyFigure(items: NonNullable<ReportData["items"]>): Figure {
  const values = Array.from(items.beta, (b, i) => ({ beta: b, accuracy: items.accuracy[i]! }));
  const title = `Item difficulty against observed accuracy (${items.dataset})`;
  return {
    id: "difficulty",
    title,
    caption:
      `Each dot is a ${items.dataset} item: the scorer's difficulty beta (logits) against the share of the dataset's ` +
      "models that answered it right; the line is the mean accuracy per beta bin. A falling line means beta ranks items by difficulty.",
    spec: {
      ...BASE,
      title,
      width: 520,
      height: 320,
      data: { values },
      layer: [
        { mark: { type: "point", opacity: 0.35, size: 14 } },
        {
          mark: { type: "line", point: true, color: "#d62728" },
          encoding: {
            x: { field: "beta", bin: { maxbins: 15 }, type: "quantitative" },
            y: { aggregate: "mean", field: "accuracy", type: "quantitative" },
          },
        },
      ],
      encoding: {
        x: { field: "beta", type: "quantitative", title: "difficulty beta (logits)" },
        y: {
          field: "accuracy",
          type: "quantitative",
          title: "observed accuracy (share of models correct)",
          scale: { domain: [0, 1] },
        },
      },
    },
  };
}

/** Predicted p against the observed rate, per dataset, with each bin's count; the diagonal is perfect calibration. */
export function reliabilityFigure(sets: NonNullable<ReportData["reliability"]>): Figure {
  const values = sets.flatMap((s) => reliabilityBins(s.p, s.y).map((b) => ({ dataset: s.dataset, ...b })));
  const title = "Reliability: predicted p(correct) against observed rate";
  return {
    id: "reliability",
    title,
    caption:
      "Pairs of predicted p and outcome grouped in 10 equal-width bins: a point on the dashed diagonal means the " +
      "probabilities can be taken at face value; below it, the scorer is over-confident. Point size and label: pairs in the bin.",
    spec: {
      ...BASE,
      title,
      width: 420,
      height: 420,
      layer: [
        {
          data: {
            values: [
              { x: 0, y: 0 },
              { x: 1, y: 1 },
            ],
          },
          mark: { type: "line", strokeDash: [4, 4], color: "#888" },
          encoding: { x: { field: "x", type: "quantitative" }, y: { field: "y", type: "quantitative" } },
        },
        {
          data: { values },
          mark: { type: "line", point: false },
          encoding: {
            x: { field: "predicted", type: "quantitative" },
            y: { field: "observed", type: "quantitative" },
            color: { field: "dataset", type: "nominal", title: "dataset" },
          },
        },
        {
          data: { values },
          mark: { type: "point", filled: true },
          encoding: {
            x: { field: "predicted", type: "quantitative" },
            y: { field: "observed", type: "quantitative" },
            color: { field: "dataset", type: "nominal" },
            size: { field: "count", type: "quantitative", title: "pairs in bin" },
            tooltip: [
              { field: "dataset" },
              { field: "count" },
              { field: "predicted", format: ".3f" },
              { field: "observed", format: ".3f" },
            ],
          },
        },
        {
          data: { values },
          mark: { type: "text", dy: -10, fontSize: 9 },
          encoding: {
            x: { field: "predicted", type: "quantitative" },
            y: { field: "observed", type: "quantitative" },
            text: { field: "count", type: "quantitative" },
          },
        },
      ],
      encoding: {
        x: { title: "predicted p(correct) (mean in bin)", scale: { domain: [0, 1] } },
        y: { title: "observed rate correct (in bin)", scale: { domain: [0, 1] } },
      },
    },
  };
}

/** Every policy's cost-accuracy points (curves), the single models, and the Pareto frontier over all of them. */
export function frontierFigure(costs: NonNullable<ReportData["costs"]>): Figure {
  const policyPoints = costs.policies.flatMap((p) => p.points.map((pt, i) => ({ ...pt, policy: p.name, i })));
  const singles = costs.singles.map((s) => ({ ...s, policy: "single model" }));
  const all = [...policyPoints.map((p) => ({ ...p, name: `${p.policy}#${p.i}` })), ...singles];
  const onFrontier = new Set(paretoFrontier(all));
  const frontier = all.filter((p) => onFrontier.has(p.name)).sort((a, b) => a.cost - b.cost);
  const unit = costs.per === "run" ? "USD per run" : "USD per query";
  const title = `Cost-accuracy frontier (${costs.source})`;
  return {
    id: "frontier",
    title,
    caption:
      `Mean cost (${unit}, log scale) against ${costs.per === "run" ? "run success" : "accuracy"}: each coloured ` +
      "line is one policy as its cost weight varies, grey squares are single models, the black step line is the " +
      "frontier (nothing cheaper is more accurate). Up and to the left is better.",
    spec: {
      ...BASE,
      title,
      width: 560,
      height: 360,
      layer: [
        {
          data: { values: policyPoints },
          mark: { type: "line", point: { size: 20 } },
          encoding: {
            x: { field: "cost", type: "quantitative" },
            y: { field: "accuracy", type: "quantitative" },
            color: { field: "policy", type: "nominal", title: "policy" },
            order: { field: "cost" },
          },
        },
        {
          data: { values: frontier },
          mark: { type: "line", interpolate: "step-after", color: "black", strokeWidth: 1 },
          encoding: { x: { field: "cost", type: "quantitative" }, y: { field: "accuracy", type: "quantitative" } },
        },
        {
          data: { values: singles },
          layer: [
            { mark: { type: "square", size: 60, color: "#777" } },
            {
              mark: { type: "text", align: "left", dx: 6, fontSize: 9, color: "#444" },
              encoding: { text: { field: "name" } },
            },
          ],
          encoding: {
            x: { field: "cost", type: "quantitative" },
            y: { field: "accuracy", type: "quantitative" },
            tooltip: [{ field: "name" }, { field: "cost", format: ".6f" }, { field: "accuracy", format: ".3f" }],
          },
        },
      ],
      encoding: {
        x: { title: `mean cost (${unit}, log scale)`, scale: { type: "log" } },
        y: { title: costs.per === "run" ? "run success rate" : "accuracy (share correct)", scale: { zero: false } },
      },
    },
  };
}
