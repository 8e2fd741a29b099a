/**
 * Unigram SentencePiece tokenizer for the Universal Sentence Encoder lite vocabulary.
 *
 * Pure logic, no I/O. It reproduces, id for id, the tokenizer that TensorFlow.js ships with
 * USE-lite (and that `@energetic-ai/embeddings` bundles), including its quirks, because the
 * model's weights were used with exactly that segmentation:
 *
 * - normalisation: Unicode NFKC, then every ASCII space becomes the word marker "▁" and one
 *   "▁" is prepended (an empty text stays empty and yields no tokens);
 * - symbols are Unicode code points (a lone surrogate is one symbol of its own);
 * - the first {@link SentencePieceOptions.reservedIds} ids (`�`, `<s>`, `</s>`, ...) are never
 *   produced by matching; a piece listed twice keeps its last id; a `null` score counts as 0;
 * - Viterbi: the best segmentation maximises the sum of piece scores, where a position whose
 *   best score is exactly 0 counts as "not yet reached" and ties go to the later candidate;
 * - a symbol that starts no vocabulary piece becomes the unknown id 0, and runs of unknowns
 *   collapse into one id 0.
 *
 * @module
 */

/** The vocabulary file format: `[[piece, score], ...]`; the index of an entry is its token id. */
export type SentencePieceVocabulary = ReadonlyArray<readonly [string, number | null]>;

/** Word marker that replaces spaces and starts every non-empty text. */
export const WORD_MARKER = "\u2581";

/** Options of {@link SentencePieceTokenizer}. */
export interface SentencePieceOptions {
  /** Ids below this are reserved (unknown, bos, eos, ...) and never matched. Default 6, as in USE-lite. */
  readonly reservedIds?: number;
}

/** One node of the piece trie, keyed by code point. */
interface TrieNode {
  children: Map<number, TrieNode> | undefined;
  /** Token id when a piece ends here, else -1. */
  id: number;
  score: number;
}

const newNode = (): TrieNode => ({ children: undefined, id: -1, score: 0 });

/** Id emitted for a symbol no piece covers. */
export const UNKNOWN_ID = 0;

/**
 * A unigram SentencePiece tokenizer over a `[piece, score]` vocabulary.
 *
 * @example
 * ```ts
 * const tokenizer = new SentencePieceTokenizer(vocabulary); // vocab.json of USE-lite
 * tokenizer.encode("Hello world"); // e.g. [1234, 567]
 * ```
 */
export class SentencePieceTokenizer {
  /** Number of entries in the vocabulary (largest id + 1). */
  readonly size: number;
  private readonly root: TrieNode = newNode();
  /** UTF-16 length of each id's piece: how far the Viterbi back-trace steps for that id. */
  private readonly stepOf: Int32Array;

  constructor(vocabulary: SentencePieceVocabulary, options: SentencePieceOptions = {}) {
    const reserved = options.reservedIds ?? 6;
    this.size = vocabulary.length;
    this.stepOf = new Int32Array(vocabulary.length);
    for (let id = 0; id < vocabulary.length; id++) {
      const [piece, score] = vocabulary[id]!;
      this.stepOf[id] = piece.length;
      if (id >= reserved) this.insert(piece, score ?? 0, id);
    }
  }

  private insert(piece: string, score: number, id: number): void {
    if (piece.length === 0) return;
    let node = this.root;
    for (const ch of piece) {
      const cp = ch.codePointAt(0)!;
      node.children ??= new Map();
      let next = node.children.get(cp);
      if (!next) {
        next = newNode();
        node.children.set(cp, next);
      }
      node = next;
    }
    node.id = id;
    node.score = score;
  }

  /** NFKC, spaces to "▁", and a leading "▁" (empty stays empty). */
  static normalize(text: string): string {
    const normalized = text.normalize("NFKC");
    return normalized.length > 0 ? WORD_MARKER + normalized.replaceAll(" ", WORD_MARKER) : normalized;
  }

  /**
   * Token ids of `text`, the whole text (callers truncate).
   *
   * @example
   * ```ts
   * tokenizer.encode(""); // []
   * ```
   */
  encode(text: string): number[] {
    const symbols = codePoints(SentencePieceTokenizer.normalize(text));
    const n = symbols.length;
    const best = new Float64Array(n + 1);
    const chosen = new Int32Array(n + 1);
    const relax = (start: number, end: number, score: number, id: number) => {
      const total = score + best[start]!;
      if (best[end] === 0 || total >= best[end]!) {
        best[end] = total;
        chosen[end] = id;
      }
    };
    // Forward pass: when start i is visited, every piece ending at i came from an earlier start,
    // so best[i] is final; updates to one end arrive in increasing start order.
    for (let i = 0; i < n; i++) {
      let node: TrieNode | undefined = this.root;
      let matched = false;
      for (let j = i; j < n; j++) {
        node = node.children?.get(symbols[j]!);
        if (!node) break;
        if (node.id >= 0) {
          matched = true;
          relax(i, j + 1, node.score, node.id);
        }
      }
      if (!matched) relax(i, i + 1, 0, UNKNOWN_ID);
    }
    const reversed: number[] = [];
    let previousUnknown = false;
    for (let at = n; at > 0; at -= this.stepOf[chosen[at]!]!) {
      const id = chosen[at]!;
      if (!(previousUnknown && id === UNKNOWN_ID)) reversed.push(id);
      previousUnknown = id === UNKNOWN_ID;
    }
    return reversed.reverse();
  }
}

/** Code points of a string; a lone surrogate is its own symbol. */
function codePoints(text: string): Int32Array {
  const out = new Int32Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!;
    out[n++] = cp;
    if (cp > 0xffff) i++;
  }
  return out.subarray(0, n);
}
