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

/**
 * The piece trie in typed arrays: nodes are numbered (root 0), symbols are the vocabulary's code points numbered
 * densely, and the edges live in one open-addressing hash table keyed by (node, symbol), so a step of the Viterbi
 * walk is a few integer operations instead of a Map lookup per node (about 2x faster tokenization).
 */
export interface PieceTrie {
  /** Token id ending at each node, or -1. */
  readonly idOf: Int32Array;
  readonly scoreOf: Float64Array;
  /** Edge table: parent node and symbol of each slot (-1 = empty), and the child node it leads to. */
  readonly edgeParent: Int32Array;
  readonly edgeSymbol: Int32Array;
  readonly edgeChild: Int32Array;
  readonly mask: number;
  /** The root's child along each symbol, or -1 (the first step of every walk, without hashing). */
  readonly rootChild: Int32Array;
  /** Symbol of each code point below 0x3000 (covers ASCII, Latin, and the word marker U+2581), -1 when none. */
  readonly lowSymbol: Int32Array;
  /** Symbol of the other code points found in the vocabulary. */
  readonly highSymbol: Map<number, number>;
}

/** Code points below this have a dense symbol array in the trie ({@link PieceTrie.lowSymbol}). */
export const LOW_CODE_POINTS = 0x3000;

/** The first slot probed for the edge (parent, symbol) in an edge table of `mask + 1` slots. */
export const edgeSlot = (parent: number, symbol: number, mask: number) =>
  (Math.imul(parent, 0x9e3779b1) ^ Math.imul(symbol + 1, 0x85ebca77)) & mask;

/** The trie of the pieces of ids `reserved` and up (empty pieces skipped; a piece listed twice keeps its last id). */
function buildTrie(vocabulary: SentencePieceVocabulary, reserved: number): PieceTrie {
  let chars = 0;
  for (let id = reserved; id < vocabulary.length; id++) chars += vocabulary[id]![0].length;
  let size = 2;
  while (size < chars * 2) size *= 2;
  const mask = size - 1;
  const edgeParent = new Int32Array(size).fill(-1);
  const edgeSymbol = new Int32Array(size);
  const edgeChild = new Int32Array(size);
  const idOf = new Int32Array(chars + 1).fill(-1);
  const scoreOf = new Float64Array(chars + 1);
  const lowSymbol = new Int32Array(LOW_CODE_POINTS).fill(-1);
  const highSymbol = new Map<number, number>();
  let symbols = 0;
  let nodes = 1;
  const trie = {
    idOf,
    scoreOf,
    edgeParent,
    edgeSymbol,
    edgeChild,
    mask,
    rootChild: new Int32Array(0),
    lowSymbol,
    highSymbol,
  };
  for (let id = reserved; id < vocabulary.length; id++) {
    // Indexing, not destructuring: this loop runs once per process, cold, and destructuring an array goes through
    // the iterator protocol there (a few milliseconds of a fresh process's first call).
    const entry = vocabulary[id]!;
    const piece = entry[0];
    if (piece.length === 0) continue;
    let node = 0;
    for (let i = 0; i < piece.length; i++) {
      const cp = piece.codePointAt(i)!;
      if (cp > 0xffff) i++;
      let symbol = symbolOf(trie, cp);
      if (symbol < 0) {
        symbol = symbols++;
        if (cp < LOW_CODE_POINTS) lowSymbol[cp] = symbol;
        else highSymbol.set(cp, symbol);
      }
      let child = step(trie, node, symbol);
      if (child < 0) {
        child = nodes++;
        let slot = edgeSlot(node, symbol, mask);
        while (edgeParent[slot] !== -1) slot = (slot + 1) & mask;
        edgeParent[slot] = node;
        edgeSymbol[slot] = symbol;
        edgeChild[slot] = child;
      }
      node = child;
    }
    idOf[node] = id;
    scoreOf[node] = entry[1] ?? 0;
  }
  const rootChild = new Int32Array(symbols).fill(-1);
  for (let slot = 0; slot < size; slot++) if (edgeParent[slot] === 0) rootChild[edgeSymbol[slot]!] = edgeChild[slot]!;
  return { ...trie, rootChild };
}

/** The trie symbol of a code point, or -1 when no piece contains it. */
function symbolOf(trie: PieceTrie, cp: number): number {
  return cp < LOW_CODE_POINTS ? trie.lowSymbol[cp]! : (trie.highSymbol.get(cp) ?? -1);
}

/** The child of `node` along `symbol`, or -1. */
function step(trie: PieceTrie, node: number, symbol: number): number {
  const { edgeParent, edgeSymbol, mask } = trie;
  let slot = edgeSlot(node, symbol, mask);
  for (;;) {
    const parent = edgeParent[slot]!;
    if (parent === -1) return -1;
    if (parent === node && edgeSymbol[slot] === symbol) return trie.edgeChild[slot]!;
    slot = (slot + 1) & mask;
  }
}

/** Id emitted for a symbol no piece covers. */
export const UNKNOWN_ID = 0;

/** What a tokenizer builds from its vocabulary: the piece trie and each id's piece length. */
export interface PieceTables {
  readonly trie: PieceTrie;
  /** UTF-16 length of each id's piece (its length is the vocabulary's size). */
  readonly stepOf: Int32Array;
}

/** The tables of a vocabulary, as {@link SentencePieceTokenizer}'s constructor builds them. */
function buildTables(vocabulary: SentencePieceVocabulary, reserved: number): PieceTables {
  const stepOf = new Int32Array(vocabulary.length);
  for (let id = 0; id < vocabulary.length; id++) stepOf[id] = vocabulary[id]![0].length;
  return { trie: buildTrie(vocabulary, reserved), stepOf };
}

/** A tokenizer's tables, to save them (piece-tables.ts) and restore the same tokenizer without its vocabulary. */
export function pieceTablesOf(tokenizer: SentencePieceTokenizer): PieceTables {
  const { trie, stepOf } = tokenizer as unknown as PieceTables;
  return { trie, stepOf };
}

/**
 * The tokenizer of saved tables (from {@link pieceTablesOf}): the same ids as the tokenizer they were taken from,
 * without reading or building from the vocabulary (what a fresh process's first call otherwise spends on it).
 */
export function tokenizerFromTables(tables: PieceTables): SentencePieceTokenizer {
  const tokenizer = Object.create(SentencePieceTokenizer.prototype) as { size: number } & PieceTables;
  return Object.assign(tokenizer, { size: tables.stepOf.length, ...tables }) as unknown as SentencePieceTokenizer;
}

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
  private readonly trie: PieceTrie;
  /** UTF-16 length of each id's piece: how far the Viterbi back-trace steps for that id. */
  private readonly stepOf: Int32Array;

  constructor(vocabulary: SentencePieceVocabulary, options: SentencePieceOptions = {}) {
    this.size = vocabulary.length;
    ({ trie: this.trie, stepOf: this.stepOf } = buildTables(vocabulary, options.reservedIds ?? 6));
  }

  /** NFKC, spaces to "▁", and a leading "▁" (empty stays empty). */
  static normalize(text: string): string {
    // ASCII is its own NFKC form: skip the normalizer's pass over plain-ASCII text.
    const normalized = ASCII.test(text) ? text : text.normalize("NFKC");
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
    const trie = this.trie;
    const symbols = symbolsOf(SentencePieceTokenizer.normalize(text), trie);
    const n = symbols.length;
    const best = new Float64Array(n + 1);
    const chosen = new Int32Array(n + 1);
    // Forward pass: when start i is visited, every piece ending at i came from an earlier start,
    // so best[i] is final; updates to one end arrive in increasing start order. A position whose best
    // score is exactly 0 counts as not yet reached; ties go to the later candidate.
    for (let i = 0; i < n; i++) {
      let node = 0;
      let matched = false;
      const from = best[i]!;
      for (let j = i; j < n; j++) {
        const symbol = symbols[j]!;
        if (symbol < 0) break;
        node = node === 0 ? trie.rootChild[symbol]! : step(trie, node, symbol);
        if (node < 0) break;
        const id = trie.idOf[node]!;
        if (id >= 0) {
          matched = true;
          const total = trie.scoreOf[node]! + from;
          if (best[j + 1] === 0 || total >= best[j + 1]!) {
            best[j + 1] = total;
            chosen[j + 1] = id;
          }
        }
      }
      if (!matched && (best[i + 1] === 0 || from >= best[i + 1]!)) {
        best[i + 1] = from;
        chosen[i + 1] = UNKNOWN_ID;
      }
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

/** Plain ASCII (no code unit above U+007F). */
const ASCII = /^[^\u0080-\uffff]*$/;

/**
 * The trie symbol of each code point of a string, in code-point positions (a lone surrogate is its own code point);
 * -1 for a code point that no piece contains.
 */
function symbolsOf(text: string, trie: PieceTrie): Int32Array {
  const out = new Int32Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!;
    out[n++] = symbolOf(trie, cp);
    if (cp > 0xffff) i++;
  }
  return out.subarray(0, n);
}
