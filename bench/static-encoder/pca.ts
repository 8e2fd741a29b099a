/**
 * Principal components of a set of row vectors, for building the static encoder's table: the mean, and the top
 * eigenvectors of the covariance (cyclic Jacobi on the `dim x dim` matrix; deterministic, about seconds for 512).
 */

/** Mean and the top `k` principal axes (row-major `k x dim`, unit norm, sign fixed: largest entry positive). */
export interface Pca {
  readonly mean: Float64Array;
  readonly axes: Float64Array;
  readonly k: number;
  /** Variance along each axis, descending. */
  readonly variances: Float64Array;
  /** Total variance (all axes). */
  readonly total: number;
}

/** PCA of `rows x dim` values (only the rows `use(r)` keeps count). */
export function pca(
  values: Float32Array,
  rows: number,
  dim: number,
  k: number,
  use: (r: number) => boolean = () => true,
): Pca {
  const mean = new Float64Array(dim);
  let n = 0;
  for (let r = 0; r < rows; r++) {
    if (!use(r)) continue;
    n++;
    for (let j = 0; j < dim; j++) mean[j]! += values[r * dim + j]!;
  }
  for (let j = 0; j < dim; j++) mean[j]! /= n;
  const cov = new Float64Array(dim * dim);
  const centred = new Float64Array(dim);
  for (let r = 0; r < rows; r++) {
    if (!use(r)) continue;
    for (let j = 0; j < dim; j++) centred[j] = values[r * dim + j]! - mean[j]!;
    for (let a = 0; a < dim; a++) {
      const ca = centred[a]!;
      for (let b = a; b < dim; b++) cov[a * dim + b]! += ca * centred[b]!;
    }
  }
  for (let a = 0; a < dim; a++)
    for (let b = a; b < dim; b++) {
      cov[a * dim + b]! /= n - 1;
      cov[b * dim + a] = cov[a * dim + b]!;
    }
  const { values: eig, vectors } = jacobiEigen(cov, dim);
  const order = [...eig.keys()].sort((x, y) => eig[y]! - eig[x]! || x - y).slice(0, k);
  const axes = new Float64Array(k * dim);
  const variances = new Float64Array(k);
  order.forEach((col, i) => {
    variances[i] = eig[col]!;
    let big = 0;
    for (let j = 0; j < dim; j++) if (Math.abs(vectors[j * dim + col]!) > Math.abs(big)) big = vectors[j * dim + col]!;
    const sign = big < 0 ? -1 : 1;
    for (let j = 0; j < dim; j++) axes[i * dim + j] = sign * vectors[j * dim + col]!;
  });
  let total = 0;
  for (let j = 0; j < dim; j++) total += cov[j * dim + j]!;
  return { mean, axes, k, variances, total };
}

/** `(x - mean) . axes^T`: the `k` coordinates of one vector. */
export function project(p: Pca, x: ArrayLike<number>, dim: number): Float64Array {
  const out = new Float64Array(p.k);
  for (let i = 0; i < p.k; i++) {
    let s = 0;
    for (let j = 0; j < dim; j++) s += (x[j]! - p.mean[j]!) * p.axes[i * dim + j]!;
    out[i] = s;
  }
  return out;
}

/** Eigenvalues and eigenvectors (columns of `vectors`, row-major n x n) of a symmetric matrix, by cyclic Jacobi. */
function jacobiEigen(matrix: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  const a = matrix.slice();
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 60; sweep++) {
    let off = 0;
    let diag = 0;
    for (let p = 0; p < n; p++) {
      diag += a[p * n + p]! ** 2;
      for (let q = p + 1; q < n; q++) off += a[p * n + q]! ** 2;
    }
    if (off <= 1e-22 * diag) break;
    for (let p = 0; p < n - 1; p++)
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const app = a[p * n + p]!;
        const aqq = a[q * n + q]!;
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p]!;
          const akq = a[k * n + q]!;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k]!;
          const aqk = a[q * n + k]!;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p]!;
          const vkq = v[k * n + q]!;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
  }
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) values[i] = a[i * n + i]!;
  return { values, vectors: v };
}
