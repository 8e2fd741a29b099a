import { mulberry32 } from "../util/random.js";

/** Seeded uniform and normal draws for exploration (mulberry32 + Box-Muller); no Math.random. */
export interface ExplorationRng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Standard normal. */
  normal(): number;
}

/**
 * A reproducible generator: the same seed gives the same stream on every machine.
 *
 * @example
 * ```ts
 * const rng = seededRng(7);
 * rng.normal();
 * ```
 */
export function seededRng(seed: number): ExplorationRng {
  const next = mulberry32((Math.floor(seed) ^ 0x9e3779b9) >>> 0);
  return {
    next,
    normal: () => {
      let u = 0;
      while (u === 0) u = next();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
    },
  };
}
