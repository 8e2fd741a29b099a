/**
 * The offline encoders a command can be told to use by name (`--encoder static|use-lite`).
 */
import type { QueryEncoder } from "../../src/encoders/types.js";
import { StaticEncoder } from "./static.js";

/** Names of the offline encoders, as the CLI's `--encoder` takes them. */
export const ENCODER_NAMES = ["static", "use-lite"] as const;
/** One of {@link ENCODER_NAMES}. */
export type EncoderName = (typeof ENCODER_NAMES)[number];

/**
 * The encoder a name stands for, loaded; `undefined` for `use-lite`, whose dataset embeddings the data adapters
 * serve from the cache without loading the model (they load it only for texts not cached yet).
 *
 * @example
 * ```ts
 * const encoder = await encoderByName("static"); // a StaticEncoder
 * await getDatasetEmbeddings("routellm-2models", encoder ? { encoder } : {});
 * ```
 */
export async function encoderByName(name: EncoderName): Promise<QueryEncoder | undefined> {
  return name === "static" ? StaticEncoder.load() : undefined;
}
