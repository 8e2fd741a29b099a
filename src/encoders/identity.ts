import { z } from "zod";
import { EncoderMismatchError } from "../errors.js";
import { parseWith } from "../util/validate.js";
import type { EncoderInfo } from "./types.js";

const encoderInfoSchema = z.object({
  id: z.string().trim().min(1, "encoder id must be a non-empty string"),
  dim: z.number().int().positive("encoder dim must be a positive integer"),
});

/**
 * The identity of an encoder as a plain, JSON-serialisable `{ id, dim }` record: what every
 * artifact built from its vectors (scorer weights, probe-bank caches, embedding caches) stores,
 * so it can later refuse vectors from a different encoder.
 *
 * Throws a `ValidationError` when `encoder.id` is empty or `encoder.dim` is not a positive integer.
 *
 * @example
 * ```ts
 * const info = encoderInfo(encoder); // { id: "use-lite-512@energetic-ai-0.2.0", dim: 512 }
 * artifact.encoder = info;
 * ```
 */
export function encoderInfo(encoder: EncoderInfo): EncoderInfo {
  const { id, dim } = parseWith(encoderInfoSchema, { id: encoder?.id, dim: encoder?.dim }, "encoder");
  return { id, dim };
}

/** True when both records name the same encoder id and the same output dimension. */
export function sameEncoder(a: EncoderInfo, b: EncoderInfo): boolean {
  return a.id === b.id && a.dim === b.dim;
}

/**
 * Throw an {@link EncoderMismatchError} (code `ENCODER_MISMATCH`) naming both ids and dims
 * unless `actual` is the encoder `expected` records. `what` names the artifact in the message
 * ("scorer", "probe bank", ...); `options.file` (the file recording `expected`) is named in the message and
 * the error's `file`, `options.path` is the error's `path` (the option that chose the artifact or the vectors), and
 * `options.hint` replaces the closing advice. Both records are validated first.
 *
 * @example
 * ```ts
 * // when loading a scorer artifact built with one encoder and used with another:
 * assertSameEncoder(artifact.encoder, encoderInfo(encoder), "scorer");
 * // -> EncoderMismatchError: This scorer was built with encoder "use-lite-512@..." (dim 512)
 * //    but is being used with encoder "huggingface:BAAI/bge-small-en-v1.5" (dim 384). ...
 * ```
 */
export function assertSameEncoder(
  expected: EncoderInfo,
  actual: EncoderInfo,
  what = "artifact",
  options: { file?: string; path?: string; hint?: string } = {},
): void {
  const e = parseWith(encoderInfoSchema, { id: expected?.id, dim: expected?.dim }, `${what}.encoder`);
  const a = parseWith(encoderInfoSchema, { id: actual?.id, dim: actual?.dim }, "encoder");
  if (!sameEncoder(e, a)) throw new EncoderMismatchError(e, a, what, options);
}
