/**
 * Small seeded pseudo-random generators for the evaluation harness and the baselines:
 * the same seed gives the same stream on every machine (no Math.random anywhere).
 */
import { mulberry32 } from "../util/random.js";

/** A stream of uniform numbers in [0, 1). */
export interface Rng {
  /** Next uniform number in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Standard normal draw (Box-Muller). */
  normal(): number;
}

/**
 * mulberry32 generator seeded with a 32-bit integer (other numbers are hashed into one).
 *
 * @example
 * ```ts
 * const rng = createRng(42);
 * const u = rng.next(); // same value on every run
 * ```
 */
export function createRng(seed: number): Rng {
  const next = mulberry32(hashSeed(seed));
  let spare: number | undefined;
  return {
    next,
    int: (n) => Math.floor(next() * n),
    normal: () => {
      if (spare !== undefined) {
        const s = spare;
        spare = undefined;
        return s;
      }
      let u = 0;
      while (u === 0) u = next();
      const v = next();
      const r = Math.sqrt(-2 * Math.log(u));
      spare = r * Math.sin(2 * Math.PI * v);
      return r * Math.cos(2 * Math.PI * v);
    },
  };
}

function hashSeed(seed: number): number {
  // splitmix-style scramble so that nearby seeds give unrelated streams
  let x = (Math.floor(seed) ^ 0x9e3779b9) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

/** Fisher-Yates shuffle of `a` in place with `rng`; returns `a`. */
export function shuffleInPlace<T extends { length: number; [i: number]: any }>(a: T, rng: Rng): T {
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
  return a;
}
