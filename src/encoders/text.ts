import { EncoderInputError } from "../errors.js";

/** What an encoder does with a lone (unpaired) UTF-16 surrogate. */
export type LoneSurrogatePolicy = "embed" | "error";

/** Options of {@link checkTexts}. */
export interface CheckTextsOptions {
  /** `"embed"` (default): the surrogate becomes the unknown token. `"error"`: raise EncoderInputError. */
  readonly loneSurrogates?: LoneSurrogatePolicy;
  /** Encoder name used in messages. */
  readonly encoder?: string;
}

/**
 * UTF-16 index of the first unpaired surrogate in `text`, or -1 when the text is well-formed.
 *
 * @example
 * ```ts
 * findLoneSurrogate("ok"); // -1
 * findLoneSurrogate("a\uD800b"); // 1
 * ```
 */
export function findLoneSurrogate(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return i;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      return i;
    }
  }
  return -1;
}

/**
 * Checks the argument of `embed(texts)`: an array of strings, none empty, and (with
 * `loneSurrogates: "error"`) none with an unpaired surrogate. Throws {@link EncoderInputError}
 * whose `path` is `texts.<i>` and whose message says what was wrong with input `i` and how to fix it.
 *
 * @example
 * ```ts
 * checkTexts(["a", "b"]); // ["a", "b"]
 * checkTexts(["a", 3]);   // throws EncoderInputError: texts[1] is a number, not a string ...
 * ```
 */
export function checkTexts(texts: unknown, options: CheckTextsOptions = {}): string[] {
  const who = options.encoder ?? "encoder";
  if (!Array.isArray(texts)) {
    throw new EncoderInputError(
      `${who}.embed expects an array of strings, got ${describe(texts)}. Wrap a single text as [text].`,
      { path: "texts" },
    );
  }
  for (let i = 0; i < texts.length; i++) {
    const text: unknown = texts[i];
    if (typeof text !== "string") {
      throw new EncoderInputError(
        `texts[${i}] is ${describe(text)}, not a string. Pass text only (convert or drop the value before embedding).`,
        { path: `texts.${i}`, details: { index: i, type: describe(text) } },
      );
    }
    if (text.length === 0) {
      throw new EncoderInputError(
        `texts[${i}] is the empty string, which carries nothing to embed. Skip it, or embed a placeholder text you choose.`,
        { path: `texts.${i}`, details: { index: i } },
      );
    }
    if (options.loneSurrogates === "error") {
      const at = findLoneSurrogate(text);
      if (at >= 0) {
        throw new EncoderInputError(
          `texts[${i}] has an unpaired UTF-16 surrogate (0x${text.charCodeAt(at).toString(16)}) at index ${at}: the text is not well-formed Unicode, ` +
            `often a sign it was cut in the middle of an emoji. Repair it (e.g. text.toWellFormed()) or use loneSurrogates: "embed".`,
          { path: `texts.${i}`, details: { index: i, position: at } },
        );
      }
    }
  }
  return texts as string[];
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  if (type === "object") return `an object`;
  if (type === "undefined") return "undefined";
  return `a ${type}`;
}
