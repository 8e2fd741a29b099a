/** Figures from labelled data and cost results: difficulty against accuracy, reliability, cost-accuracy frontier. */
import type { CostPoint, Figure, ReportData } from "./types.js";
import { paretoFrontier, reliabilityBins } from "./stats.js";
import { BASE } from "./figures-scorer.js";
import { labelLayers, labelRows, paddedDomain } from "./labels.js";

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

/**
 * How the frontier line is drawn, the one place the spec and the caption read it from: over which points the Pareto
 * frontier is computed, and its Vega-Lite interpolation.
 */
export const FRONTIER_LINE = { includesSingles: true, interpolate: "step-after" } as const;

/** The caption's sentence on the frontier line, from {@link FRONTIER_LINE}. */
export function frontierLineText(line: { includesSingles: boolean; interpolate: string } = FRONTIER_LINE): string {
  const over = line.includesSingles ? "every policy point and single model" : "the policies' points";
  const shape =
    line.interpolate === "step-after"
      ? "from each frontier point it runs flat to the next costlier one, where it steps up, so at any cost it shows the best accuracy reached at that cost or less"
      : `its frontier points are joined by ${line.interpolate} interpolation`;
  return `the black line is the Pareto frontier over ${over} (no other point is as cheap and more accurate): ${shape}`;
}

const LABEL_FONT = 9;

/** The frontier's fixed axes (log cost, accuracy) and its single models' labels placed so that none overlap. */
function frontierLabels(
  policyPoints: readonly CostPoint[],
  singles: readonly CostPoint[],
  width: number,
  height: number,
) {
  const every = [...policyPoints, ...singles];
  const axes = {
    x: {
      domain: paddedDomain(
        every.map((p) => p.cost),
        0.06,
        true,
      ),
      pixels: width,
      log: true,
    },
    y: { domain: paddedDomain(every.map((p) => p.accuracy)), pixels: height },
  };
  const labels = labelRows(
    singles.map((s) => ({ x: s.cost, y: s.accuracy, text: s.name })),
    axes,
    LABEL_FONT,
    policyPoints.map((p) => ({ x: p.cost, y: p.accuracy })),
  );
  return { axes, labels };
}

/**
 * Every policy's cost-accuracy points (curves), the single models (named by `name`, the report's one display name
 * per model), and the Pareto frontier over them as {@link FRONTIER_LINE} says.
 */
export function frontierFigure(
  costs: NonNullable<ReportData["costs"]>,
  name: (model: string, dataset?: string) => string = (m) => m,
): Figure {
  const policyPoints = costs.policies.flatMap((p) => p.points.map((pt, i) => ({ ...pt, policy: p.name, i })));
  const singles = costs.singles.map((s) => ({ ...s, name: name(s.name, costs.dataset), policy: "single model" }));
  const all = [
    ...policyPoints.map((p) => ({ ...p, name: `${p.policy}#${p.i}` })),
    ...(FRONTIER_LINE.includesSingles ? singles : []),
  ];
  const onFrontier = new Set(paretoFrontier(all));
  const frontier = all.filter((p) => onFrontier.has(p.name)).sort((a, b) => a.cost - b.cost);
  const unit = costs.per === "run" ? "USD per run" : "USD per query";
  const title = `Cost-accuracy frontier (${costs.source})`;
  const width = 560;
  const height = 360;
  const { axes, labels } = frontierLabels(policyPoints, singles, width, height);
  const hidden = singles.length - labels.length;
  return {
    id: "frontier",
    title,
    caption:
      `Mean cost (${unit}, log scale) against ${costs.per === "run" ? "run success" : "accuracy"}: each coloured ` +
      `line is one policy as its cost weight varies, grey squares are single models; ${frontierLineText()}. ` +
      `Up and to the left is better.${hidden > 0 ? ` ${hidden} single-model labels that would overlap are left out (hover for the name).` : ""}`,
    spec: {
      ...BASE,
      title,
      width,
      height,
      layer: [
        {
          data: { values: policyPoints },
          mark: { type: "line", point: { size: 20 } },
          encoding: {
            x: { field: "cost", type: "quantitative" },
            y: { field: "accuracy", type: "quantitative" },
            color: { field: "policy", type: "nominal", title: "policy", legend: { symbolType: "stroke" } },
            order: { field: "cost" },
          },
        },
        {
          data: { values: frontier },
          mark: { type: "line", interpolate: FRONTIER_LINE.interpolate, color: "black", strokeWidth: 1 },
          encoding: { x: { field: "cost", type: "quantitative" }, y: { field: "accuracy", type: "quantitative" } },
        },
        {
          data: { values: singles },
          mark: { type: "square", size: 60, color: "#777" },
          encoding: {
            x: { field: "cost", type: "quantitative" },
            y: { field: "accuracy", type: "quantitative" },
            tooltip: [{ field: "name" }, { field: "cost", format: ".6f" }, { field: "accuracy", format: ".3f" }],
          },
        },
        ...labelLayers(labels, { fontSize: LABEL_FONT, color: "#444" }),
      ],
      encoding: {
        x: {
          title: `mean cost (${unit}, log scale)`,
          scale: { type: "log", domain: [...axes.x.domain], nice: false },
        },
        y: {
          title: costs.per === "run" ? "run success rate" : "accuracy (share correct)",
          scale: { domain: [...axes.y.domain], nice: false, zero: false },
        },
      },
    },
  };
}
