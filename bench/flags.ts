/**
 * The flags of a study's entry script: node's `util.parseArgs` (strict) as the CLI runs it, then a zod schema; every
 * problem (an unknown or repeated flag, a missing or bad value) is a ValidationError naming the flag
 * (`options.<flag>`), as the `irt-router` command's are. The flag schemas the studies share are here too.
 */
import { z } from "zod";
import { parseWith } from "../src/util/validate.js";
import { parseCliArgs } from "../adapters/cli/args.js";

/** What node's `parseArgs` needs to know of each flag. */
export type FlagSpecs = Record<string, { type: "string" | "boolean" }>;

/**
 * Parses `args` (default: this process's) for the script `program` (`bench:predict`) with `flags`, and validates
 * the values with `schema` (an object keyed by flag).
 *
 * @example
 * ```ts
 * const args = parseFlags("eval:all", { seeds: { type: "string" } }, z.object({ seeds: positiveIntFlag.optional() }));
 * ```
 */
export function parseFlags<S extends z.ZodType>(
  program: string,
  flags: FlagSpecs,
  schema: S,
  args: string[] = process.argv.slice(2),
): z.output<S> {
  const { values } = parseCliArgs({ name: program, program, options: flags }, args);
  return parseWith(schema, values, "options");
}

/** A flag whose value is a positive integer (`--seeds 3`). */
export const positiveIntFlag = z
  .string()
  .regex(/^[1-9][0-9]*$/, "must be a positive integer")
  .transform(Number);

/** A flag whose value is a comma-separated list of at least one `item` (`--datasets a,b`), blanks dropped. */
export const listFlag = <T extends z.ZodType<unknown, string>>(item: T) =>
  z
    .string()
    .transform((s) =>
      s
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item).min(1));
