import type { ModelPrice } from "../data/types.js";

/**
 * One model under its canonical id, with the other names it goes by in the datasets, its provider,
 * and a public list price (USD per 1M input/output tokens) where the provider publishes one.
 */
export interface ModelAlias {
  readonly id: string;
  readonly aliases: readonly string[];
  readonly provider?: string;
  readonly price?: ModelPrice;
}

/**
 * The alias table that joins models across the four datasets (the same model appears under different
 * column names). Only identities we are sure of are joined: a base model and its chat/instruct
 * variant are different models and stay apart (e.g. `Yi-34B` in MMLU-Pro vs `zero-one-ai/Yi-34B-Chat`
 * in RouterBench). Prices: the providers' published list prices for the API versions named here
 * (OpenAI, Anthropic, Google; Mixtral/Mistral at Together AI, RouterBench's price source);
 * absent where no list price applies (open weights run locally).
 *
 * | canonical id | mmlu-pro-29models | routerbench-subset-11models | routerdc-7models | routellm-2models |
 * |---|---|---|---|---|
 * | gpt-4-1106-preview | | gpt-4-1106-preview | | gpt-4-1106-preview |
 * | mixtral-8x7b-instruct-v0.1 | Mixtral-8x7B-Instruct-v0.1 | mistralai/mixtral-8x7b-chat | | mistralai/Mixtral-8x7B-Instruct-v0.1 |
 * | mistral-7b-v0.1 | Mistral-7B-v0.1 | | mistralai/Mistral-7B-v0.1 | |
 * | meta-llama-3-8b | Meta-Llama-3-8B | | meta-llama/Meta-Llama-3-8B | |
 */
export const MODEL_ALIASES: readonly ModelAlias[] = [
  {
    id: "gpt-4-1106-preview",
    aliases: ["openai/gpt-4-1106-preview", "gpt-4-turbo-1106"],
    provider: "openai",
    price: { inputPer1M: 10, outputPer1M: 30 },
  },
  {
    id: "gpt-3.5-turbo-1106",
    aliases: ["openai/gpt-3.5-turbo-1106"],
    provider: "openai",
    price: { inputPer1M: 1, outputPer1M: 2 },
  },
  {
    id: "claude-v1",
    aliases: ["anthropic/claude-v1"],
    provider: "anthropic",
    price: { inputPer1M: 8, outputPer1M: 24 },
  },
  {
    id: "claude-v2",
    aliases: ["anthropic/claude-v2", "claude-2"],
    provider: "anthropic",
    price: { inputPer1M: 8, outputPer1M: 24 },
  },
  {
    id: "claude-instant-v1",
    aliases: ["anthropic/claude-instant-v1", "claude-instant-1"],
    provider: "anthropic",
    price: { inputPer1M: 0.8, outputPer1M: 2.4 },
  },
  {
    id: "mixtral-8x7b-instruct-v0.1",
    aliases: ["Mixtral-8x7B-Instruct-v0.1", "mistralai/mixtral-8x7b-chat", "mistralai/Mixtral-8x7B-Instruct-v0.1"],
    provider: "mistralai",
    price: { inputPer1M: 0.6, outputPer1M: 0.6 },
  },
  { id: "mistral-7b-v0.1", aliases: ["Mistral-7B-v0.1", "mistralai/Mistral-7B-v0.1"], provider: "mistralai" },
  { id: "meta-llama-3-8b", aliases: ["Meta-Llama-3-8B", "meta-llama/Meta-Llama-3-8B"], provider: "meta" },
  { id: "mistralai/mistral-7b-chat", aliases: [], provider: "mistralai", price: { inputPer1M: 0.2, outputPer1M: 0.2 } },
  {
    id: "gemini-1.5-pro-002",
    aliases: ["google/gemini-1.5-pro-002"],
    provider: "google",
    price: { inputPer1M: 1.25, outputPer1M: 5 },
  },
  {
    id: "gemini-1.5-flash-002",
    aliases: ["google/gemini-1.5-flash-002"],
    provider: "google",
    price: { inputPer1M: 0.075, outputPer1M: 0.3 },
  },
];

/** Provider guessed from a dataset column name (`owner/model` prefix, or a known family). */
export function guessProvider(name: string): string | undefined {
  const slash = name.indexOf("/");
  if (slash > 0) return name.slice(0, slash);
  const n = name.toLowerCase();
  if (n.startsWith("gpt-")) return "openai";
  if (n.startsWith("claude")) return "anthropic";
  if (n.startsWith("gemini") || n.startsWith("gemma")) return "google";
  if (n.includes("llama")) return "meta";
  if (n.startsWith("mistral") || n.startsWith("mixtral") || n.startsWith("mathstral")) return "mistralai";
  if (n.startsWith("qwen")) return "qwen";
  if (n.startsWith("yi-")) return "01-ai";
  if (n.startsWith("phi-")) return "microsoft";
  if (n.startsWith("deepseek")) return "deepseek";
  if (n.startsWith("jamba")) return "ai21";
  if (n.startsWith("c4ai")) return "cohere";
  return undefined;
}

/** Index of the alias table by every name (canonical id and aliases, case-sensitive). */
export function aliasIndex(table: readonly ModelAlias[] = MODEL_ALIASES): Map<string, ModelAlias> {
  const out = new Map<string, ModelAlias>();
  for (const entry of table) {
    out.set(entry.id, entry);
    for (const a of entry.aliases) out.set(a, entry);
  }
  return out;
}

/** Canonical id of a dataset column name (itself when the alias table does not list it). */
export function canonicalModelId(name: string, table: readonly ModelAlias[] = MODEL_ALIASES): string {
  return aliasIndex(table).get(name)?.id ?? name;
}
