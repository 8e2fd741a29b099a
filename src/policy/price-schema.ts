import { z } from "zod";
import type { ModelPrice } from "../data/types.js";

/**
 * Zod schema of a {@link ModelPrice} (USD per 1M tokens): `inputPer1M` and `outputPer1M` >= 0, and an optional
 * `cachedInputPer1M` >= 0 that may not exceed `inputPer1M` (it is the price of input served from the prompt cache).
 * Unknown keys are rejected, so a misspelt field (`cachedInputPer1m`) is an error.
 */
export const modelPriceSchema: z.ZodType<ModelPrice> = z
  .strictObject({
    inputPer1M: z.number().finite().nonnegative(),
    outputPer1M: z.number().finite().nonnegative(),
    cachedInputPer1M: z.number().finite().nonnegative().optional(),
  })
  .refine((p) => p.cachedInputPer1M === undefined || p.cachedInputPer1M <= p.inputPer1M, {
    path: ["cachedInputPer1M"],
    message: "must not exceed inputPer1M (it is the price of input served from the prompt cache)",
  });
