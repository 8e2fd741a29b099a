import type { z } from "zod";

/**
 * One CLI subcommand. `options` describes the flags for node's `util.parseArgs`;
 * `schema` validates the parsed values (zod), so a bad flag becomes a ValidationError
 * naming the flag. `run` returns the process exit code.
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
  schema: S;
  run(args: z.output<S>, positionals: string[]): Promise<number>;
}
