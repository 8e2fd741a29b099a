/**
 * Training a run prior from a run table (`irt-router train --runs`): a {@link RunRouter} over the table's models
 * (their run costs) is fed every labelled (item, model) of the chosen items, each success rate as a soft label, and
 * its fit saved with `toPrior()`, without the sync checkpoint (it was trained apart from any run-outcome log): the
 * same table and options give the same prior.
 */
import { RunRouter } from "./run-router.js";
import { MAX_OUTCOMES, type RunPriors } from "./options.js";
import type { RunPrior } from "./run-prior.js";
import { assertHints, type RunTable } from "./replay/protocol.js";

export interface TrainRunPriorOptions {
  /** Items to train on (indices into the table; default all). */
  readonly items?: readonly number[];
  /** Whether each item's category is its task hint (default false; a ValidationError when no item has one). */
  readonly hints?: boolean;
  readonly priors?: RunPriors;
  /** Recorded as the prior's `source`. */
  readonly source?: Record<string, string | number>;
}

/**
 * A run prior trained on `table` (see the module comment).
 *
 * @example
 * ```ts
 * import { loadRunTable } from "irt-router/adapters";
 * import { splitIndices } from "irt-router/data";
 * import { RunRouter, trainRunPrior } from "irt-router/runs";
 *
 * const table = await loadRunTable("./my-agent-runs");
 * const prior = trainRunPrior(table, { items: splitIndices(table.name, table.ids).train });
 * const router = new RunRouter({ models: { a: { runCost: 2 }, b: { runCost: 0.3 } }, prior });
 * ```
 */
export function trainRunPrior(table: RunTable, options: TrainRunPriorOptions = {}): RunPrior {
  if (options.hints) assertHints(table);
  const router = new RunRouter({
    models: Object.fromEntries(table.models.map((m, k) => [m, { runCost: table.runCost[k]! }])),
    ...(options.priors && { priors: options.priors }),
    // one fit of every outcome: a batch of training runs is fitted whole, not folded as a live router folds its oldest
    maxOutcomes: MAX_OUTCOMES,
  });
  const items = options.items ?? table.ids.map((_, i) => i);
  let outcomes = 0;
  for (const i of items) {
    const hint = options.hints ? table.hints?.[i] : undefined;
    const task = { id: table.ids[i]!, text: table.texts[i]!, ...(hint !== undefined && { hint }) };
    table.models.forEach((m, k) => {
      const rate = table.rate[i]![k]!;
      if (!Number.isFinite(rate)) return;
      router.feedback(task, m, rate);
      outcomes++;
    });
  }
  // trained apart from any log: nothing to resume, so no sync checkpoint (its random writer id made every prior differ)
  const { sync: _none, ...prior } = router.toPrior({
    dataset: table.name,
    items: items.length,
    outcomes,
    ...options.source,
  });
  return prior;
}
