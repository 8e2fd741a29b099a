/**
 * mulberry32: a tiny seeded 32-bit generator. Returns a function giving uniform numbers in [0, 1);
 * the same initial state gives the same stream on every machine. Callers choose how a seed becomes
 * the initial state (e.g. hash it so nearby seeds give unrelated streams).
 */
export function mulberry32(initialState: number): () => number {
  let state = initialState | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
