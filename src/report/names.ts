/**
 * One display name and one colour per model across every figure of a report. Inputs name a model in different ways
 * (a catalog id in the ability map and a store's events; a dataset's own name in an eval result or a router's model
 * keys, which the catalog lists as aliases), so every figure names a model through {@link modelNamer} and colours it
 * through {@link modelColourScale}.
 */
import type { ReportData } from "./types.js";

/** Tableau 10, Vega's default categorical scheme, spelled out so a model's colour is fixed by its name. */
export const MODEL_PALETTE = [
  "#4c78a8",
  "#f58518",
  "#e45756",
  "#72b7b2",
  "#54a24b",
  "#eeca3b",
  "#b279a2",
  "#ff9da6",
  "#9d755d",
  "#bab0ac",
] as const;

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

/**
 * The display name of any model name an input uses: a catalog id or alias resolves to that catalog row's label (as
 * the ability map shows it); `dataset` (the input's dataset) is tried first as the "@dataset" suffix the catalog gives
 * rows trained on several datasets, so RouterBench's "mistralai/mixtral-8x7b-chat" is RouterBench's Mixtral row.
 * Names the catalog does not know are shown as they are.
 *
 * @example
 * ```ts
 * const name = modelNamer([{ id: "mixtral-8x7b-instruct-v0.1", aliases: ["mistralai/mixtral-8x7b-chat"], ability: [0] }]);
 * name("mistralai/mixtral-8x7b-chat"); // "mixtral-8x7b-instruct-v0.1"
 * ```
 */
export function modelNamer(abilities: ReportData["abilities"]): (name: string, dataset?: string) => string {
  const labels = modelLabels(abilities.map((m) => m.id));
  const byName = new Map<string, string>();
  abilities.forEach((m, i) => {
    for (const alias of m.aliases ?? []) if (!byName.has(alias)) byName.set(alias, labels[i]!);
  });
  // ids win over aliases: an id is that row's own name
  abilities.forEach((m, i) => byName.set(m.id, labels[i]!));
  return (name, dataset) => (dataset && byName.get(`${name}@${dataset}`)) || byName.get(name) || name;
}

/**
 * The colour scale of a `model` field: the given names (display names) sorted, each with a fixed palette colour, so
 * a model has the same colour in every figure that lists it and the legend's swatches are the marks' colours.
 */
export function modelColourScale(names: Iterable<string>): { domain: string[]; range: string[] } {
  const domain = [...new Set(names)].sort();
  return { domain, range: domain.map((_, i) => MODEL_PALETTE[i % MODEL_PALETTE.length]!) };
}

/** The part of `scale` for the given names (each keeps its colour), so a figure's legend lists only its own models. */
export function colourScaleFor(
  scale: { domain: readonly string[]; range: readonly string[] },
  names: Iterable<string>,
): { domain: string[]; range: string[] } {
  const domain = [...new Set(names)].filter((n) => scale.domain.includes(n)).sort();
  return { domain, range: domain.map((n) => scale.range[scale.domain.indexOf(n)]!) };
}
