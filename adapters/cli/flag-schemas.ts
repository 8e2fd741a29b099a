/**
 * The zod schemas of the kinds of flag value the commands share (the bench scripts' flags use them too): a positive
 * or non-negative integer, a non-negative decimal number, and a comma-separated list; and the most seeds a flag takes.
 * A flag's own limits and messages are added where the flag is declared.
 */
import { z } from "zod";

/**
 * The most seeds a flag that counts them takes (`replay --seeds` and `--online-seeds`, the bench scripts' `--seeds`):
 * the docs use 5 and 20, and Terminal-Bench's default 5 + 20 take about 20 s on 2 cores, so 1000 is hours of work; a
 * typo of a few more digits would run for days.
 */
export const MAX_SEEDS = 1000;

/** The most seeds `eval --seeds` takes (each seed retrains every learned method; `npm run eval:all` runs it too). */
export const MAX_EVAL_SEEDS = 20;

/** Limits of a number flag. */
export interface NumberFlagLimits {
  /** The smallest value accepted (default: the least the kind allows: 1 for a positive integer, else 0). */
  readonly min?: number;
  /**
   * The largest value accepted (default `Number.MAX_SAFE_INTEGER`, past which a number is not exact). A flag that
   * sets how much work to do (seeds, rounds) names its own, so a typo of a few digits is refused, not run for days.
   */
  readonly max?: number;
}

/**
 * A flag whose value is a number written as `pattern` allows, as a number within `limits`; `what`, when given, ends
 * the message ("must be a positive integer (what)") and names what a required flag left out is ("is required: what").
 */
const numberFlag = (pattern: RegExp, kind: string, what: string | undefined, limits: NumberFlagLimits) => {
  const max = limits.max ?? Number.MAX_SAFE_INTEGER;
  const about = (text: string) => (what === undefined ? text : `${text} (${what})`);
  const range = z.number().max(max, about(`must be at most ${max}`));
  return z
    .string(what === undefined ? undefined : { error: `is required: ${what}` })
    .regex(pattern, about(`must be a ${kind}`))
    .transform(Number)
    .pipe(limits.min === undefined ? range : range.min(limits.min, about(`must be at least ${limits.min}`)));
};

/** A flag whose value is a positive integer (`--seeds 3`), as a number; `what` as `numberFlag`'s. */
export const positiveIntFlag = (what?: string, limits: NumberFlagLimits = {}) =>
  numberFlag(/^[1-9][0-9]*$/, "positive integer", what, limits);

/** A flag whose value is a non-negative integer (`--seed 0`), as a number; `what` as `numberFlag`'s. */
export const nonNegativeIntFlag = (what?: string, limits: NumberFlagLimits = {}) =>
  numberFlag(/^[0-9]+$/, "non-negative integer", what, limits);

/**
 * A flag whose value is a non-negative decimal number (`--lambda 1.5`, `--target-sd 5e-3`), as a number; `what` as
 * `numberFlag`'s.
 */
export const decimalFlag = (what?: string, limits: NumberFlagLimits = {}) =>
  numberFlag(/^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/, "decimal number", what, limits);

/**
 * A flag whose value is a comma-separated list (`--datasets a,b`), blanks dropped, of at least one `item` and at most
 * `max`; `empty` is the message when none is left (default: "must list at least one value, comma-separated").
 */
export const listFlag = <T extends z.ZodType<unknown, string>>(
  item: T,
  empty = "must list at least one value, comma-separated",
  max?: number,
) =>
  z
    .string()
    .transform((s) =>
      s
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(
      max === undefined
        ? z.array(item).min(1, empty)
        : z.array(item).min(1, empty).max(max, `must list at most ${max}`),
    );
