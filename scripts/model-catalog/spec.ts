/**
 * The hand-written part of the model catalog: each model's id, aliases, provider, family, price and the evidence its
 * prior ability comes from. `scripts/build-model-catalog.ts` turns it, with the datasets under the data root and the
 * shipped scorers, into `src/scorer/model-catalog-data.ts`. Method and sources: docs/catalog.md.
 *
 * Prices: USD per 1M tokens (input, cached input, output). `list`: the provider's published list price for the API
 * model (standard tier, short context, as of the catalog's date); `approx`: a typical hosted price not checked against
 * a provider page (open-weight models are served by many hosts at different prices), or a price assumed from the
 * model's tier. Pass your own `price` for live use.
 */

/** A published result a prior is read from. */
export interface PublishedScore {
  /** Benchmark and setting, e.g. "MMLU (0-shot CoT)". */
  readonly benchmark: "MMLU";
  /** Score in percent. */
  readonly score: number;
  /** Where it is published (a repository file or page, and the row). */
  readonly source: string;
}

export type Evidence =
  /** A published MMLU score on the scale of openai/simple-evals (0-shot CoT). */
  | { readonly kind: "published"; readonly published: PublishedScore }
  /** A column of terminal-bench-2-32models. */
  | { readonly kind: "terminal-bench"; readonly column: string }
  /** No data: the family and price-tier rule. */
  | { readonly kind: "family-tier" };

export interface SpecPrice {
  readonly inputPer1M: number;
  readonly cachedInputPer1M?: number;
  readonly outputPer1M: number;
  readonly status: "list" | "approx";
}

export interface SpecModel {
  readonly id: string;
  readonly provider: string;
  /** Model line within the provider, e.g. "claude-sonnet"; the family rule pools models of a provider. */
  readonly family: string;
  /** Month of first release (YYYY-MM, approximate): a covariate of the family and price-tier rule. */
  readonly released: string;
  readonly aliases?: readonly string[];
  readonly price: SpecPrice;
  readonly evidence: Evidence;
  /** Retired or deprecated by its provider (still listed: old configurations name it). */
  readonly retired?: boolean;
}

const SE = "openai/simple-evals README.md, benchmark results table";
const R1 = "deepseek-ai/DeepSeek-R1 README.md, evaluation table, MMLU (Pass@1)";
const se = (score: number, row: string): PublishedScore => ({
  benchmark: "MMLU",
  score,
  source: `${SE}, row ${row}`,
});
const r1 = (score: number, column: string): PublishedScore => ({
  benchmark: "MMLU",
  score,
  source: `${R1}, column ${column}`,
});
const tb = (column: string): Evidence => ({ kind: "terminal-bench", column });
const rule: Evidence = { kind: "family-tier" };
const list = (inputPer1M: number, cachedInputPer1M: number | undefined, outputPer1M: number): SpecPrice => ({
  inputPer1M,
  ...(cachedInputPer1M !== undefined ? { cachedInputPer1M } : {}),
  outputPer1M,
  status: "list",
});
const approx = (inputPer1M: number, cachedInputPer1M: number | undefined, outputPer1M: number): SpecPrice => ({
  ...list(inputPer1M, cachedInputPer1M, outputPer1M),
  status: "approx",
});

/**
 * The dataset whose rows a new model is placed among: RouterBench's, where the scorer's API chat models are (GPT-4,
 * GPT-3.5, Claude 1/2/Instant, hosted Mixtral/Mistral/Llama-2 chat). The scorer's rows are trained per dataset and
 * carry each dataset's offset; placed here, a new model compares with gpt-4-1106-preview as their MMLU scores say.
 */
export const PLACEMENT_DATASET = "routerbench-subset-11models";

/**
 * The anchors that put published MMLU scores on the scorer's scale: rows of the pretrained scorer with a score in
 * openai/simple-evals. Gemini 1.5 Pro/Flash are in both, but simple-evals reports the original 1.5 releases and the
 * scorer was trained on the -002 versions, so they are not anchors.
 */
export const MMLU_ANCHORS: readonly { readonly row: string; readonly published: PublishedScore }[] = [
  { row: "gpt-4-1106-preview", published: se(84.7, "gpt-4-1106-preview") },
  { row: "Meta-Llama-3_1-70B-Instruct", published: se(82.0, "Llama 3.1 70b") },
  { row: "Meta-Llama-3_1-8B-Instruct", published: se(68.4, "Llama 3.1 8b") },
];

/**
 * How terminal-bench abilities are put on the MMLU scale (no model is in both): each GPT-5 tier is taken to be as
 * strong as the tier it succeeded in OpenAI's API line-up, whose MMLU simple-evals publishes (mean-sigma linking on
 * these pairs). An assumption, not a measurement: docs/catalog.md states it and its uncertainty.
 */
export const TERMINAL_BENCH_LINKS: readonly { readonly column: string; readonly predecessor: string }[] = [
  { column: "gpt-5", predecessor: "o3" },
  { column: "gpt-5-mini", predecessor: "o4-mini" },
  { column: "gpt-5-nano", predecessor: "gpt-4.1-nano" },
];

/**
 * simple-evals' MMLU of the three gpt-4o snapshots (2024-05-13, 2024-08-06, 2024-11-20): their spread is the
 * uncertainty of a published score as a prior (one model name, several releases and settings).
 */
export const SNAPSHOT_SPREAD: readonly PublishedScore[] = [
  se(87.2, "gpt-4o-2024-05-13"),
  se(88.7, "gpt-4o-2024-08-06"),
  se(85.7, "gpt-4o-2024-11-20"),
];

export const MODELS: readonly SpecModel[] = [
  // OpenAI
  {
    id: "gpt-4o",
    released: "2024-05",
    provider: "openai",
    family: "gpt-4o",
    aliases: ["gpt-4o-2024-08-06", "gpt-4o-2024-11-20"],
    price: list(2.5, 1.25, 10),
    evidence: { kind: "published", published: se(88.7, "gpt-4o-2024-08-06") },
  },
  {
    id: "gpt-4o-mini",
    released: "2024-07",
    provider: "openai",
    family: "gpt-4o",
    aliases: ["gpt-4o-mini-2024-07-18"],
    price: list(0.15, 0.075, 0.6),
    evidence: { kind: "published", published: se(82.0, "gpt-4o-mini-2024-07-18") },
  },
  {
    id: "gpt-4.1",
    released: "2025-04",
    provider: "openai",
    family: "gpt-4.1",
    aliases: ["gpt-4.1-2025-04-14"],
    price: list(2, 0.5, 8),
    evidence: { kind: "published", published: se(90.2, "gpt-4.1-2025-04-14") },
  },
  {
    id: "gpt-4.1-mini",
    released: "2025-04",
    provider: "openai",
    family: "gpt-4.1",
    aliases: ["gpt-4.1-mini-2025-04-14"],
    price: list(0.4, 0.1, 1.6),
    evidence: { kind: "published", published: se(87.5, "gpt-4.1-mini-2025-04-14") },
  },
  {
    id: "gpt-4.1-nano",
    released: "2025-04",
    provider: "openai",
    family: "gpt-4.1",
    aliases: ["gpt-4.1-nano-2025-04-14"],
    price: list(0.1, 0.025, 0.4),
    evidence: { kind: "published", published: se(80.1, "gpt-4.1-nano-2025-04-14") },
  },
  {
    id: "o1",
    released: "2024-12",
    provider: "openai",
    family: "o-series",
    aliases: ["o1-2024-12-17"],
    price: list(15, 7.5, 60),
    evidence: { kind: "published", published: se(91.8, "o1") },
  },
  {
    id: "o1-mini",
    released: "2024-09",
    provider: "openai",
    family: "o-series",
    aliases: ["o1-mini-2024-09-12"],
    price: list(1.1, 0.55, 4.4),
    evidence: { kind: "published", published: se(85.2, "o1-mini") },
    retired: true,
  },
  {
    id: "o3-mini",
    released: "2025-01",
    provider: "openai",
    family: "o-series",
    aliases: ["o3-mini-2025-01-31"],
    price: list(1.1, 0.55, 4.4),
    evidence: { kind: "published", published: se(85.9, "o3-mini") },
  },
  {
    id: "o3",
    released: "2025-04",
    provider: "openai",
    family: "o-series",
    aliases: ["o3-2025-04-16"],
    price: list(2, 0.5, 8),
    evidence: { kind: "published", published: se(92.9, "o3") },
  },
  {
    id: "o4-mini",
    released: "2025-04",
    provider: "openai",
    family: "o-series",
    aliases: ["o4-mini-2025-04-16"],
    price: list(1.1, 0.275, 4.4),
    evidence: { kind: "published", published: se(90.0, "o4-mini") },
  },
  {
    id: "gpt-5",
    released: "2025-08",
    provider: "openai",
    family: "gpt-5",
    aliases: ["gpt-5-2025-08-07", "gpt-5-chat-latest"],
    price: list(1.25, 0.125, 10),
    evidence: tb("gpt-5"),
  },
  {
    id: "gpt-5-mini",
    released: "2025-08",
    provider: "openai",
    family: "gpt-5",
    aliases: ["gpt-5-mini-2025-08-07"],
    price: list(0.25, 0.025, 2),
    evidence: tb("gpt-5-mini"),
  },
  {
    id: "gpt-5-nano",
    released: "2025-08",
    provider: "openai",
    family: "gpt-5",
    aliases: ["gpt-5-nano-2025-08-07"],
    price: list(0.05, 0.005, 0.4),
    evidence: tb("gpt-5-nano"),
  },
  {
    id: "gpt-5.1",
    released: "2025-11",
    provider: "openai",
    family: "gpt-5",
    price: list(1.25, 0.125, 10),
    evidence: tb("gpt-5.1"),
  },
  {
    id: "gpt-5.2",
    released: "2025-12",
    provider: "openai",
    family: "gpt-5",
    price: list(1.75, 0.175, 14),
    evidence: tb("gpt-5.2"),
  },
  {
    id: "gpt-5-codex",
    released: "2025-09",
    provider: "openai",
    family: "gpt-5-codex",
    price: list(1.25, 0.125, 10),
    evidence: tb("gpt-5-codex"),
  },
  {
    id: "gpt-5.1-codex",
    released: "2025-11",
    provider: "openai",
    family: "gpt-5-codex",
    price: list(1.25, 0.125, 10),
    evidence: tb("gpt-5.1-codex"),
  },
  {
    id: "gpt-5.1-codex-mini",
    released: "2025-11",
    provider: "openai",
    family: "gpt-5-codex",
    price: list(0.25, 0.025, 2),
    evidence: rule,
  },
  {
    id: "gpt-5.3-codex",
    released: "2026-02",
    provider: "openai",
    family: "gpt-5-codex",
    price: approx(1.75, 0.175, 14),
    evidence: tb("gpt-5.3-codex"),
  },
  {
    id: "gpt-oss-120b",
    released: "2025-08",
    provider: "openai",
    family: "gpt-oss",
    aliases: ["openai/gpt-oss-120b"],
    price: approx(0.15, undefined, 0.6),
    evidence: tb("gpt-oss-120b"),
  },
  {
    id: "gpt-oss-20b",
    released: "2025-08",
    provider: "openai",
    family: "gpt-oss",
    aliases: ["openai/gpt-oss-20b"],
    price: approx(0.05, undefined, 0.2),
    evidence: tb("gpt-oss-20b"),
  },
  // Anthropic
  {
    id: "claude-3-haiku",
    released: "2024-03",
    provider: "anthropic",
    family: "claude-haiku",
    aliases: ["claude-3-haiku-20240307"],
    price: list(0.25, 0.03, 1.25),
    evidence: rule,
  },
  {
    id: "claude-3-opus",
    released: "2024-03",
    provider: "anthropic",
    family: "claude-opus",
    aliases: ["claude-3-opus-20240229"],
    price: list(15, 1.5, 75),
    evidence: { kind: "published", published: se(86.8, "Claude 3 Opus (reported)") },
    retired: true,
  },
  {
    id: "claude-3-5-sonnet",
    released: "2024-06",
    provider: "anthropic",
    family: "claude-sonnet",
    aliases: ["claude-3-5-sonnet-20241022", "claude-3-5-sonnet-20240620", "claude-3.5-sonnet"],
    price: list(3, 0.3, 15),
    evidence: { kind: "published", published: se(88.3, "Claude 3.5 Sonnet (reported)") },
    retired: true,
  },
  {
    id: "claude-3-5-haiku",
    released: "2024-10",
    provider: "anthropic",
    family: "claude-haiku",
    aliases: ["claude-3-5-haiku-20241022", "claude-3.5-haiku"],
    price: list(0.8, 0.08, 4),
    evidence: rule,
  },
  {
    id: "claude-3-7-sonnet",
    released: "2025-02",
    provider: "anthropic",
    family: "claude-sonnet",
    aliases: ["claude-3-7-sonnet-20250219", "claude-3.7-sonnet"],
    price: list(3, 0.3, 15),
    evidence: rule,
  },
  {
    id: "claude-sonnet-4",
    released: "2025-05",
    provider: "anthropic",
    family: "claude-sonnet",
    aliases: ["claude-sonnet-4-20250514", "claude-sonnet-4-0", "claude-4-sonnet"],
    price: list(3, 0.3, 15),
    evidence: rule,
  },
  {
    id: "claude-opus-4",
    released: "2025-05",
    provider: "anthropic",
    family: "claude-opus",
    aliases: ["claude-opus-4-20250514", "claude-opus-4-0", "claude-4-opus"],
    price: list(15, 1.5, 75),
    evidence: rule,
  },
  {
    id: "claude-opus-4-1",
    released: "2025-08",
    provider: "anthropic",
    family: "claude-opus",
    aliases: ["claude-opus-4-1-20250805", "claude-opus-4.1"],
    price: list(15, 1.5, 75),
    evidence: tb("claude-opus-4-1"),
  },
  {
    id: "claude-sonnet-4-5",
    released: "2025-09",
    provider: "anthropic",
    family: "claude-sonnet",
    aliases: ["claude-sonnet-4-5-20250929", "claude-sonnet-4.5", "claude-4.5-sonnet"],
    price: list(3, 0.3, 15),
    evidence: tb("claude-sonnet-4-5"),
  },
  {
    id: "claude-haiku-4-5",
    released: "2025-10",
    provider: "anthropic",
    family: "claude-haiku",
    aliases: ["claude-haiku-4-5-20251001", "claude-haiku-4.5", "claude-4.5-haiku"],
    price: list(1, 0.1, 5),
    evidence: tb("claude-haiku-4-5"),
  },
  {
    id: "claude-opus-4-5",
    released: "2025-11",
    provider: "anthropic",
    family: "claude-opus",
    aliases: ["claude-opus-4-5-20251101", "claude-opus-4.5", "claude-4.5-opus"],
    price: list(5, 0.5, 25),
    evidence: tb("claude-opus-4-5"),
  },
  {
    id: "claude-opus-4-6",
    released: "2026-02",
    provider: "anthropic",
    family: "claude-opus",
    aliases: ["claude-opus-4.6", "claude-4.6-opus"],
    price: approx(5, 0.5, 25),
    evidence: tb("claude-opus-4-6"),
  },
  {
    id: "claude-sonnet-4-6",
    released: "2026-02",
    provider: "anthropic",
    family: "claude-sonnet",
    aliases: ["claude-sonnet-4.6", "claude-4.6-sonnet"],
    price: approx(3, 0.3, 15),
    evidence: rule,
  },
  // Google
  {
    id: "gemini-2.0-flash",
    released: "2025-02",
    provider: "google",
    family: "gemini-flash",
    aliases: ["gemini-2.0-flash-001"],
    price: list(0.1, 0.025, 0.4),
    evidence: rule,
  },
  {
    id: "gemini-2.5-pro",
    released: "2025-06",
    provider: "google",
    family: "gemini-pro",
    aliases: ["gemini-2.5-pro-preview-06-05"],
    price: approx(1.25, 0.125, 10),
    evidence: tb("gemini-2.5-pro"),
  },
  {
    id: "gemini-2.5-flash",
    released: "2025-06",
    provider: "google",
    family: "gemini-flash",
    aliases: ["gemini-2.5-flash-preview-09-2025"],
    price: approx(0.3, 0.03, 2.5),
    evidence: tb("gemini-2.5-flash"),
  },
  {
    id: "gemini-2.5-flash-lite",
    released: "2025-07",
    provider: "google",
    family: "gemini-flash",
    price: approx(0.1, 0.01, 0.4),
    evidence: rule,
  },
  {
    id: "gemini-3-pro",
    released: "2025-11",
    provider: "google",
    family: "gemini-pro",
    aliases: ["gemini-3-pro-preview"],
    price: approx(2, 0.2, 12),
    evidence: tb("gemini-3-pro"),
  },
  {
    id: "gemini-3-flash",
    released: "2025-12",
    provider: "google",
    family: "gemini-flash",
    aliases: ["gemini-3-flash-preview"],
    price: approx(0.5, 0.05, 3),
    evidence: tb("gemini-3-flash"),
  },
  // Meta Llama (open weights: typical hosted prices)
  {
    id: "llama-3.1-8b-instruct",
    released: "2024-07",
    provider: "meta",
    family: "llama",
    aliases: ["meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Meta-Llama-3.1-8B-Instruct", "llama3.1-8b"],
    price: approx(0.18, undefined, 0.18),
    evidence: { kind: "published", published: se(68.4, "Llama 3.1 8b") },
  },
  {
    id: "llama-3.1-70b-instruct",
    released: "2024-07",
    provider: "meta",
    family: "llama",
    aliases: ["meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Meta-Llama-3.1-70B-Instruct", "llama3.1-70b"],
    price: approx(0.88, undefined, 0.88),
    evidence: { kind: "published", published: se(82.0, "Llama 3.1 70b") },
  },
  {
    id: "llama-3.1-405b-instruct",
    released: "2024-07",
    provider: "meta",
    family: "llama",
    aliases: ["meta-llama/Llama-3.1-405B-Instruct", "meta-llama/Meta-Llama-3.1-405B-Instruct"],
    price: approx(3.5, undefined, 3.5),
    evidence: { kind: "published", published: se(88.6, "Llama 3.1 405b") },
  },
  {
    id: "llama-3.3-70b-instruct",
    released: "2024-12",
    provider: "meta",
    family: "llama",
    aliases: ["meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b-versatile", "llama3.3-70b"],
    price: approx(0.88, undefined, 0.88),
    evidence: rule,
  },
  {
    id: "llama-4-scout",
    released: "2025-04",
    provider: "meta",
    family: "llama",
    aliases: ["meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama-4-scout-17b-16e-instruct"],
    price: approx(0.18, undefined, 0.59),
    evidence: rule,
  },
  {
    id: "llama-4-maverick",
    released: "2025-04",
    provider: "meta",
    family: "llama",
    aliases: ["meta-llama/Llama-4-Maverick-17B-128E-Instruct", "llama-4-maverick-17b-128e-instruct"],
    price: approx(0.27, undefined, 0.85),
    evidence: rule,
  },
  // Mistral
  {
    id: "mistral-large",
    released: "2024-11",
    provider: "mistralai",
    family: "mistral",
    aliases: ["mistral-large-2411", "mistral-large-latest"],
    price: approx(2, undefined, 6),
    evidence: rule,
  },
  {
    id: "mistral-medium-3",
    released: "2025-05",
    provider: "mistralai",
    family: "mistral",
    aliases: ["mistral-medium-2505", "mistral-medium-latest"],
    price: approx(0.4, undefined, 2),
    evidence: rule,
  },
  {
    id: "mistral-small",
    released: "2025-03",
    provider: "mistralai",
    family: "mistral",
    aliases: ["mistral-small-2503", "mistral-small-latest"],
    price: approx(0.1, undefined, 0.3),
    evidence: rule,
  },
  {
    id: "codestral",
    released: "2025-01",
    provider: "mistralai",
    family: "mistral",
    aliases: ["codestral-2501", "codestral-latest"],
    price: approx(0.3, undefined, 0.9),
    evidence: rule,
  },
  // Qwen
  {
    id: "qwen3-235b-a22b",
    released: "2025-04",
    provider: "qwen",
    family: "qwen3",
    aliases: ["Qwen/Qwen3-235B-A22B", "qwen3-235b-a22b-instruct-2507"],
    price: approx(0.2, undefined, 0.6),
    evidence: rule,
  },
  {
    id: "qwen3-32b",
    released: "2025-04",
    provider: "qwen",
    family: "qwen3",
    aliases: ["Qwen/Qwen3-32B"],
    price: approx(0.1, undefined, 0.3),
    evidence: rule,
  },
  {
    id: "qwen3-coder-480b",
    released: "2025-07",
    provider: "qwen",
    family: "qwen3",
    aliases: ["Qwen/Qwen3-Coder-480B-A35B-Instruct", "qwen3-coder-480b-a35b-instruct", "qwen3-coder"],
    price: approx(2, undefined, 2),
    evidence: tb("qwen3-coder-480b"),
  },
  // DeepSeek
  {
    id: "deepseek-v3",
    released: "2024-12",
    provider: "deepseek",
    family: "deepseek",
    aliases: ["deepseek-ai/DeepSeek-V3", "deepseek-v3-0324"],
    price: approx(0.27, 0.07, 1.1),
    evidence: { kind: "published", published: r1(88.5, "DeepSeek V3") },
  },
  {
    id: "deepseek-r1",
    released: "2025-01",
    provider: "deepseek",
    family: "deepseek",
    aliases: ["deepseek-ai/DeepSeek-R1", "deepseek-r1-0528"],
    price: approx(0.55, 0.14, 2.19),
    evidence: { kind: "published", published: r1(90.8, "DeepSeek R1") },
  },
  {
    id: "deepseek-v3.2",
    released: "2025-12",
    provider: "deepseek",
    family: "deepseek",
    aliases: ["deepseek-ai/DeepSeek-V3.2", "deepseek-chat", "deepseek-reasoner"],
    price: list(0.28, 0.028, 0.42),
    evidence: tb("deepseek-v3.2"),
  },
  // Moonshot Kimi
  {
    id: "kimi-k2-instruct",
    released: "2025-07",
    provider: "moonshotai",
    family: "kimi",
    aliases: ["moonshotai/Kimi-K2-Instruct", "kimi-k2", "kimi-k2-0905-preview"],
    price: approx(1, undefined, 3),
    evidence: tb("kimi-k2-instruct"),
  },
  {
    id: "kimi-k2-thinking",
    released: "2025-11",
    provider: "moonshotai",
    family: "kimi",
    aliases: ["moonshotai/Kimi-K2-Thinking"],
    price: approx(0.6, undefined, 2.5),
    evidence: tb("kimi-k2-thinking"),
  },
  {
    id: "kimi-k2.5",
    released: "2026-01",
    provider: "moonshotai",
    family: "kimi",
    aliases: ["moonshotai/Kimi-K2.5"],
    price: approx(0.6, undefined, 3),
    evidence: tb("kimi-k2.5"),
  },
  // Zhipu GLM
  {
    id: "glm-4.5",
    released: "2025-07",
    provider: "zai",
    family: "glm",
    aliases: ["zai-org/GLM-4.5"],
    price: approx(0.6, undefined, 2.2),
    evidence: rule,
  },
  {
    id: "glm-4.6",
    released: "2025-09",
    provider: "zai",
    family: "glm",
    aliases: ["zai-org/GLM-4.6"],
    price: approx(0.6, undefined, 2.2),
    evidence: tb("glm-4.6"),
  },
  {
    id: "glm-4.7",
    released: "2025-12",
    provider: "zai",
    family: "glm",
    aliases: ["zai-org/GLM-4.7"],
    price: approx(0.6, undefined, 2.2),
    evidence: tb("glm-4.7"),
  },
  {
    id: "glm-5",
    released: "2026-02",
    provider: "zai",
    family: "glm",
    aliases: ["zai-org/GLM-5"],
    price: approx(1, undefined, 3.2),
    evidence: tb("glm-5"),
  },
  // MiniMax
  {
    id: "minimax-m2",
    released: "2025-10",
    provider: "minimax",
    family: "minimax",
    price: approx(0.3, undefined, 1.2),
    evidence: tb("minimax-m2"),
  },
  {
    id: "minimax-m2.1",
    released: "2025-12",
    provider: "minimax",
    family: "minimax",
    price: approx(0.3, undefined, 1.2),
    evidence: tb("minimax-m2.1"),
  },
  {
    id: "minimax-m2.5",
    released: "2026-02",
    provider: "minimax",
    family: "minimax",
    price: approx(0.3, undefined, 1.2),
    evidence: tb("minimax-m2.5"),
  },
  // xAI Grok
  {
    id: "grok-2",
    released: "2024-08",
    provider: "xai",
    family: "grok",
    aliases: ["grok-2-1212"],
    price: list(2, undefined, 10),
    evidence: { kind: "published", published: se(87.5, "Grok 2 (reported)") },
    retired: true,
  },
  {
    id: "grok-3",
    released: "2025-02",
    provider: "xai",
    family: "grok",
    aliases: ["grok-3-beta"],
    price: list(3, 0.75, 15),
    evidence: rule,
  },
  {
    id: "grok-3-mini",
    released: "2025-02",
    provider: "xai",
    family: "grok",
    aliases: ["grok-3-mini-beta"],
    price: list(0.3, 0.075, 0.5),
    evidence: rule,
  },
  {
    id: "grok-4",
    released: "2025-07",
    provider: "xai",
    family: "grok",
    aliases: ["grok-4-0709"],
    price: list(3, 0.75, 15),
    evidence: tb("grok-4"),
  },
  {
    id: "grok-code-fast-1",
    released: "2025-08",
    provider: "xai",
    family: "grok",
    price: list(0.2, 0.02, 1.5),
    evidence: tb("grok-code-fast-1"),
  },
];
