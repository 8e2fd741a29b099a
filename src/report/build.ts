/** Builds every figure the given data allows, and names the input that would add each one left out. */
import type { Figure, OmittedFigure, ReportData, ReportFigures } from "./types.js";
import { abilityHeatmap, abilityProjection } from "./figures-scorer.js";
import { difficultyFigure, frontierFigure, reliabilityFigure } from "./figures-eval.js";
import { learningCurveFigure, learningShareFigure, routingShareFigure } from "./figures-runs.js";
import { colourScaleFor, modelColourScale, modelNamer } from "./names.js";
import { decisionCostFigure, hasDecisionCosts } from "./figures-decisions.js";

const DATASET_INPUT = "--dataset <name|folder> (a labelled dataset; its test split is scored)";
const STORE_INPUT = "--store <FileStore folder|redis://url> (the online learner's feedback)";

/**
 * Every figure of the report, in page order. A figure whose input is missing is listed in `omitted` with the flag
 * that would add it, so nothing is dropped silently.
 *
 * @example
 * ```ts
 * const { figures, omitted } = buildFigures({ scorerName: "demo", abilities: [{ id: "a", ability: [0.1, -0.2] }] });
 * console.log(figures.map((f) => f.id), omitted.map((o) => o.needs));
 * ```
 */
export function buildFigures(raw: ReportData): ReportFigures {
  const { data, name } = withDisplayNames(raw);
  const colours = modelColours(data);
  const coloursOf = (rows: readonly { model: string }[]) =>
    colourScaleFor(
      colours,
      rows.map((r) => r.model),
    );
  const figures: Figure[] = [];
  const omitted: OmittedFigure[] = [];
  const add = (id: string, title: string, make: (() => Figure) | undefined, needs: string) => {
    if (make) figures.push(make());
    else omitted.push({ id, title, needs });
  };
  const abilities = data.abilities.length >= 2 ? data : undefined;
  const scorerNeeds = "--model <scorer-dir> (a scorer with at least two models)";
  add(
    "ability-heatmap",
    "Ability map: models by skill dimension",
    abilities && (() => abilityHeatmap(data)),
    scorerNeeds,
  );
  add("ability-projection", "Ability map: 2-D projection", abilities && (() => abilityProjection(data)), scorerNeeds);
  const items = data.items && data.items.beta.length > 0 ? data.items : undefined;
  add(
    "difficulty",
    "Item difficulty against observed accuracy",
    items && (() => difficultyFigure(items)),
    DATASET_INPUT,
  );
  const rel = data.reliability?.filter((r) => r.p.length > 0);
  add(
    "reliability",
    "Reliability diagram",
    rel && rel.length > 0 ? () => reliabilityFigure(rel) : undefined,
    `${DATASET_INPUT} or --decisions <file> with p and outcome per step`,
  );
  const costs =
    data.costs && (data.costs.singles.length > 0 || data.costs.policies.length > 0) ? data.costs : undefined;
  add(
    "frontier",
    "Cost-accuracy frontier",
    costs && (() => frontierFigure(costs, name)),
    "--eval <file> (irt-router eval --json) or --agent <file> (npm run bench:agent -- --json)",
  );
  const decisions = data.decisions && data.decisions.rows.length > 0 ? data.decisions : undefined;
  add(
    "routing-share",
    "Routing share by model and by category",
    decisions && (() => routingShareFigure(decisions, coloursOf(decisions.rows))),
    "--decisions <file> (one routing decision per line: model and category)",
  );
  add(
    "decision-costs",
    "Expected and realized cost per call, by model",
    decisions && hasDecisionCosts(decisions.rows) ? () => decisionCostFigure(decisions) : undefined,
    "--decisions <file> written by a router's decisionSink (decisionLogFile from irt-router/adapters)",
  );
  const learning = data.learning && data.learning.curves.length > 0 ? data.learning : undefined;
  add(
    "learning-ability",
    "Learning curves",
    learning && (() => learningCurveFigure(learning, coloursOf(learning.curves))),
    STORE_INPUT,
  );
  add(
    "learning-share",
    "Routing share over time",
    learning && (() => learningShareFigure(learning, coloursOf(learning.share))),
    STORE_INPUT,
  );
  return { figures, omitted };
}

/**
 * The data with every model named by its one display name (see modelNamer): the router's and the dataset's names in
 * the decisions and the store's events become the catalog labels the ability map shows. Costs keep their raw names;
 * the frontier names its single models with `name` and the costs' dataset.
 */
function withDisplayNames(data: ReportData): {
  data: ReportData;
  name: (model: string, dataset?: string) => string;
} {
  const name = modelNamer(data.abilities);
  return {
    name,
    data: {
      ...data,
      ...(data.decisions && {
        decisions: { ...data.decisions, rows: data.decisions.rows.map((r) => ({ ...r, model: name(r.model) })) },
      }),
      ...(data.learning && {
        learning: {
          ...data.learning,
          curves: data.learning.curves.map((c) => ({ ...c, model: name(c.model) })),
          share: data.learning.share.map((c) => ({ ...c, model: name(c.model) })),
        },
      }),
    },
  };
}

/** One colour per model across the routing-share and learning figures. */
function modelColours(data: ReportData): { domain: string[]; range: string[] } {
  return modelColourScale([
    ...(data.decisions?.rows.map((r) => r.model) ?? []),
    ...(data.learning?.curves.map((c) => c.model) ?? []),
    ...(data.learning?.share.map((c) => c.model) ?? []),
  ]);
}
