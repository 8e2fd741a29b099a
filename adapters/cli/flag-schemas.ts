/**
 * The zod schemas of the kinds of flag value the commands share (the bench scripts' flags use them too): a positive
 * integer, and a comma-separated list. A flag's own limits and messages are added where the flag is declared.
 */
import { z } from "zod";

/**
 * A flag whose value is a positive integer (`--seeds 3`), as a number; `what`, when given, ends the message
 * ("must be a positive integer (what)").
 */
export const positiveIntFlag = (what?: string) =>
  z
    .string()
    .regex(/^[1-9][0-9]*$/, what === undefined ? "must be a positive integer" : `must be a positive integer (${what})`)
    .transform(Number);

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
