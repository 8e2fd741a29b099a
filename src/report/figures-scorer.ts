/** The ability map: a clustered heatmap of the models' ability vectors and their 2-D PCA projection. */
import type { Figure, ReportData } from "./types.js";
import { clusterOrder, pca2 } from "./stats.js";

/** Vega-Lite settings shared by every figure. */
export const BASE = {
  $schema: "https://vega.github.io/schema/vega-lite/v6.json",
  background: "white",
  config: { legend: { labelLimit: 280 } },
} as const;

/** Model labels: long ids cut in the middle (the "@dataset" suffix that tells rows apart stays), kept unique. */
export function modelLabels(ids: readonly string[], max = 40): string[] {
  const seen = new Set<string>();
  return ids.map((id) => {
    let label =
      id.length > max ? `${id.slice(0, Math.ceil(max / 2) - 1)}…${id.slice(id.length - Math.floor(max / 2))}` : id;
    for (let k = 2; seen.has(label); k++) label = `${label} (${k})`;
    seen.add(label);
    return label;
  });
}

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

/** The models' abilities projected on their first two principal components, each point labelled. */
export function abilityProjection(data: ReportData): Figure {
  const proj = pca2(data.abilities.map((m) => m.ability));
  const labels = modelLabels(data.abilities.map((m) => m.id));
  const values = data.abilities.map((m, i) => ({
    model: labels[i]!,
    source: m.sources?.join(", ") ?? "unknown",
    pc1: proj.points[i]![0],
    pc2: proj.points[i]![1],
  }));
  const pct = (x: number) => `${(100 * x).toFixed(0)}% of variance`;
  const title = "Ability map: 2-D projection of the models' abilities";
  return {
    id: "ability-projection",
    title,
    caption:
      "Principal-component projection of the ability vectors (theta, logits): models close together succeed and fail " +
      "on the same kinds of prompts (colour: the datasets that labelled each model); the axes keep the share of the variance shown in their titles.",
    spec: {
      ...BASE,
      title,
      width: 520,
      height: 380,
      data: { values },
      layer: [
        {
          mark: { type: "point", filled: true, size: 60 },
          encoding: { color: { field: "source", type: "nominal", title: "trained on (dataset)" } },
        },
        { mark: { type: "text", align: "left", dx: 6, dy: -4, fontSize: 10 }, encoding: { text: { field: "model" } } },
      ],
      encoding: {
        x: {
          field: "pc1",
          type: "quantitative",
          title: `first principal component (logits; ${pct(proj.explained[0])})`,
        },
        y: {
          field: "pc2",
          type: "quantitative",
          title: `second principal component (logits; ${pct(proj.explained[1])})`,
        },
        tooltip: [{ field: "model" }],
      },
    },
  };
}
