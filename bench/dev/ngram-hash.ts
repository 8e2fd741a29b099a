/**
 * Research only (bench/dev/scorer-search.ts --ngram; not part of the library: it did not help on validation, docs/scorer.md).
 *
 * Hashed n-gram features of a text (pure TypeScript, no model, no I/O): the lexical signal a sentence
 * embedding smooths away (numbers, formulas, units, code, CJK characters), in a fixed-size vector.
 *
 * Tokens (after NFKC and lower-casing): runs of Latin/Greek/Cyrillic letters; each Han, Hiragana,
 * Katakana or Hangul character on its own; a run of digits becomes `<numN>` (N = number of digits, capped at
 * 4), so values are shared but magnitudes kept; every other non-space character is its own token. Features
 * are the token unigrams and bigrams, hashed (FNV-1a, 32 bit) into `buckets` slots with a hashed sign
 * (+1/-1, so collisions cancel on average instead of adding up), weighted by log(1 + count), and the
 * vector is scaled to L2 norm `scale` (0 for a text with no tokens).
 */

/** Options of {@link ngramHashFeatures}. */
export interface NgramHashOptions {
  /** Number of hash slots (the output length). */
  readonly buckets: number;
  /** L2 norm of the output (the sentence embedding it sits beside has norm 1). */
  readonly scale: number;
}

/** The version of the tokenisation and hashing rules; part of the encoder id, so a change invalidates artifacts. */
export const NGRAM_HASH_VERSION = 1;

const LETTERS = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{M}]/u;
const SINGLE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const DIGIT = /[0-9]/;
const SPACE = /\s/u;

/**
 * Splits a text into the tokens described in the module comment.
 *
 * @example
 * ngramTokens("Find x if 3x + 12 = 0"); // ["find", "x", "if", "<num1>", "x", "+", "<num2>", "=", "<num1>"]
 */
export function ngramTokens(text: string): string[] {
  const s = text.normalize("NFKC").toLowerCase();
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    const cp = s.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    const w = ch.length;
    if (SPACE.test(ch)) {
      i += w;
    } else if (DIGIT.test(ch)) {
      let j = i;
      while (j < s.length && DIGIT.test(s[j]!)) j++;
      out.push(`<num${Math.min(4, j - i)}>`);
      i = j;
    } else if (SINGLE.test(ch)) {
      out.push(ch);
      i += w;
    } else if (LETTERS.test(ch)) {
      let j = i;
      while (j < s.length) {
        const c = String.fromCodePoint(s.codePointAt(j)!);
        if (!LETTERS.test(c) || SINGLE.test(c)) break;
        j += c.length;
      }
      out.push(s.slice(i, j));
      i = j;
    } else {
      out.push(ch);
      i += w;
    }
  }
  return out;
}

/** FNV-1a over the UTF-16 code units of a string (32-bit, unsigned). */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The hashed unigram + bigram vector of one text.
 *
 * @example
 * const v = ngramHashFeatures("What is 2 + 2?", { buckets: 1024, scale: 1 }); // Float32Array(1024), |v| = 1
 */
export function ngramHashFeatures(
  text: string,
  options: NgramHashOptions,
  out: Float32Array = new Float32Array(options.buckets),
): Float32Array {
  const { buckets, scale } = options;
  out.fill(0);
  const tokens = ngramTokens(text);
  const counts = new Map<string, number>();
  for (let k = 0; k < tokens.length; k++) {
    counts.set(`1\u0000${tokens[k]}`, (counts.get(`1\u0000${tokens[k]}`) ?? 0) + 1);
    if (k > 0)
      counts.set(
        `2\u0000${tokens[k - 1]}\u0000${tokens[k]}`,
        (counts.get(`2\u0000${tokens[k - 1]}\u0000${tokens[k]}`) ?? 0) + 1,
      );
  }
  for (const [feature, c] of counts) {
    const h = fnv1a(feature);
    const slot = h % buckets;
    const sign = (fnv1a(`s\u0000${feature}`) & 1) === 0 ? 1 : -1;
    out[slot]! += sign * Math.log1p(c);
  }
  let n2 = 0;
  for (let j = 0; j < buckets; j++) n2 += out[j]! * out[j]!;
  if (n2 > 0) {
    const f = scale / Math.sqrt(n2);
    for (let j = 0; j < buckets; j++) out[j]! *= f;
  }
  return out;
}
