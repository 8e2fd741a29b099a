/**
 * Rules between a command's flags, checked in its flag schema (`.superRefine(rule)`) with the flags' values: a
 * combination the command cannot take is then a flag error like a bad value (exit 2, with the usage, before anything
 * loads), its issue at the first flag named so the message reads from it (`--report and --no-report cannot be given
 * together: ...`). Each rule is declared once, in the schema of the command it belongs to.
 */
import type { z } from "zod";

/** A rule of a command's flag schema: adds an issue for a combination of flags the command cannot take. */
export type FlagRule = (flags: Readonly<Record<string, unknown>>, ctx: z.RefinementCtx) => void;

/** Whether a flag was given: a value, or a switch that is on (a switch's `false` default is not giving it). */
export const given = (value: unknown): boolean => value !== undefined && value !== false;

/**
 * `first` and `second` cannot both be given; `why` says why and what to give instead. The issue is at `first`.
 *
 * @example
 * ```ts
 * z.object({ eval: z.string().optional(), agent: z.string().optional() })
 *   .superRefine(notTogether("eval", "agent", "both give the cost-accuracy frontier; give one of them"));
 * // --eval a --agent b: "--eval and --agent cannot be given together: both give the cost-accuracy frontier; ..."
 * ```
 */
export function notTogether(first: string, second: string, why: string): FlagRule {
  return (flags, ctx) => {
    if (given(flags[first]) && given(flags[second]))
      ctx.addIssue({ code: "custom", path: [first], message: `and --${second} cannot be given together: ${why}` });
  };
}

/**
 * Each of `flags` applies only with `needed`, and is refused without it; `why` says what to do instead. Each issue is
 * at the flag given.
 *
 * @example
 * ```ts
 * schema.superRefine(onlyWith(["data-root", "cache-dir"], "dataset", "add --dataset <name|folder>, or leave it out"));
 * // --cache-dir c alone: "--cache-dir applies only with --dataset: add --dataset <name|folder>, or leave it out"
 * ```
 */
export function onlyWith(flags: readonly string[], needed: string, why: string): FlagRule {
  return (values, ctx) => {
    if (given(values[needed])) return;
    for (const flag of flags)
      if (given(values[flag]))
        ctx.addIssue({ code: "custom", path: [flag], message: `applies only with --${needed}: ${why}` });
  };
}
