/** The run-level router over a step router's registered models (IrtRouter's `runs`), priced as the step router does. */
import { ValidationError } from "../errors.js";
import { listPrice } from "../policy/prices.js";
import type { ModelPrice } from "../data/types.js";
import { RunRouter } from "./run-router.js";
import type { RunRoutingOptions } from "./options.js";

/** A {@link RunRouter} over registered models: each model's configured price, else its list price. */
export function runRouterOf(
  slots: readonly { readonly id: string; readonly price?: ModelPrice }[],
  options: RunRoutingOptions = {},
): RunRouter {
  const models = Object.fromEntries(
    slots.map((slot) => {
      const price = slot.price ?? listPrice(slot.id);
      if (!price) {
        throw new ValidationError(
          `Run-level routing needs a price for every model; "${slot.id}" has none: give models["${slot.id}"].price.`,
          { path: `models.${slot.id}.price` },
        );
      }
      return [slot.id, { price }];
    }),
  );
  return new RunRouter({ ...options, models });
}
