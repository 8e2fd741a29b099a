/**
 * Fitting the static table to its teacher on whole texts (the idea of Model2Vec's "tokenlearn"): find piece rows E
 * such that each training text's weighted mean of rows, sum_i a_ti E_i, is close to the teacher's embedding y_t of
 * the whole text, pulled towards the pieces' one-token vectors E0 (scaled by the best single factor c):
 *
 *   minimise  sum_t || sum_i a_ti E_i - y_t ||^2  +  lambda * || E - c E0 ||^2
 *
 * with a_ti the piece's SIF weight times its count in t, normalised to sum 1 over t. It is linear least squares in
 * E, solved by conjugate gradients on the normal equations, (A'A + lambda I) E = A'Y + lambda c E0, all 512 columns at
 * once, with a Jacobi preconditioner. A'A is never formed: each product streams the texts once.
 */

/** Sparse texts x pieces weights, compressed rows; each row sums to 1. */
export interface Bag {
  readonly texts: number;
  readonly offsets: Uint32Array;
  readonly cols: Uint32Array;
  readonly vals: Float64Array;
}

/** The bag of pieces of each text: piece weight times count, normalised per text (a text with none is left empty). */
export function bagOf(idLists: readonly (readonly number[])[], weight: (id: number) => number): Bag {
  const offsets = new Uint32Array(idLists.length + 1);
  const cols: number[] = [];
  const vals: number[] = [];
  idLists.forEach((ids, t) => {
    const sums = new Map<number, number>();
    for (const id of ids) sums.set(id, (sums.get(id) ?? 0) + weight(id));
    const total = [...sums.values()].reduce((s, v) => s + v, 0);
    if (total > 0)
      for (const [id, w] of [...sums].sort((x, y) => x[0] - y[0])) {
        cols.push(id);
        vals.push(w / total);
      }
    offsets[t + 1] = cols.length;
  });
  return { texts: idLists.length, offsets, cols: Uint32Array.from(cols), vals: Float64Array.from(vals) };
}

/** `out = A' (A P)` for `rows x dim` row-major P, streaming the texts (no texts x dim intermediate). */
function normalProduct(bag: Bag, p: Float64Array, dim: number, out: Float64Array): void {
  out.fill(0);
  const row = new Float64Array(dim);
  for (let t = 0; t < bag.texts; t++) {
    const from = bag.offsets[t]!;
    const to = bag.offsets[t + 1]!;
    if (from === to) continue;
    row.fill(0);
    for (let k = from; k < to; k++) {
      const a = bag.vals[k]!;
      const base = bag.cols[k]! * dim;
      for (let j = 0; j < dim; j++) row[j]! += a * p[base + j]!;
    }
    for (let k = from; k < to; k++) {
      const a = bag.vals[k]!;
      const base = bag.cols[k]! * dim;
      for (let j = 0; j < dim; j++) out[base + j]! += a * row[j]!;
    }
  }
}

/** `sum_t a_t x_t` per text: the unnormalised static embedding of each text under rows E (texts x dim). */
export function bagMeans(bag: Bag, e: ArrayLike<number>, dim: number): Float64Array {
  const out = new Float64Array(bag.texts * dim);
  for (let t = 0; t < bag.texts; t++)
    for (let k = bag.offsets[t]!; k < bag.offsets[t + 1]!; k++) {
      const a = bag.vals[k]!;
      const base = bag.cols[k]! * dim;
      for (let j = 0; j < dim; j++) out[t * dim + j]! += a * e[base + j]!;
    }
  return out;
}

/** Mean cosine between each text's static embedding under E and its teacher vector (texts with no pieces skipped). */
export function meanCosine(bag: Bag, e: ArrayLike<number>, targets: Float32Array, dim: number): number {
  const x = bagMeans(bag, e, dim);
  let sum = 0;
  let n = 0;
  for (let t = 0; t < bag.texts; t++) {
    let dot = 0;
    let xx = 0;
    let yy = 0;
    for (let j = 0; j < dim; j++) {
      const a = x[t * dim + j]!;
      const b = targets[t * dim + j]!;
      dot += a * b;
      xx += a * a;
      yy += b * b;
    }
    if (xx === 0 || yy === 0) continue;
    sum += dot / Math.sqrt(xx * yy);
    n++;
  }
  return n === 0 ? NaN : sum / n;
}

/** The most fit iterations the scripts' `--iterations` takes (the shipped table's fit runs 15). */
export const MAX_FIT_ITERATIONS = 1000;

export interface FitOptions {
  readonly lambda: number;
  /** Iterations of the fit, at most {@link MAX_FIT_ITERATIONS} from the command line. */
  readonly iterations: number;
  readonly onIteration?: (iteration: number, relativeResidual: number) => void;
}

/**
 * Rows E (rows x dim) minimising the objective above for the texts of `bag` and their teacher vectors `targets`
 * (texts x dim), from the prior rows `prior` (rows x dim). Returns E and the prior's scale c.
 */
export function fitRows(
  bag: Bag,
  targets: Float32Array,
  prior: Float32Array,
  rows: number,
  dim: number,
  options: FitOptions,
): { rows: Float64Array; scale: number } {
  const { lambda } = options;
  // c: the single factor that best maps the prior's text means onto the targets.
  const m0 = bagMeans(bag, prior, dim);
  let num = 0;
  let den = 0;
  for (let k = 0; k < m0.length; k++) {
    num += m0[k]! * targets[k]!;
    den += m0[k]! * m0[k]!;
  }
  const c = den > 0 ? num / den : 1;
  const x = new Float64Array(rows * dim);
  for (let k = 0; k < x.length; k++) x[k] = c * prior[k]!;
  // b = A'Y + lambda c E0; r = b - H x
  const b = new Float64Array(rows * dim);
  for (let t = 0; t < bag.texts; t++)
    for (let k = bag.offsets[t]!; k < bag.offsets[t + 1]!; k++) {
      const a = bag.vals[k]!;
      const base = bag.cols[k]! * dim;
      for (let j = 0; j < dim; j++) b[base + j]! += a * targets[t * dim + j]!;
    }
  for (let k = 0; k < b.length; k++) b[k]! += lambda * x[k]!;
  const diag = new Float64Array(rows).fill(lambda);
  for (let k = 0; k < bag.cols.length; k++) diag[bag.cols[k]!]! += bag.vals[k]! * bag.vals[k]!;
  const apply = (p: Float64Array, out: Float64Array) => {
    normalProduct(bag, p, dim, out);
    for (let k = 0; k < out.length; k++) out[k]! += lambda * p[k]!;
  };
  const r = new Float64Array(rows * dim);
  apply(x, r);
  for (let k = 0; k < r.length; k++) r[k] = b[k]! - r[k]!;
  const z = new Float64Array(rows * dim);
  const precondition = () => {
    for (let i = 0; i < rows; i++) for (let j = 0; j < dim; j++) z[i * dim + j] = r[i * dim + j]! / diag[i]!;
  };
  const columnDots = (u: Float64Array, v: Float64Array) => {
    const out = new Float64Array(dim);
    for (let i = 0; i < rows; i++) for (let j = 0; j < dim; j++) out[j]! += u[i * dim + j]! * v[i * dim + j]!;
    return out;
  };
  precondition();
  const p = Float64Array.from(z);
  let rz = columnDots(r, z);
  const bNorm = Math.sqrt(columnDots(b, b).reduce((s, v) => s + v, 0));
  const q = new Float64Array(rows * dim);
  for (let it = 1; it <= options.iterations; it++) {
    apply(p, q);
    const pq = columnDots(p, q);
    const alpha = pq.map((v, j) => (v > 0 ? rz[j]! / v : 0));
    for (let i = 0; i < rows; i++)
      for (let j = 0; j < dim; j++) {
        x[i * dim + j]! += alpha[j]! * p[i * dim + j]!;
        r[i * dim + j]! -= alpha[j]! * q[i * dim + j]!;
      }
    precondition();
    const rzNew = columnDots(r, z);
    const beta = rzNew.map((v, j) => (rz[j]! > 0 ? v / rz[j]! : 0));
    for (let i = 0; i < rows; i++)
      for (let j = 0; j < dim; j++) p[i * dim + j] = z[i * dim + j]! + beta[j]! * p[i * dim + j]!;
    rz = rzNew;
    const rNorm = Math.sqrt(columnDots(r, r).reduce((s, v) => s + v, 0));
    options.onIteration?.(it, rNorm / bNorm);
  }
  return { rows: x, scale: c };
}
