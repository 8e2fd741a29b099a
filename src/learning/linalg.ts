/**
 * Small dense linear algebra on row-major `Float64Array` matrices (d x d), enough for the
 * Gaussian ability posteriors: Cholesky factorisation with adaptive jitter, solves and inverses.
 * Everything is in double precision; no allocation in the inner loops.
 */

/** Cholesky factor L (lower triangular, row-major) of a symmetric positive-definite matrix. */
export interface CholeskyResult {
  /** Lower-triangular factor, `A + jitter * I = L L^T`. */
  readonly L: Float64Array;
  /** Diagonal jitter that had to be added for the factorisation to succeed (0 when none). */
  readonly jitter: number;
}

/**
 * In-place-free Cholesky factorisation of the symmetric matrix `A` (only the lower triangle is read).
 * When `A` is not numerically positive definite, a growing diagonal jitter (starting at
 * `1e-10 * mean(diag)`) is added until it is; after 12 attempts it throws a RangeError.
 *
 * @example
 * ```ts
 * const { L } = cholesky(new Float64Array([4, 2, 2, 3]), 2); // L = [2, 0, 1, sqrt(2)]
 * ```
 */
export function cholesky(A: Float64Array, d: number, out?: Float64Array): CholeskyResult {
  const L = out ?? new Float64Array(d * d);
  let meanDiag = 0;
  for (let i = 0; i < d; i++) meanDiag += A[i * d + i]!;
  meanDiag = Math.abs(meanDiag / d) || 1;
  let jitter = 0;
  for (let attempt = 0; attempt < 12; attempt++) {
    if (factorOnce(A, d, L, jitter)) return { L, jitter };
    jitter = jitter === 0 ? 1e-10 * meanDiag : jitter * 10;
  }
  throw new RangeError(
    `cholesky: matrix (d=${d}) is not positive definite even with jitter ${jitter.toExponential(2)}`,
  );
}

function factorOnce(A: Float64Array, d: number, L: Float64Array, jitter: number): boolean {
  L.fill(0);
  for (let j = 0; j < d; j++) {
    const rj = j * d;
    let s = A[rj + j]! + jitter;
    for (let k = 0; k < j; k++) s -= L[rj + k]! * L[rj + k]!;
    if (!(s > 0) || !Number.isFinite(s)) return false;
    const ljj = Math.sqrt(s);
    L[rj + j] = ljj;
    for (let i = j + 1; i < d; i++) {
      const ri = i * d;
      let t = A[ri + j]!;
      for (let k = 0; k < j; k++) t -= L[ri + k]! * L[rj + k]!;
      L[ri + j] = t / ljj;
    }
  }
  return true;
}

/** Solves `L L^T x = b` given the Cholesky factor; writes into `out` (may alias `b`). */
export function choleskySolve(L: Float64Array, d: number, b: ArrayLike<number>, out?: Float64Array): Float64Array {
  const x = out ?? new Float64Array(d);
  // forward: L z = b
  for (let i = 0; i < d; i++) {
    let s = b[i]!;
    const ri = i * d;
    for (let k = 0; k < i; k++) s -= L[ri + k]! * x[k]!;
    x[i] = s / L[ri + i]!;
  }
  // backward: L^T x = z
  for (let i = d - 1; i >= 0; i--) {
    let s = x[i]!;
    for (let k = i + 1; k < d; k++) s -= L[k * d + i]! * x[k]!;
    x[i] = s / L[i * d + i]!;
  }
  return x;
}

/** Inverse of `A = L L^T` (symmetric, full storage) from its Cholesky factor. */
export function inverseFromCholesky(L: Float64Array, d: number, out?: Float64Array): Float64Array {
  const inv = out ?? new Float64Array(d * d);
  // Linv = L^{-1} (lower triangular)
  const Linv = new Float64Array(d * d);
  for (let j = 0; j < d; j++) {
    Linv[j * d + j] = 1 / L[j * d + j]!;
    for (let i = j + 1; i < d; i++) {
      let s = 0;
      const ri = i * d;
      for (let k = j; k < i; k++) s -= L[ri + k]! * Linv[k * d + j]!;
      Linv[ri + j] = s / L[ri + i]!;
    }
  }
  // A^{-1} = Linv^T Linv
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = i; k < d; k++) s += Linv[k * d + i]! * Linv[k * d + j]!;
      inv[i * d + j] = s;
      inv[j * d + i] = s;
    }
  }
  return inv;
}

/** `out = M x` for a d x d row-major matrix. */
export function matVec(M: Float64Array, d: number, x: ArrayLike<number>, out?: Float64Array): Float64Array {
  const y = out ?? new Float64Array(d);
  for (let i = 0; i < d; i++) {
    let s = 0;
    const ri = i * d;
    for (let k = 0; k < d; k++) s += M[ri + k]! * x[k]!;
    y[i] = s;
  }
  return y;
}

/** Dot product of two vectors of the same length. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>, n = a.length): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}

/** `x^T M x` for a symmetric d x d matrix. */
export function quadForm(M: Float64Array, d: number, x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < d; i++) {
    const ri = i * d;
    const xi = x[i]!;
    let row = 0;
    for (let k = 0; k < i; k++) row += M[ri + k]! * x[k]!;
    s += xi * (2 * row + M[ri + i]! * xi);
  }
  return s;
}
