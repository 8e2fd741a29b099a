import { join, resolve } from "node:path";
import { z } from "zod";
import { assertSameEncoder } from "../../src/encoders/identity.js";
import type { QueryEncoder } from "../../src/encoders/types.js";
import { IrtMoeScorer, type EncoderSource } from "../../src/scorer/scorer.js";
import { MANIFEST_FILE } from "../../src/scorer/serialize.js";
import { parseWith } from "../../src/util/validate.js";
import { packageRoot } from "../package-root.js";
import { defaultStaticInfo, isStaticId, StaticEncoder } from "../encoders/static.js";
import { readArtifact, readShippedArtifact } from "./files.js";

/** Options of {@link loadScorer} / {@link loadPretrained}. */
export interface LoadScorerOptions {
  /**
   * Encoder for text queries. Default: the UseLiteEncoder, loaded on the first text query; its id is known
   * without loading it, so an artifact built with another encoder is refused at load (ENCODER_MISMATCH naming
   * its manifest.json). A given encoder other than the artifact's is refused likewise (at load, or at the first
   * text query for a function). `null`: no text encoder, the scorer takes embeddings only (text raises
   * ENCODER_UNAVAILABLE); for scoring stored vectors of an artifact built with an encoder you do not have here.
   */
  encoder?: QueryEncoder | (() => Promise<QueryEncoder>) | null;
}

const optionsSchema = z
  .object({
    encoder: z
      .custom<EncoderSource>(
        (v) =>
          typeof v === "function" ||
          (typeof v === "object" && v !== null && typeof (v as QueryEncoder).embed === "function"),
        { message: "must be a QueryEncoder ({ id, dim, embed }), a function returning one, or null (embeddings only)" },
      )
      .nullable()
      .optional(),
  })
  .strict();

/**
 * Loads a scorer artifact written by {@link saveScorer} (or `irt-router train`). Verifies checksums,
 * lengths, format version and shapes; the encoder (given, or the default USE-lite) must be the one the
 * artifact was built with (EncoderMismatchError naming `<dir>/manifest.json` otherwise).
 *
 * @example
 * const scorer = await loadScorer("./my-scorer");
 * const scores = await scorer.predict("Prove that sqrt(2) is irrational.");
 * const vectorsOnly = await loadScorer("./scorer-built-with-a-remote-encoder", { encoder: null });
 */
export async function loadScorer(dir: string, options: LoadScorerOptions = {}): Promise<IrtMoeScorer> {
  return loadScorerFrom(dir, options, readArtifact);
}

/**
 * {@link loadScorer} of an artifact shipped inside the package (`pretrained/`, as {@link loadPretrained} and the
 * router's default scorer load them): the same checks but the files' sha256, which the test suite checks instead.
 */
export async function loadShippedScorer(dir: string, options: LoadScorerOptions = {}): Promise<IrtMoeScorer> {
  return loadScorerFrom(dir, options, readShippedArtifact);
}

async function loadScorerFrom(
  dir: string,
  options: LoadScorerOptions,
  read: typeof readArtifact,
): Promise<IrtMoeScorer> {
  const opts = parseWith(optionsSchema, options, "options");
  const { manifest, weights, catalog } = await read(dir);
  const manifestFile = join(resolve(dir), MANIFEST_FILE);
  let encoder: EncoderSource | undefined;
  if (opts.encoder === null) encoder = undefined;
  else if (opts.encoder) encoder = opts.encoder;
  else if (isStaticId(manifest.encoder.id)) {
    // An artifact of a static table: the shipped table is its default encoder (its id is in its manifest, read
    // without loading the table), refused like any other encoder when it is another table.
    assertSameEncoder(manifest.encoder, await defaultStaticInfo(), "scorer", {
      file: manifestFile,
      hint:
        `No options.encoder was given, so the shipped static table would embed text. Pass the StaticEncoder the scorer was built with ` +
        `(StaticEncoder.load({ dir })) as options.encoder, or encoder: null to score embeddings only.`,
    });
    encoder = () => StaticEncoder.load();
  } else {
    // The default encoder's id comes from its package version, without loading its weights. When the package is not
    // installed the check happens at the first text query (embeddings work without it). The module (and tfjs's
    // loader behind it) is imported only here, so loading a static scorer never reads it.
    const { defaultUseLiteInfo, UseLiteEncoder } = await import("../encoders/use-lite.js");
    const predicted = await defaultUseLiteInfo().catch(() => undefined);
    if (predicted)
      assertSameEncoder(manifest.encoder, predicted, "scorer", {
        file: manifestFile,
        hint:
          `No options.encoder was given, so the default encoder "${predicted.id}" would embed text. Pass the encoder the scorer ` +
          `was built with as options.encoder, or encoder: null to score embeddings only.`,
      });
    encoder = () => UseLiteEncoder.load();
  }
  return new IrtMoeScorer({
    weights,
    catalog,
    encoderInfo: manifest.encoder,
    temperature: manifest.temperature,
    ...(encoder ? { encoder } : {}),
    manifest,
    manifestFile,
  });
}

/** Directory of the pretrained artifact shipped with the package. */
export function pretrainedDir(): string {
  return join(packageRoot(), "pretrained");
}

/** Subfolder of `pretrained/` holding the scorer trained on the static encoder's embeddings. */
export const STATIC_PRETRAINED_SUBDIR = "static";

/** Options of {@link loadPretrained}. */
export interface LoadPretrainedOptions extends Omit<LoadScorerOptions, "encoder"> {
  /**
   * `"static"`: the scorer trained on the static encoder's embeddings (`pretrained/static/`), with the shipped
   * StaticEncoder. `"use-lite"`: the scorer trained on USE-lite's (`pretrained/`), with UseLiteEncoder. A
   * StaticEncoder object: the static scorer with that encoder. Another encoder object, a function or null: the USE-lite
   * scorer, as {@link LoadScorerOptions.encoder}. Default `"use-lite"`.
   */
  encoder?: LoadScorerOptions["encoder"] | "static" | "use-lite";
}

/**
 * The pretrained scorer shipped in `<package>/pretrained/` (trained jointly on the train splits of the four
 * datasets; see docs/scorer.md). Offline; the text encoder loads on the first text query.
 *
 * @example
 * const scorer = await loadPretrained();
 * const [best] = (await scorer.predict("What is 17 * 23?")).sort((a, b) => b.p - a.p);
 * const fast = await loadPretrained({ encoder: "static" }); // no tfjs
 */
export async function loadPretrained(options: LoadPretrainedOptions = {}): Promise<IrtMoeScorer> {
  const { encoder, ...rest } = options;
  if (encoder === "static") return loadShippedScorer(join(pretrainedDir(), STATIC_PRETRAINED_SUBDIR), rest);
  // A static table's encoder gets the scorer trained on its vectors.
  if (encoder && typeof encoder === "object" && isStaticId(encoder.id))
    return loadShippedScorer(join(pretrainedDir(), STATIC_PRETRAINED_SUBDIR), { ...rest, encoder });
  return loadShippedScorer(
    pretrainedDir(),
    encoder === "use-lite" || encoder === undefined ? rest : { ...rest, encoder },
  );
}
