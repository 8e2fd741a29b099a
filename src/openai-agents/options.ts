/** The options of {@link pinServerState}, and their validation. */
import { z } from "zod";
import { parseWith } from "../util/validate.js";

/** Options of {@link pinServerState}. */
export interface PinServerStateOptions {
  /** How many response and conversation ids to remember (oldest forgotten first): a positive integer. Default 10,000. */
  readonly maxIds?: number;
}

/** The default of {@link PinServerStateOptions.maxIds}. */
export const DEFAULT_MAX_IDS = 10_000;

const optionsSchema = z.strictObject({
  maxIds: z.number().int().positive().optional(),
});

/**
 * The options with their defaults. Throws a `ValidationError` naming the field (`options.maxIds`) for a bad value
 * (0 or a negative number would turn pinning off, NaN leave the ids unbounded; a fraction or Infinity is refused
 * too) or an unknown key.
 */
export function parsePinServerStateOptions(
  options: PinServerStateOptions | undefined,
): Required<PinServerStateOptions> {
  const o = parseWith(optionsSchema, options ?? {}, "options");
  return { maxIds: o.maxIds ?? DEFAULT_MAX_IDS };
}
