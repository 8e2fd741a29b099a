/**
 * Loading the scorer a command is given (`--model`, `--scorer`) with the default text encoder, with the command
 * line's advice when the artifact was built with another encoder.
 */
import { EncoderMismatchError } from "../../src/errors.js";
import type { IrtMoeScorer } from "../../src/scorer/scorer.js";
import { loadPretrained, loadScorer } from "../artifact/load.js";

/** Options of {@link loadCommandScorer}. */
export interface CommandScorerOptions {
  /** The flag's option path, e.g. "options.model": the error's `path`. */
  readonly path: string;
  /** What the command's user can do about an artifact of another encoder (replaces loadScorer's library advice). */
  readonly hint: (mismatch: EncoderMismatchError) => string;
  /** Another way to load that artifact (e.g. without a text encoder, when the command needs none); undefined: refuse it. */
  readonly otherwise?: (mismatch: EncoderMismatchError) => Promise<IrtMoeScorer | undefined>;
}

/**
 * The pretrained scorer (`dir` undefined) or the artifact in `dir`, with the default text encoder. An artifact built
 * with another encoder is, unless `options.otherwise` loads it, an `EncoderMismatchError` naming its manifest, at
 * `options.path`, with `options.hint`.
 *
 * @example
 * ```ts
 * const scorer = await loadCommandScorer(args.model, { path: "options.model", hint: () => "Give --model a scorer built with the default encoder." });
 * ```
 */
export async function loadCommandScorer(dir: string | undefined, options: CommandScorerOptions): Promise<IrtMoeScorer> {
  try {
    return dir === undefined ? await loadPretrained() : await loadScorer(dir);
  } catch (error) {
    // With the default encoder, loadScorer raises this error only for an artifact of another encoder (at load).
    if (!(error instanceof EncoderMismatchError)) throw error;
    const other = await options.otherwise?.(error);
    if (other) return other;
    throw new EncoderMismatchError(error.expected, error.actual, "scorer", {
      ...(error.file ? { file: error.file } : {}),
      path: options.path,
      hint: options.hint(error),
      cause: error,
    });
  }
}
