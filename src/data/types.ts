/** One query of a correctness dataset. */
export interface DatasetItem {
  /** Item id as a string (the first column of the source matrix). */
  readonly id: string;
  /** The text a router would see at routing time (built per dataset; see docs/data.md). */
  readonly text: string;
  /** Optional category (subject, task); used for per-category breakdowns only, never as a model input. */
  readonly category?: string;
  /**
   * Other columns of the source row kept for reference (e.g. MMLU-Pro `src`, RouteLLM `subject`, extra
   * columns of a your-own-data `items.csv`). Never a model input.
   */
  readonly meta?: Readonly<Record<string, string>>;
}

/** Per-model list prices (USD per 1M tokens). */
export interface ModelPrice {
  readonly inputPer1M: number;
  readonly outputPer1M: number;
  /**
   * Price of an input token served from the provider's prompt cache (at most `inputPer1M`). Absent: the family
   * default of `cachedInputRule` (src/policy/cached-input.ts) where a price is resolved for routing, else no discount.
   */
  readonly cachedInputPer1M?: number;
}

/**
 * The common in-memory form every dataset loads into.
 *
 * Labels are sparse in CSR layout: the observations of item `i` are entries
 * `labels.offsets[i] .. labels.offsets[i+1]-1` of `labels.model` (model index) and
 * `labels.y` (correctness in [0, 1]; graded values allowed). An unobserved (model, item)
 * cell simply has no entry: it is never stored as 0.
 */
export interface CorrectnessDataset {
  /** Dataset name; `D` in the split rule (folder name). */
  readonly name: string;
  readonly models: readonly string[];
  readonly items: readonly DatasetItem[];
  readonly labels: {
    readonly offsets: Int32Array; // length items.length + 1
    readonly model: Int32Array;
    readonly y: Float32Array;
    /** Recorded USD cost of that call, NaN where unknown; absent when the dataset has no cost. */
    readonly cost?: Float32Array;
  };
  /** Optional list prices per model id. */
  readonly prices?: Readonly<Record<string, ModelPrice>>;
  /**
   * `"binary"` when every label is 0 or 1, `"graded"` when some label lies strictly between
   * (e.g. RouterDC soft scores); absent on datasets built by hand.
   */
  readonly labelKind?: "binary" | "graded";
  /**
   * Where it was read from and a content hash: sha256 hex over the source files' bytes, the loader and
   * its options, and the text-rule version (so it changes whenever the loaded form could change).
   */
  readonly source: { readonly dir: string; readonly files: readonly string[]; readonly sha256: string };
}

export type Split = "train" | "val" | "test";
