/**
 * The flags of a study's entry script: node's `util.parseArgs` (strict) as the CLI runs it, then a zod schema; every
 * problem (an unknown or repeated flag, a missing or bad value) is a ValidationError naming the flag as typed
 * (`--seeds`; its path is `options.<flag>`), as the `irt-router` command's are; with the command's flag schemas (positive integer, list).
 */
import { z } from "zod";
import { parseCliArgs, parseFlagValues } from "../adapters/cli/args.js";

/** What node's `parseArgs` needs to know of each flag. */
export type FlagSpecs = Record<string, { type: "string" | "boolean" }>;

/**
 * Parses `args` (default: this process's) for the script `program` (`bench:predict`) with `flags`, and validates
 * the values with `schema` (an object keyed by flag).
 *
 * @example
 * ```ts
 * const args = parseFlags("eval:all", { seeds: { type: "string" } }, z.object({ seeds: positiveIntFlag().optional() }));
 * ```
 */
export function parseFlags<S extends z.ZodType>(
  program: string,
  flags: FlagSpecs,
  schema: S,
  args: string[] = process.argv.slice(2),
): z.output<S> {
  const { values } = parseCliArgs({ name: program, program, options: flags }, args);
  return parseFlagValues(schema, values);
}

export { listFlag, positiveIntFlag } from "../adapters/cli/flag-schemas.js";
