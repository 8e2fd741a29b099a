/**
 * The data an agent-run replay needs, per item and model: the recorded label, the tokens a step adds to the run's
 * history, and what the step's own call costs (`npm run bench:agent`, docs/agents.md). Pure: the caller loads the
 * dataset and the billed prompts.
 */
import type { CorrectnessDataset } from "../../src/data/types.js";
import { estimateTokens } from "../../src/policy/tokens.js";
import type { AgentPrice } from "./price-types.js";

/** Answer tokens assumed where a dataset records no cost (docs/agents.md, "Answer tokens"). */
export const ESTIMATED_ANSWER_TOKENS: Readonly<Record<string, number>> = Object.freeze({
  /** A multiple-choice answer (a letter and a short justification line is not asked for: "Answer:"). */
  mmlu: 5,
  /** A grade-school maths solution written out step by step. */
  gsm8k: 150,
});
/** Answer tokens assumed for a category not in {@link ESTIMATED_ANSWER_TOKENS} on a dataset without costs. */
export const DEFAULT_ANSWER_TOKENS = 256;

/** What one step (an item answered by a model) adds and costs. */
export interface AgentWorld {
  readonly name: string;
  readonly models: readonly string[];
  readonly nItems: number;
  /** Item text: the routing text of the step (what the router embeds). */
  readonly texts: readonly string[];
  readonly categories: readonly string[];
  /** Tokens of each item's text: what its step adds to the run's history (and what the router sees). */
  readonly promptTokens: Float64Array;
  /** nItems x nModels: USD of the step's own call (its prompt and answer; RouterBench: the recorded cost). */
  readonly ownCost: Float64Array;
  /** nItems x nModels, row-major: recorded label in [0, 1], NaN where unobserved. */
  readonly y: Float64Array;
  /** nItems x nModels: tokens the model's answer adds to the history. */
  readonly answerTokens: Float64Array;
  /** Per model. */
  readonly prices: readonly AgentPrice[];
  /** How the answer tokens were obtained (printed and documented). */
  readonly answerSource: string;
}

/**
 * Builds the world of a dataset. A step's own cost is the recorded cost of its call where the dataset has one, else
 * its billed prompt and answer tokens at the list price. Answer tokens: where the dataset records a call's cost (RouterBench), the tokens
 * that cost implies beyond the billed prompt ((cost - promptTokens x input price) / output price, floored at 0, as
 * docs/cost-estimation.md does); elsewhere the per-category estimate {@link ESTIMATED_ANSWER_TOKENS} (else
 * {@link DEFAULT_ANSWER_TOKENS}).
 *
 * @param billedPrompts the full prompt of an item where it differs from its text (RouterBench), by item id
 */
export function buildAgentWorld(
  ds: CorrectnessDataset,
  prices: readonly AgentPrice[],
  billedPrompts?: ReadonlyMap<string, string>,
): AgentWorld {
  const nModels = ds.models.length;
  const nItems = ds.items.length;
  if (prices.length !== nModels) throw new RangeError(`buildAgentWorld: ${prices.length} prices for ${nModels} models`);
  const promptTokens = Float64Array.from(ds.items, (it) => estimateTokens(it.text));
  const billedTokens = billedPrompts
    ? Float64Array.from(ds.items, (it, i) =>
        billedPrompts.has(it.id) ? estimateTokens(billedPrompts.get(it.id)!) : promptTokens[i]!,
      )
    : promptTokens;
  const y = new Float64Array(nItems * nModels).fill(NaN);
  const answerTokens = new Float64Array(nItems * nModels);
  const ownCost = new Float64Array(nItems * nModels);
  let fromCost = 0;
  let estimated = 0;
  for (let i = 0; i < nItems; i++) {
    const category = ds.items[i]!.category ?? "";
    const guess = ESTIMATED_ANSWER_TOKENS[category] ?? DEFAULT_ANSWER_TOKENS;
    for (let m = 0; m < nModels; m++) {
      answerTokens[i * nModels + m] = guess;
      ownCost[i * nModels + m] = (billedTokens[i]! * prices[m]!.inputPer1M + guess * prices[m]!.outputPer1M) / 1e6;
    }
    for (let j = ds.labels.offsets[i]!; j < ds.labels.offsets[i + 1]!; j++) {
      const m = ds.labels.model[j]!;
      const k = i * nModels + m;
      y[k] = ds.labels.y[j]!;
      const cost = ds.labels.cost?.[j];
      const price = prices[m]!;
      if (cost !== undefined && Number.isFinite(cost) && price.outputPer1M > 0) {
        answerTokens[k] = Math.max(0, ((cost - (billedTokens[i]! * price.inputPer1M) / 1e6) * 1e6) / price.outputPer1M);
        ownCost[k] = cost;
        fromCost++;
      } else estimated++;
    }
  }
  const answerSource =
    fromCost > 0 && estimated === 0
      ? "implied by the recorded cost of each call"
      : fromCost > 0
        ? `implied by the recorded cost (${fromCost} calls), estimated per category elsewhere (${estimated})`
        : `estimated per category (${Object.entries(ESTIMATED_ANSWER_TOKENS)
            .map(([c, n]) => `${c} ${n}`)
            .join(", ")}, else ${DEFAULT_ANSWER_TOKENS})`;
  return {
    name: ds.name,
    models: ds.models,
    nItems,
    texts: ds.items.map((it) => it.text),
    categories: ds.items.map((it) => it.category ?? "(none)"),
    promptTokens,
    ownCost,
    y,
    answerTokens,
    prices,
    answerSource,
  };
}

/** Label of model `m` on item `i` (NaN when unobserved). */
export function labelOf(world: AgentWorld, i: number, m: number): number {
  return world.y[i * world.models.length + m]!;
}

/** USD of the own call (prompt and answer) of model `m` on item `i`. */
export function ownCostOf(world: AgentWorld, i: number, m: number): number {
  return world.ownCost[i * world.models.length + m]!;
}

/** Answer tokens of model `m` on item `i`. */
export function answerTokensOf(world: AgentWorld, i: number, m: number): number {
  return world.answerTokens[i * world.models.length + m]!;
}
