/**
 * The prior of a new task's difficulty from its text: the similarity-weighted mean difficulty of the most similar
 * tasks seen before (cosine over hashed word counts, log-scaled and length-normalised), shrunk to the mean of all seen
 * tasks. With no task seen, the prior is N(0, sd^2).
 */

/** Size of the hashed word space: a text vector's indices are below it. */
export const TEXT_DIM = 1 << 14;

/** A task text as a sparse unit vector of hashed, log-scaled word counts. */
export type TextVector = ReadonlyMap<number, number>;

/** 32-bit FNV-1a of a string's UTF-16 code units (other `offset` and `prime` give an independent hash). */
function fnv1a(s: string, offset = 2166136261, prime = 16777619): number {
  let h = offset;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), prime);
  return h >>> 0;
}

function hashWord(word: string): number {
  return fnv1a(word) % TEXT_DIM;
}

/** The sparse vector of a text (see the module comment). */
export function textVector(text: string): TextVector {
  const counts = new Map<number, number>();
  for (const word of text.toLowerCase().match(/[a-z][a-z0-9_]{2,}/g) ?? []) {
    const h = hashWord(word);
    counts.set(h, (counts.get(h) ?? 0) + 1);
  }
  let norm = 0;
  for (const [k, c] of counts) {
    const v = 1 + Math.log(c);
    counts.set(k, v);
    norm += v * v;
  }
  norm = Math.sqrt(norm) || 1;
  for (const [k, v] of counts) counts.set(k, v / norm);
  return counts;
}

function cosine(a: TextVector, b: TextVector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [k, v] of small) dot += v * (large.get(k) ?? 0);
  return dot;
}

/** A seen task: its vector and its fitted difficulty. */
export interface KnownTask {
  readonly vector: TextVector;
  readonly difficulty: number;
}

/**
 * Prior mean of a task's difficulty from the `k` most similar known tasks. `weight` in [0, 1] is how much the
 * neighbours count against the mean of all known tasks (0: the text is ignored).
 */
export function difficultyPrior(vector: TextVector, known: readonly KnownTask[], k: number, weight: number): number {
  if (known.length === 0) return 0;
  const mean = known.reduce((s, t) => s + t.difficulty, 0) / known.length;
  if (weight <= 0 || vector.size === 0) return mean;
  const sims = known.map((t) => ({ s: cosine(vector, t.vector), b: t.difficulty })).sort((x, y) => y.s - x.s);
  // The k nearest; past tasks tied with the k-th share its places equally, so that which of them were learnt first
  // (two replicas may have learnt them in another order) changes nothing, and none is preferred for its difficulty.
  const edge = sims[Math.min(k, sims.length) - 1]!.s;
  const above = sims.filter((x) => x.s > edge).length;
  const share = (k - above) / sims.filter((x) => x.s === edge).length;
  let sw = 0;
  let sb = 0;
  for (const { s, b } of sims) {
    if (s < edge || s <= 0) break;
    const w = s === edge ? s * Math.min(1, share) : s;
    sw += w;
    sb += w * b;
  }
  return sw > 0 ? mean + weight * (sb / sw - mean) : mean;
}

/**
 * A string's length and two 32-bit FNV-1a-style hashes (other offsets and primes), as a short key: equal texts, and in
 * practice only they, match.
 */
export function fingerprint(s: string): string {
  const a = fnv1a(s);
  const b = fnv1a(s, 0x811c9dc5 ^ 0x5bd1e995, 0x5bd1e995);
  return `${s.length}.${a.toString(36)}.${b.toString(36)}`;
}
