/**
 * The project's seeded random numbers: one {@link Rng} interface and the three streams that feed it. No
 * `Math.random` anywhere: the same seed gives the same draws on every machine. Each stream is kept as it was
 * introduced (changing one would change every result computed from it):
 *
 * - {@link createRng}: mulberry32 with a hashed seed; the evaluation harness, the baselines and the bootstrap.
 * - {@link trainingRng}: sfc32; the scorer's initialisation, shuffles, dropout masks and input noise.
 * - {@link seededRng}: mulberry32 with an xor-ed seed; online learning's exploration and calibration probes.
 */

/** A seeded stream of random draws. */
export interface Rng {
  /** Next uniform number in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n): `floor(next() * n)`. */
  int(n: number): number;
  /** Standard normal draw (Box-Muller). */
  normal(): number;
  /** In-place Fisher-Yates shuffle of `xs` (one `int` draw per position); returns `xs`. */
  shuffle<T>(xs: T[]): T[];
}

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

/** Fisher-Yates shuffle of `a` in place with `rng`; returns `a`. */
export function shuffleInPlace<T extends { length: number; [i: number]: any }>(a: T, rng: Pick<Rng, "int">): T {
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
  return a;
}

/** Standard normal draws by Box-Muller from `next`, returning the second value of each pair on the next call. */
function cachedBoxMuller(next: () => number): () => number {
  let spare: number | undefined;
  return () => {
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
  };
}

/** An {@link Rng} over a uniform source and a normal draw. */
function rngOf(next: () => number, normal: () => number): Rng {
  const rng: Rng = {
    next,
    int: (n) => Math.floor(next() * n),
    normal,
    shuffle: (xs) => shuffleInPlace(xs, rng),
  };
  return rng;
}

/**
 * mulberry32 generator seeded with a 32-bit integer (other numbers are hashed into one); the stream of the
 * evaluation harness, the baselines and the bootstrap.
 *
 * @example
 * ```ts
 * const rng = createRng(42);
 * const u = rng.next(); // same value on every run
 * ```
 */
export function createRng(seed: number): Rng {
  const next = mulberry32(hashSeed(seed));
  return rngOf(next, cachedBoxMuller(next));
}

function hashSeed(seed: number): number {
  // splitmix-style scramble so that nearby seeds give unrelated streams
  let x = (Math.floor(seed) ^ 0x9e3779b9) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * The online learner's stream (exploration draws, calibration probes): mulberry32, and a normal draw that uses two
 * uniforms every time (no cached second value).
 *
 * @example
 * ```ts
 * const rng = seededRng(7);
 * rng.normal();
 * ```
 */
export function seededRng(seed: number): Rng {
  const next = mulberry32((Math.floor(seed) ^ 0x9e3779b9) >>> 0);
  return rngOf(next, () => {
    let u = 0;
    while (u === 0) u = next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  });
}

/**
 * The scorer's training stream (sfc32), so that initialisation, shuffles, dropout masks and input noise are
 * reproducible: same machine + same seed => same weights.
 *
 * @example
 * ```ts
 * const rng = trainingRng(1);
 * const order = rng.shuffle([0, 1, 2, 3]);
 * ```
 */
export function trainingRng(seed: number): Rng {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const nextUint32 = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 16; i++) nextUint32();
  const next = () => nextUint32() / 4294967296;
  return rngOf(next, cachedBoxMuller(next));
}
