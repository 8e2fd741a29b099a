import { join } from "node:path";
import { z } from "zod";
import type { QueryEncoder } from "../../src/encoders/types.js";
import { IrtMoeScorer, type EncoderSource } from "../../src/scorer/scorer.js";
import { parseWith } from "../../src/util/validate.js";
import { packageRoot } from "../data/data-root.js";
import { UseLiteEncoder } from "../encoders/use-lite.js";
import { readArtifact } from "./files.js";

/** Options of {@link loadScorer} / {@link loadPretrained}. */
export interface LoadScorerOptions {
  /**
   * Encoder for text queries. Default: the UseLiteEncoder, loaded on the first text query
   * (vectors work without it). A different encoder than the artifact's raises ENCODER_MISMATCH.
   */
  encoder?: QueryEncoder | (() => Promise<QueryEncoder>);
}

const optionsSchema = z
  .object({
    encoder: z
      .custom<EncoderSource>(
        (v) => typeof v === "function" || (typeof v === "object" && v !== null && typeof (v as QueryEncoder).embed === "function"),
        { message: "must be a QueryEncoder ({ id, dim, embed }) or a function returning one" },
      )
      .optional(),
  })
  .strict();

/**
 * Loads a scorer artifact written by {@link saveScorer} (or `irt-router train`). Verifies checksums,
 * lengths, format version and shapes; a given encoder must be the one the artifact was built with.
 *
 * @example
 * const scorer = await loadScorer("./my-scorer");
 * const scores = await scorer.predict("Prove that sqrt(2) is irrational.");
 */
export async function loadScorer(dir: string, options: LoadScorerOptions = {}): Promise<IrtMoeScorer> {
  const opts = parseWith(optionsSchema, options, "options");
  const { manifest, weights, catalog } = await readArtifact(dir);
  const encoder: EncoderSource = opts.encoder ?? (() => UseLiteEncoder.load());
  return new IrtMoeScorer({ weights, catalog, encoderInfo: manifest.encoder, temperature: manifest.temperature, encoder, manifest });
}

/** Directory of the pretrained artifact shipped with the package. */
export function pretrainedDir(): string {
  return join(packageRoot(), "pretrained");
}

/**
 * The pretrained scorer shipped in `<package>/pretrained/` (trained jointly on the train splits of the four
 * datasets; see docs/scorer.md). Offline; the text encoder loads on the first text query.
 *
 * @example
 * const scorer = await loadPretrained();
 * const [best] = (await scorer.predict("What is 17 * 23?")).sort((a, b) => b.p - a.p);
 */
export async function loadPretrained(options: LoadScorerOptions = {}): Promise<IrtMoeScorer> {
  return loadScorer(pretrainedDir(), options);
}
