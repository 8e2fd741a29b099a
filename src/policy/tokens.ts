import { ValidationError } from "../errors.js";

/*
 * Pre-tokenisation close to the one of OpenAI's cl100k_base (the regex that splits text into pieces
 * before byte-pair merging): contractions, a letter run with at most one leading non-letter, 1-3 digit
 * groups, punctuation runs, whitespace. Each piece is then priced by a few constants fitted on the
 * datasets' texts against the real tokenizer (see docs/cost-estimation.md for the measured error).
 */
const PIECE =
  /'(?:s|t|re|ve|m|ll|d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;
/** Han, kana, Hangul, CJK compatibility and full-width forms: BPE vocabularies cover them poorly. */
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/u;
const HAS_LETTER = /\p{L}/u;
const HAS_DIGIT = /\p{N}/u;
const ONLY_SPACE = /^\s+$/u;

/** Fitted constants (see docs/cost-estimation.md). */
export const TOKEN_HEURISTIC = {
  /** Tokens per CJK character. */
  cjkPerChar: 1.2,
  /** Letter runs up to this many characters are one token. */
  wordChars: 9,
  /** Each further this-many characters of a longer letter run adds one token. */
  extraCharsPerToken: 6,
  /** Tokens per whitespace piece. */
  perSpaceRun: 1,
  /** Characters per token inside a punctuation run. */
  punctCharsPerToken: 1.5,
} as const;

/**
 * Fast, offline estimate of the number of tokens a chat model's tokenizer makes of `text`
 * (calibrated on OpenAI's cl100k_base; other BPE tokenizers land close). No network, no vocabulary:
 * a regex pre-tokenisation plus per-piece costs. Used for ex-ante cost estimates, never for billing.
 *
 * @throws ValidationError when `text` is not a string.
 *
 * @example
 * ```ts
 * estimateTokens("What is the capital of France?"); // 7 (cl100k_base: 7)
 * ```
 */
export function estimateTokens(text: string): number {
  if (typeof text !== "string") {
    throw new ValidationError(`estimateTokens expects a string, got ${text === null ? "null" : typeof text}.`, {
      path: "text",
    });
  }
  const h = TOKEN_HEURISTIC;
  let n = 0;
  for (const match of text.matchAll(PIECE)) {
    const piece = match[0];
    if (HAS_LETTER.test(piece)) {
      let cjk = 0;
      let other = 0;
      for (const ch of piece) {
        if (CJK.test(ch)) cjk++;
        else other++;
      }
      n += cjk * h.cjkPerChar;
      if (other > 0) n += other > h.wordChars ? 1 + (other - h.wordChars) / h.extraCharsPerToken : 1;
    } else if (HAS_DIGIT.test(piece)) {
      n += 1;
    } else if (ONLY_SPACE.test(piece)) {
      n += h.perSpaceRun;
    } else {
      n += Math.max(1, piece.trim().length / h.punctCharsPerToken);
    }
  }
  return Math.round(n);
}
