/**
 * A catalog's rows grouped by model: a model scored on several datasets has one row per dataset (per-source
 * abilities): the primary row under its own id, which is the one the router uses for that id, and `<id>@<dataset>`
 * rows for the others. Shown grouped, a reader sees one id to register and how its other rows differ.
 */
import type { CatalogEntry } from "./types.js";

/** One catalog row of a model, with its p for a query. */
export interface ModelRowScore {
  /** The row's catalog id (`<id>` for the primary row, `<id>@<dataset>` for the others). */
  readonly id: string;
  readonly p: number;
  /** The datasets the row was trained on. */
  readonly sources: readonly string[];
}

/** A model's rows: `p` is its primary row's (the id to register with the router), `others` its per-dataset rows. */
export interface ModelGroupScore {
  /** The id to register with the router. */
  readonly id: string;
  readonly p: number;
  readonly sources: readonly string[];
  /** The model's rows trained on other datasets (`<id>@<dataset>`), highest p first. */
  readonly others: readonly ModelRowScore[];
}

/**
 * Groups `scores` (one per catalog row, by row id) by model, best primary p first. A row `<id>@<dataset>` joins the
 * model `<id>` when the catalog has that row; a row whose base id has no row of its own stays a model of its own.
 *
 * @example
 * ```ts
 * const ex = await scorer.explain("What is 2+2?");
 * for (const g of groupModelScores(scorer.models, ex.scores)) console.log(g.id, g.p, g.others.length);
 * ```
 */
export function groupModelScores(
  catalog: readonly CatalogEntry[],
  scores: readonly { model: string; p: number }[],
): ModelGroupScore[] {
  const entries = new Map(catalog.map((e) => [e.id, e]));
  const rows = new Map<string, ModelRowScore[]>();
  for (const s of scores) {
    const at = s.model.indexOf("@");
    const base = at > 0 && entries.has(s.model.slice(0, at)) ? s.model.slice(0, at) : s.model;
    const row = { id: s.model, p: s.p, sources: entries.get(s.model)?.sources ?? [] };
    rows.set(base, [...(rows.get(base) ?? []), row]);
  }
  const groups = [...rows].map(([id, list]) => {
    const primary = list.find((r) => r.id === id) ?? list[0]!;
    const others = list.filter((r) => r !== primary).sort((a, b) => b.p - a.p);
    return { id, p: primary.p, sources: primary.sources, others };
  });
  return groups.sort((a, b) => b.p - a.p);
}
