/**
 * The zod schemas of the kinds of flag value the commands share (the bench scripts' flags use them too): a positive
 * or non-negative integer, and a comma-separated list. A flag's own limits and messages are added where the flag is
 * declared.
 */
import { z } from "zod";

/**
 * A flag whose value is an integer matching `pattern`, as a number; `what`, when given, ends the message ("must be
 * a positive integer (what)") and names what a required flag left out is ("is required: what").
 */
const integerFlag = (pattern: RegExp, kind: string, what?: string) =>
  z
    .string(what === undefined ? undefined : { error: `is required: ${what}` })
    .regex(pattern, what === undefined ? `must be a ${kind}` : `must be a ${kind} (${what})`)
    .transform(Number);

/** A flag whose value is a positive integer (`--seeds 3`), as a number; `what` as `integerFlag`'s. */
export const positiveIntFlag = (what?: string) => integerFlag(/^[1-9][0-9]*$/, "positive integer", what);

/** A flag whose value is a non-negative integer (`--seed 0`), as a number; `what` as `integerFlag`'s. */
export const nonNegativeIntFlag = (what?: string) => integerFlag(/^[0-9]+$/, "non-negative integer", what);

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
