/**
 * What the report is built from (pure data, read by adapters/report/) and what it produces: one Vega-Lite spec per
 * figure, or the reason it was left out.
 */

/** One figure: a Vega-Lite spec, a title, and a one-line caption saying how to read it. */
export interface Figure {
  /** File-name-safe id (the SVG is `<id>.svg`). */
  readonly id: string;
  readonly title: string;
  readonly caption: string;
  /** A Vega-Lite (v6) specification, data inlined. */
  readonly spec: Record<string, unknown>;
}

/** A figure that could not be drawn, and the input that would add it. */
export interface OmittedFigure {
  readonly id: string;
  readonly title: string;
  /** E.g. "give --eval <file> (the output of irt-router eval --json)". */
  readonly needs: string;
}

/** A point of a cost-accuracy curve or a single model. */
export interface CostPoint {
  readonly name: string;
  /** Mean cost per query (or per run) in USD. */
  readonly cost: number;
  readonly accuracy: number;
}

/** What the figures are built from; every field but `abilities` is optional. */
export interface ReportData {
  /** Where the abilities came from (e.g. "the pretrained scorer"). */
  readonly scorerName: string;
  /** Each model's ability vector theta and the datasets that labelled it. */
  readonly abilities: readonly {
    readonly id: string;
    readonly ability: ArrayLike<number>;
    readonly sources?: readonly string[];
    /** Other names of the model (a dataset's own name, "name@dataset"): the report shows the id's label for them. */
    readonly aliases?: readonly string[];
  }[];
  /** Cost-accuracy input: an `eval --json` result (curves per method, single models) or a `bench:agent` result. */
  readonly costs?: {
    readonly source: string;
    /** The dataset the results are on, when known: its models' names are looked up as "name@dataset" first. */
    readonly dataset?: string;
    /** "query" for eval results, "run" for agent runs. */
    readonly per: "query" | "run";
    readonly singles: readonly CostPoint[];
    /** Each policy's points (a curve over its cost weight, or a single setting). */
    readonly policies: readonly { readonly name: string; readonly points: readonly CostPoint[] }[];
  };
  /** Labelled items: the scorer's beta of each item and its observed accuracy over the dataset's models. */
  readonly items?: { readonly dataset: string; readonly beta: ArrayLike<number>; readonly accuracy: ArrayLike<number> };
  /** Predicted p and outcome pairs, per dataset. */
  readonly reliability?: readonly {
    readonly dataset: string;
    readonly p: ArrayLike<number>;
    readonly y: ArrayLike<number>;
  }[];
  /**
   * Routing decisions: the model chosen and the category (task label) of each; from a router's decision log
   * (`decisionSink`), also the expected and realized cost, the fallback and, in shadow mode, the router's choice.
   */
  readonly decisions?: {
    readonly source: string;
    readonly rows: readonly {
      model: string;
      category: string;
      expectedCostUsd?: number;
      realizedCostUsd?: number;
      fallbackFrom?: string;
      routed?: string;
      routedExpectedCostUsd?: number;
    }[];
  };
  /** Learning from a store's events. */
  readonly learning?: {
    readonly source: string;
    /** Ability along the workload's mean item direction and its posterior sd, after each checkpoint. */
    readonly curves: readonly { model: string; events: number; estimate: number; sd: number }[];
    /** Share of the events of each model in consecutive windows (window = index of the window's last event). */
    readonly share: readonly { model: string; events: number; share: number }[];
  };
}

/** The figures built and the ones left out. */
export interface ReportFigures {
  readonly figures: readonly Figure[];
  readonly omitted: readonly OmittedFigure[];
}
