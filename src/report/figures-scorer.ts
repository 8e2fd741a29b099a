/** The ability map: a clustered heatmap of the models' ability vectors and their 2-D PCA projection. */
import type { Figure, ReportData } from "./types.js";
import { clusterOrder, pca2 } from "./stats.js";
import { labelLayers, labelRows, paddedDomain } from "./labels.js";
import { modelLabels } from "./names.js";

/** Vega-Lite settings shared by every figure. */
export const BASE = {
  $schema: "https://vega.github.io/schema/vega-lite/v6.json",
  background: "white",
  config: { legend: { labelLimit: 280 } },
} as const;

/** Heatmap of models (rows, clustered) by ability dimension (columns). */
export function abilityHeatmap(data: ReportData): Figure {
  const order = clusterOrder(data.abilities.map((m) => m.ability));
  const labels = modelLabels(data.abilities.map((m) => m.id));
  const rows = order.map((i) => ({ ...data.abilities[i]!, label: labels[i]! }));
  const values = rows.flatMap((m, rank) =>
    Array.from(m.ability, (v, dim) => ({ model: m.label, rank, dim: dim + 1, theta: v })),
  );
  const dims = data.abilities[0]?.ability.length ?? 0;
  return {
    id: "ability-heatmap",
    title: "Ability map: models by skill dimension",
    caption:
      `Each row is one of the ${rows.length} models of ${data.scorerName}, each column one of its ${dims} ability ` +
      "dimensions (theta, in logits per unit of the item's alpha); blue is above zero, red below. Rows are ordered by " +
      "average-linkage clustering, so models with similar strengths sit together.",
    spec: {
      ...BASE,
      title: "Ability map: models by skill dimension",
      width: Math.max(320, dims * 14),
      height: Math.max(160, rows.length * 14),
      data: { values },
      mark: "rect",
      encoding: {
        x: { field: "dim", type: "ordinal", title: "ability dimension (index)" },
        y: { field: "model", type: "nominal", sort: { field: "rank" }, title: "model (clustered order)" },
        color: {
          field: "theta",
          type: "quantitative",
          title: "theta (logits)",
          scale: { scheme: "redblue", domainMid: 0 },
        },
        tooltip: [{ field: "model" }, { field: "dim" }, { field: "theta", format: ".3f" }],
      },
    },
  };
}

const PROJECTION_FONT = 10;

/** The models' abilities projected on their first two principal components, each point labelled. */
export function abilityProjection(data: ReportData): Figure {
  const proj = pca2(data.abilities.map((m) => m.ability));
  const names = modelLabels(data.abilities.map((m) => m.id));
  const values = data.abilities.map((m, i) => ({
    model: names[i]!,
    source: m.sources?.join(", ") ?? "unknown",
    pc1: proj.points[i]![0],
    pc2: proj.points[i]![1],
  }));
  const pct = (x: number) => `${(100 * x).toFixed(0)}% of variance`;
  const title = "Ability map: 2-D projection of the models' abilities";
  const width = 620;
  const height = 440;
  const axes = {
    x: { domain: paddedDomain(values.map((v) => v.pc1)), pixels: width },
    y: { domain: paddedDomain(values.map((v) => v.pc2)), pixels: height },
  };
  const labels = labelRows(
    values.map((v) => ({ x: v.pc1, y: v.pc2, text: v.model })),
    axes,
    PROJECTION_FONT,
  );
  const hidden = values.length - labels.length;
  return {
    id: "ability-projection",
    title,
    caption:
      "Principal-component projection of the ability vectors (theta, logits): models close together succeed and fail " +
      "on the same kinds of prompts (colour: the datasets that labelled each model); the axes keep the share of the variance shown in their titles." +
      (hidden > 0
        ? ` ${hidden} of the ${values.length} labels would overlap and are left out (hover a point for its model).`
        : ""),
    spec: {
      ...BASE,
      title,
      width,
      height,
      layer: [
        {
          data: { values },
          mark: { type: "point", filled: true, size: 60 },
          encoding: {
            x: { field: "pc1", type: "quantitative" },
            y: { field: "pc2", type: "quantitative" },
            color: { field: "source", type: "nominal", title: "trained on (dataset)" },
            tooltip: [{ field: "model" }, { field: "source" }],
          },
        },
        ...labelLayers(labels, { fontSize: PROJECTION_FONT }),
      ],
      encoding: {
        x: {
          title: `first principal component (logits; ${pct(proj.explained[0])})`,
          scale: { domain: [...axes.x.domain], nice: false, zero: false },
        },
        y: {
          title: `second principal component (logits; ${pct(proj.explained[1])})`,
          scale: { domain: [...axes.y.domain], nice: false, zero: false },
        },
      },
    },
  };
}
