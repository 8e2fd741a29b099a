/**
 * Command-line parsing for one subcommand: node's `util.parseArgs` (strict), with its failures and a
 * repeated single-value flag turned into a ValidationError naming the flag (`options.<flag>`), with a
 * "did you mean" hint for a misspelled one; then the values through the command's zod schema
 * ({@link parseFlagValues}), whose messages name each flag as typed (`--seeds`).
 */
import { parseArgs } from "node:util";
import type { z } from "zod";
import { ValidationError } from "../../src/errors.js";
import { closestMatch } from "../../src/util/edit-distance.js";
import { parseWith } from "../../src/util/validate.js";
import type { CliCommand } from "./command.js";

export interface ParsedCli {
  values: Record<string, unknown>;
  positionals: string[];
}

/**
 * Parses `args` for `command`; every problem is a ValidationError with the flag's path. Messages point at
 * `irt-router <name> --help`; a script other than the CLI gives its `program` name instead, and its messages list
 * the flags.
 */
export function parseCliArgs(
  command: Pick<CliCommand, "name" | "options" | "allowPositionals"> & { readonly program?: string },
  args: string[],
): ParsedCli {
  const flags = Object.keys(command.options);
  const help =
    command.program === undefined
      ? {
          program: `irt-router ${command.name}`,
          list: `irt-router ${command.name} --help lists the options`,
          brief: `irt-router ${command.name} --help`,
        }
      : { program: command.program, list: flagList(flags), brief: flagList(flags) };
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: command.options,
      allowPositionals: command.allowPositionals ?? false,
      strict: true,
      tokens: true,
    });
  } catch (error) {
    throw fromParseError(error, help, flags);
  }
  const seen = new Map<string, string>();
  for (const token of parsed.tokens) {
    if (token.kind !== "option") continue;
    const spec = command.options[token.name];
    if (spec?.multiple) continue;
    const value = token.value ?? "";
    const earlier = seen.get(token.name);
    if (earlier !== undefined) {
      const values = spec?.type === "boolean" ? "" : ` ("${earlier}" and "${value}")`;
      throw new ValidationError(`--${token.name} was given twice${values}; it takes one value, so give it once.`, {
        path: `options.${token.name}`,
      });
    }
    seen.set(token.name, value);
  }
  return { values: parsed.values as Record<string, unknown>, positionals: parsed.positionals };
}

/** The flags as a message lists them, for a script without `--help`. */
const flagList = (flags: readonly string[]): string => `the options are ${flags.map((f) => `--${f}`).join(", ")}`;

function fromParseError(
  error: unknown,
  help: { program: string; list: string; brief: string },
  flags: string[],
): Error {
  const e = error as Error & { code?: string };
  const message = e?.message ?? String(error);
  const flag = /'(-{1,2}[^'\s]+)/.exec(message)?.[1];
  const name = flag?.replace(/^-+/, "").split("=")[0];
  switch (e?.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION": {
      const hint = name ? closestMatch(name, flags) : undefined;
      return new ValidationError(
        `unknown option ${flag ?? ""}${hint ? `; did you mean --${hint}?` : ""} (${help.list})`,
        { path: `options.${name ?? "?"}` },
      );
    }
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      const missing = /argument missing/.test(message);
      const ambiguous = /ambiguous/.test(message);
      const noValue = /does not take an argument/.test(message);
      return new ValidationError(
        missing
          ? `${flag} needs a value: ${flag} <value>`
          : ambiguous
            ? `${flag}'s value starts with "-": write it as ${flag}=<value>`
            : noValue
              ? `${flag} is a switch and takes no value: write ${flag} alone (or leave it out for false)`
              : `${flag ?? "an option"}: ${message}`,
        { path: `options.${name ?? "?"}` },
      );
    }
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL": {
      const arg = /'([^']*)'/.exec(message)?.[1];
      return new ValidationError(
        `unexpected argument "${arg ?? "?"}": ${help.program} takes only --options (${help.brief})`,
        {
          path: "options",
        },
      );
    }
    default:
      return new ValidationError(message, { path: "options" });
  }
}

/**
 * Validates parsed flag values with a command's zod schema (an object keyed by flag name). A failure is a
 * ValidationError whose message names every bad flag as the user typed it (`--seeds must be a positive integer`),
 * never the schema's internal path; its `path` stays `options.<flag>` for code that checks it.
 *
 * @example
 * ```ts
 * parseFlagValues(z.object({ seeds: positiveIntFlag() }), { seeds: "0" }); // ValidationError: --seeds must be a positive integer
 * ```
 */
export function parseFlagValues<S extends z.ZodType>(schema: S, values: Record<string, unknown>): z.output<S> {
  try {
    return parseWith(schema, values, "options");
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const issues = (error.details?.issues as { path: string; message: string }[] | undefined) ?? [];
    if (issues.length === 0) throw error;
    throw new ValidationError(issues.map(flagIssue).join("; "), {
      ...(error.path !== undefined && { path: error.path }),
      ...(error.details && { details: error.details }),
    });
  }
}

/** One schema issue at `options.<flag>[.<part>...]` in the user's words: `--flag message`. */
function flagIssue({ path, message }: { path: string; message: string }): string {
  const [, flag, ...rest] = path.split(".");
  if (flag === undefined) return message;
  // a list flag's item: --datasets (item 2)
  const where =
    rest.length === 0 ? "" : /^\d+$/.test(rest[0]!) ? ` (item ${Number(rest[0]) + 1})` : ` (${rest.join(".")})`;
  // "must be ...", "is required ...", "applies to ..." read on from the flag; anything else follows a colon
  return `--${flag}${where}${/^[a-z]/.test(message) && !/^give\b/.test(message) ? " " : ": "}${message}`;
}
