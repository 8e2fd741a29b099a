import type { z } from "zod";
import type { OutDirUse } from "../out-dir.js";

/**
 * One CLI subcommand. `options` describes the flags for node's `util.parseArgs`;
 * `schema` validates the parsed values (zod) and the combinations of flags (its rules, flag-rules.ts), so a bad flag
 * or flags that cannot go together become a ValidationError naming the flags. `run` returns the process exit code.
 */
export interface CliCommand<S extends z.ZodType = z.ZodType> {
  name: string;
  summary: string;
  usage: string;
  /**
   * Which optional packages the command (or which of its flags) needs, with the install command: printed by `--help`
   * and after a DEPENDENCY_MISSING error. Every command says it, "none" included.
   */
  needs: string;
  options: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;
  /** Whether positional arguments are accepted (they arrive as `positionals`). */
  allowPositionals?: boolean;
  /**
   * When the positional arguments are required (a text to work on): what to say when none is given, a command-line
   * error (exit 2, with the usage) found with the flags, before any work.
   */
  positionalsRequired?: string;
  schema: S;
  /**
   * The flags naming a folder the command writes into, each with what it writes there: the CLI checks each one
   * given (adapters/out-dir.ts: not a file, not under /proc, writable) after the schema and before `run`, so a
   * folder that cannot be one is a flag error before any work.
   */
  outputs?: Readonly<Record<string, Omit<OutDirUse, "flag">>>;
  run(args: z.output<S>, positionals: string[]): Promise<number>;
}
