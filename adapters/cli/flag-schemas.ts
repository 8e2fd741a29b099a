/**
 * The zod schemas of the kinds of flag value the commands share (the bench scripts' flags use them too): a positive
 * or non-negative integer, and a comma-separated list. A flag's own limits and messages are added where the flag is
 * declared.
 */
import { z } from "zod";

/** Limits of an integer flag. */
export interface IntFlagLimits {
  /**
   * The largest value accepted (default `Number.MAX_SAFE_INTEGER`, past which a number is not exact). A flag that
   * sets how much work to do (seeds, rounds) names its own, so a typo of a few digits is refused, not run for days.
   */
  readonly max?: number;
}

/**
 * A flag whose value is an integer matching `pattern`, as a number; `what`, when given, ends the message ("must be
 * a positive integer (what)") and names what a required flag left out is ("is required: what").
 */
const integerFlag = (pattern: RegExp, kind: string, what: string | undefined, limits: IntFlagLimits) => {
  const max = limits.max ?? Number.MAX_SAFE_INTEGER;
  const about = (text: string) => (what === undefined ? text : `${text} (${what})`);
  return z
    .string(what === undefined ? undefined : { error: `is required: ${what}` })
    .regex(pattern, about(`must be a ${kind}`))
    .transform(Number)
    .pipe(z.number().max(max, about(`must be at most ${max}`)));
};

/** A flag whose value is a positive integer (`--seeds 3`), as a number; `what` as `integerFlag`'s. */
export const positiveIntFlag = (what?: string, limits: IntFlagLimits = {}) =>
  integerFlag(/^[1-9][0-9]*$/, "positive integer", what, limits);

/** A flag whose value is a non-negative integer (`--seed 0`), as a number; `what` as `integerFlag`'s. */
export const nonNegativeIntFlag = (what?: string, limits: IntFlagLimits = {}) =>
  integerFlag(/^[0-9]+$/, "non-negative integer", what, limits);

/**
 * A flag whose value is a comma-separated list (`--datasets a,b`), blanks dropped, of at least one `item`;
 * `empty` is the message when none is left.
 */
export const listFlag = <T extends z.ZodType<unknown, string>>(item: T, empty?: string) =>
  z
    .string()
    .transform((s) =>
      s
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item).min(1, empty));
