/**
 * The SentencePiece tokenizer's tables as bytes: what `npm run build` saves next to the package's code so that a fresh
 * process restores the static encoder's tokenizer from typed-array views instead of parsing the vocabulary and
 * building its trie (tens of milliseconds of cold code on a first routed call). Pure: the adapter reads, checks and
 * writes the file (adapters/encoders/static-tokenizer.ts).
 *
 * Layout, little-endian: the vocabulary's sha256 (64 ASCII hex digits), 8 int32 (format version, vocabulary size,
 * trie nodes, edge slots, symbols, code-point pairs, two zero), then the arrays: scores (float64, first so that it
 * is 8-byte aligned), ids, the edge table's parents, symbols and children, the root's children, the (code point,
 * symbol) pairs and each id's piece length. The edge table is re-hashed at about half full (the constructor sizes
 * it for the vocabulary's characters, an upper bound on the nodes), so the file holds about 1 MB.
 *
 * @module
 */
import { edgeSlot, LOW_CODE_POINTS, type PieceTables, type PieceTrie } from "./sentencepiece.js";

const FORMAT_VERSION = 1;
const SHA_CHARS = 64;
const HEADER_INTS = 8;

/** Nodes of the trie in use: the root and one per edge (the constructor allocates for every character). */
function nodesOf(trie: PieceTrie): number {
  let nodes = 1;
  for (let slot = 0; slot < trie.edgeParent.length; slot++) if (trie.edgeParent[slot] !== -1) nodes++;
  return nodes;
}

/** The trie's edges in a table sized for its nodes (about half full), probed as sentencepiece.ts probes it. */
function compactEdges(
  trie: PieceTrie,
  nodes: number,
): Pick<PieceTrie, "edgeParent" | "edgeSymbol" | "edgeChild" | "mask"> {
  let size = 2;
  while (size < nodes * 2) size *= 2;
  const mask = size - 1;
  const edgeParent = new Int32Array(size).fill(-1);
  const edgeSymbol = new Int32Array(size);
  const edgeChild = new Int32Array(size);
  for (let from = 0; from < trie.edgeParent.length; from++) {
    const parent = trie.edgeParent[from]!;
    if (parent === -1) continue;
    let slot = edgeSlot(parent, trie.edgeSymbol[from]!, mask);
    while (edgeParent[slot] !== -1) slot = (slot + 1) & mask;
    edgeParent[slot] = parent;
    edgeSymbol[slot] = trie.edgeSymbol[from]!;
    edgeChild[slot] = trie.edgeChild[from]!;
  }
  return { edgeParent, edgeSymbol, edgeChild, mask };
}

/** The (code point, symbol) pairs of every code point the trie knows. */
function symbolPairs(trie: PieceTrie): Int32Array {
  const pairs: number[] = [];
  for (let cp = 0; cp < trie.lowSymbol.length; cp++) if (trie.lowSymbol[cp]! >= 0) pairs.push(cp, trie.lowSymbol[cp]!);
  for (const [cp, symbol] of trie.highSymbol) pairs.push(cp, symbol);
  return Int32Array.from(pairs);
}

/**
 * The bytes of a tokenizer's tables, tagged with the sha256 of the vocabulary they were built from.
 *
 * @example
 * ```ts
 * const bytes = encodePieceTables(pieceTablesOf(new SentencePieceTokenizer(vocabulary)), vocabSha256);
 * ```
 */
export function encodePieceTables(tables: PieceTables, vocabSha256: string): Uint8Array {
  if (!/^[0-9a-f]{64}$/.test(vocabSha256)) throw new Error("vocabSha256 must be 64 hex digits");
  const { trie, stepOf } = tables;
  const nodes = nodesOf(trie);
  const edges = compactEdges(trie, nodes);
  const pairs = symbolPairs(trie);
  const header = Int32Array.of(
    FORMAT_VERSION,
    stepOf.length,
    nodes,
    edges.mask + 1,
    trie.rootChild.length,
    pairs.length / 2,
    0,
    0,
  );
  const parts: ArrayBufferView[] = [
    new TextEncoder().encode(vocabSha256),
    header,
    trie.scoreOf.subarray(0, nodes),
    trie.idOf.subarray(0, nodes),
    edges.edgeParent,
    edges.edgeSymbol,
    edges.edgeChild,
    trie.rootChild,
    pairs,
    stepOf,
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(new Uint8Array(part.buffer, part.byteOffset, part.byteLength), at);
    at += part.byteLength;
  }
  return out;
}

/**
 * The tables in `bytes` (from {@link encodePieceTables}) and the sha256 of the vocabulary they were built from, as
 * views over `bytes` (which must start 8-byte aligned in its buffer). Throws an Error when the bytes are not such
 * tables (their caller then builds the tokenizer from the vocabulary).
 *
 * @example
 * ```ts
 * const { vocabSha256, tables } = decodePieceTables(bytes);
 * if (vocabSha256 === manifest.vocabulary.sha256) tokenizer = tokenizerFromTables(tables);
 * ```
 */
export function decodePieceTables(bytes: Uint8Array): { vocabSha256: string; tables: PieceTables } {
  if (bytes.byteOffset % 8 !== 0) throw new Error("the tables' bytes must start 8-byte aligned");
  if (bytes.byteLength < SHA_CHARS + HEADER_INTS * 4) throw new Error("too short for piece tables");
  const vocabSha256 = new TextDecoder().decode(bytes.subarray(0, SHA_CHARS));
  const header = new Int32Array(bytes.buffer, bytes.byteOffset + SHA_CHARS, HEADER_INTS);
  const [version, size, nodes, slots, symbols, pairCount] = header as unknown as number[];
  if (version !== FORMAT_VERSION) throw new Error(`piece tables format ${version}, expected ${FORMAT_VERSION}`);
  if (!(slots! > 0 && (slots! & (slots! - 1)) === 0)) throw new Error("the edge table's size is not a power of 2");
  let at = bytes.byteOffset + SHA_CHARS + HEADER_INTS * 4;
  const take = <T>(
    make: new (buffer: ArrayBufferLike, offset: number, length: number) => T,
    n: number,
    width: number,
  ) => {
    if (n < 0 || at + n * width > bytes.byteOffset + bytes.byteLength) throw new Error("piece tables truncated");
    const view = new make(bytes.buffer, at, n);
    at += n * width;
    return view;
  };
  const scoreOf = take(Float64Array, nodes!, 8);
  const idOf = take(Int32Array, nodes!, 4);
  const edgeParent = take(Int32Array, slots!, 4);
  const edgeSymbol = take(Int32Array, slots!, 4);
  const edgeChild = take(Int32Array, slots!, 4);
  const rootChild = take(Int32Array, symbols!, 4);
  const pairs = take(Int32Array, pairCount! * 2, 4);
  const stepOf = take(Int32Array, size!, 4);
  if (at !== bytes.byteOffset + bytes.byteLength) throw new Error("piece tables have trailing bytes");
  const lowSymbol = new Int32Array(LOW_CODE_POINTS).fill(-1);
  const highSymbol = new Map<number, number>();
  for (let i = 0; i < pairs.length; i += 2) {
    if (pairs[i]! < LOW_CODE_POINTS) lowSymbol[pairs[i]!] = pairs[i + 1]!;
    else highSymbol.set(pairs[i]!, pairs[i + 1]!);
  }
  const trie: PieceTrie = {
    idOf,
    scoreOf,
    edgeParent,
    edgeSymbol,
    edgeChild,
    mask: slots! - 1,
    rootChild,
    lowSymbol,
    highSymbol,
  };
  return { vocabSha256, tables: { trie, stepOf } };
}
