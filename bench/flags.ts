/**
 * The flags of a study's entry script: node's `util.parseArgs` (strict) as the CLI runs it, then a zod schema; every
 * problem (an unknown or repeated flag, a missing or bad value, a number out of its bounds) is a ValidationError naming
 * the flag as typed (`--seeds must be at most 1000`; its path is `options.<flag>`), as the `irt-router` command's
 * are, with the command's flag schemas (integers, decimals, lists) and its bounds for the same flag. A script reads
 * its flags with {@link scriptFlags}, which exits 2 on such an error, as the CLI does.
 */
import { z } from "zod";
import { parseCliArgs, parseFlagValues } from "../adapters/cli/args.js";
import { decimalFlag, listFlag, MAX_SEEDS, nonNegativeIntFlag, positiveIntFlag } from "../adapters/cli/flag-schemas.js";
import { ValidationError } from "../src/errors.js";

/** What node's `parseArgs` needs to know of each flag (a `multiple` one may be repeated). */
export type FlagSpecs = Record<string, { type: "string" | "boolean"; multiple?: boolean }>;

/**
 * Parses `args` (default: this process's) for the script `program` (`bench:predict`) with `flags`, and validates
 * the values with `schema` (an object keyed by flag); throws the ValidationError of a bad flag.
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

/**
 * {@link parseFlags} for a script's own command line: a bad flag is written to stderr (`program: [INVALID_ARGUMENT]
 * --seeds must be at most 1000`) and the process exits 2, as the `irt-router` command does, before any work.
 *
 * @example
 * ```ts
 * const { draws } = scriptFlags("run-robustness", { draws: { type: "string" } }, z.object({ draws: seedsFlag(5) }));
 * ```
 */
export function scriptFlags<S extends z.ZodType>(
  program: string,
  flags: FlagSpecs,
  schema: S,
  args: string[] = process.argv.slice(2),
): z.output<S> {
  try {
    return parseFlags(program, flags, schema, args);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    process.stderr.write(`${program}: [${error.code}] ${error.message}\n`);
    return process.exit(2);
  }
}

/**
 * A number of seeds (`--seeds 5`: seeds 1..N; or of seeded draws): a positive integer, at most `max` (default
 * {@link MAX_SEEDS}, as the CLI's `replay --seeds`; a study whose seeds each take minutes caps it lower).
 */
export const seedsFlag = (byDefault: number, max: number = MAX_SEEDS) =>
  positiveIntFlag(undefined, { max }).default(byDefault);

/** A decimal number above 0 (`--lambda 0.1`, `--kappa 2`), at most `max` when given. */
export const positiveDecimalFlag = (max?: number) =>
  decimalFlag(undefined, max === undefined ? {} : { max }).refine((x) => x > 0, "must be greater than 0");

/** The most agent runs a flag draws (`bench:agent --val-runs`, and the dev studies built on its replay). */
export const MAX_RUNS = 100_000;

/**
 * A number of agent runs to draw (`--val-runs 400`), from `min` (default 10: fewer leave a figure to a handful of
 * runs; 0 for learning runs, where none is the static router) to {@link MAX_RUNS}.
 */
export const runsFlag = (byDefault: number, min = 10) =>
  nonNegativeIntFlag(undefined, { min, max: MAX_RUNS }).default(byDefault);

/**
 * A list of seeds (`--seeds 1,2,3`): each a non-negative integer as the CLI's `--seed`, at most {@link MAX_SEEDS} of
 * them.
 */
export const seedListFlag = () => listFlag(nonNegativeIntFlag(), undefined, MAX_SEEDS);

/**
 * A repeatable `--seeds-for name=1,2,...`: other seeds for one dataset (each as {@link seedListFlag}'s), as a map from
 * the dataset's name to its seeds; none given is an empty map.
 */
export const seedsForFlag = () =>
  z
    .array(
      z
        .string()
        .regex(/^[^=]+=/, "takes a dataset and its seeds: name=1,2,...")
        .transform((x) => [x.slice(0, x.indexOf("=")), x.slice(x.indexOf("=") + 1)] as const)
        .pipe(z.tuple([z.string(), seedListFlag()])),
    )
    .default([])
    .transform((pairs) => new Map(pairs));

/**
 * A study's one JSON argument (`npx tsx bench/dev/run-defaults.ts '{"trainOnly": true}'`; `byDefault` when none),
 * checked with `schema`: more than one argument, text that is no JSON, or a value the schema refuses, is written to
 * stderr with each problem's place (`program: the argument ...: seeds ...`) and the process exits 2, before any work,
 * as {@link scriptFlags} does.
 *
 * @example
 * ```ts
 * const schema = z.strictObject({ seeds: z.number().int().min(1).optional() });
 * const { seeds } = jsonArgument("run-defaults", schema, process.argv.slice(2), "{}");
 * ```
 */
export function jsonArgument<S extends z.ZodType>(
  program: string,
  schema: S,
  args: readonly string[],
  byDefault: string,
  shape = "",
): z.output<S> {
  let problem: string;
  if (args.length > 1) problem = `one argument is taken, got ${args.length} (quote the JSON as one)`;
  else {
    try {
      const result = schema.safeParse(JSON.parse(args[0] ?? byDefault));
      if (result.success) return result.data;
      problem = result.error.issues.map((i) => `${i.path.join(".") || "(the whole)"} ${i.message}`).join("; ");
    } catch (error) {
      problem = `not JSON (${(error as Error).message})`;
    }
  }
  process.stderr.write(`${program}: the argument${shape ? ` (${shape})` : ""} was refused: ${problem}\n`);
  return process.exit(2);
}

export {
  decimalFlag,
  listFlag,
  MAX_EVAL_SEEDS,
  MAX_SEEDS,
  nonNegativeIntFlag,
  positiveIntFlag,
} from "../adapters/cli/flag-schemas.js";
