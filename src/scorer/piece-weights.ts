/**
 * A learned refinement of the static query encoder, trained end to end with the scorer on correctness: one weight
 * per vocabulary piece, `g = exp(s)`, multiplying the piece's row of the table, so a query's vector is
 * `normalise(sum over its tokens of g[t] * row[t])`; optionally (`tuneRows`) a trained residual of each row too
 * (the table fine-tuned). At `s = 0` (and no residual) it is the unrefined encoder's vector exactly. Only the pieces
 * of at least `minItems` training items are learned (the others keep their rows: too few items to learn from).
 * The result folds into a table of the shipped format ({@link PieceWeightInput.refinedTable}), so routing with a
 * refined table would run no tfjs and no extra arithmetic.
 *
 * (A learned linear map on the embedding was not chosen: the scorer's first layers are linear in the embedding,
 * so such a map adds nothing they cannot learn themselves; a per-piece weight changes the pooling, which they
 * cannot.) Measured on RouterDC's validation split it does not beat the plain table: see docs/encoders.md.
 */
import type { Tensor, Tensor1D, Tensor2D, Variable } from "@tensorflow/tfjs";
import { UNKNOWN_ID } from "../encoders/sentencepiece.js";
import { dequantizeTable, quantizeTable, reweightTable, type StaticTable } from "../encoders/static-table.js";
import { makeOps } from "./graph.js";
import type { Tf } from "../util/tf.js";
import type { TrainableInput } from "./train-loop.js";

/** Inputs of {@link pieceWeightInput}. */
export interface PieceWeightSource {
  /** The token ids of each item, in item order (what the static encoder reads for its text). */
  readonly bags: readonly (readonly number[])[];
  /** The static encoder's table (rows already SIF-weighted). */
  readonly table: StaticTable;
  /** The training items: a piece gets a weight when at least `minItems` of them contain it. */
  readonly trainRows: readonly number[];
  /** Default 5. */
  readonly minItems?: number;
  /** Multiplies the scorer's learning rate for the piece weights (default 1). */
  readonly learningRateScale?: number;
  /** Also train a residual of each learned piece's row (default false: weights only). */
  readonly tuneRows?: boolean;
}

/** The trainable per-piece weights, as an input layer of the scorer's training. */
export interface PieceWeightInput extends TrainableInput {
  /** Vocabulary ids of the learned pieces, ascending. */
  readonly pieces: Int32Array;
  /** One weight per table row (1 for the pieces not learned), from the current variables. */
  rowWeights(): Float32Array;
  /** The table with the learned refinement folded in, in the input table's storage type. */
  refinedTable(): StaticTable;
}

/** Per item: the learned pieces' (index, count) pairs and the fixed rest of the sum. */
interface Bags {
  readonly start: Int32Array;
  readonly index: Int32Array;
  readonly count: Float32Array;
  /** nItems x dim: the sum of the rows of the item's pieces that are not learned. */
  readonly fixed: Float32Array;
}

function learnedPieces(source: PieceWeightSource): Int32Array {
  const { bags, table, trainRows } = source;
  const items = new Int32Array(table.rows);
  for (const i of trainRows) for (const id of new Set(bags[i]!)) if (id >= 0 && id < table.rows) items[id]!++;
  const minItems = source.minItems ?? 5;
  const out: number[] = [];
  for (let id = 0; id < table.rows; id++) if (items[id]! >= minItems) out.push(id);
  return Int32Array.from(out);
}

function splitBags(source: PieceWeightSource, values: Float32Array, slot: Int32Array): Bags {
  const { bags, table } = source;
  const dim = table.dim;
  const start = new Int32Array(bags.length + 1);
  const index: number[] = [];
  const count: number[] = [];
  const fixed = new Float32Array(bags.length * dim);
  bags.forEach((ids, i) => {
    const counts = new Map<number, number>();
    for (const id of ids) {
      if (!(id >= 0 && id < table.rows)) continue;
      const k = slot[id]!;
      if (k >= 0) counts.set(k, (counts.get(k) ?? 0) + 1);
      else for (let j = 0; j < dim; j++) fixed[i * dim + j]! += values[id * dim + j]!;
    }
    for (const [k, c] of counts) {
      index.push(k);
      count.push(c);
    }
    start[i + 1] = index.length;
  });
  return { start, index: Int32Array.from(index), count: Float32Array.from(count), fixed };
}

/** Every item's unit vector from the learned rows `rows` (nk x dim, already scaled by `g`) and the fixed sums. */
function embedBags(bags: Bags, rows: Float32Array, unknown: Float32Array, dim: number): Float32Array {
  const n = bags.start.length - 1;
  const out = new Float32Array(n * dim);
  const acc = new Float64Array(dim);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < dim; j++) acc[j] = bags.fixed[i * dim + j]!;
    for (let e = bags.start[i]!; e < bags.start[i + 1]!; e++) {
      const k = bags.index[e]!;
      const c = bags.count[e]!;
      for (let j = 0; j < dim; j++) acc[j]! += c * rows[k * dim + j]!;
    }
    let norm = Math.hypot(...acc);
    const v = norm > 0 && Number.isFinite(norm) ? acc : Float64Array.from(unknown);
    if (v !== acc) norm = Math.hypot(...v);
    for (let j = 0; j < dim; j++) out[i * dim + j] = norm > 0 ? v[j]! / norm : j === 0 ? 1 : 0;
  }
  return out;
}

/** The learned pieces' rows (nk x dim) and their transpose (dim x nk), row-major. */
function learnedRows(
  pieces: Int32Array,
  values: Float32Array,
  dim: number,
): { rows: Float32Array; rowsT: Float32Array } {
  const nk = pieces.length;
  const rows = new Float32Array(nk * dim);
  const rowsT = new Float32Array(nk * dim);
  pieces.forEach((id, k) => {
    for (let j = 0; j < dim; j++) {
      rows[k * dim + j] = values[id * dim + j]!;
      rowsT[j * nk + k] = values[id * dim + j]!;
    }
  });
  return { rows, rowsT };
}

/**
 * The per-piece weights of `source.table` as a trainable input of {@link trainIrtMoeWith}: log-weights start at 0
 * (the unrefined vectors) and are decayed towards 0 with the scorer's weight decay. With `tuneRows`, the learned
 * pieces' rows get a trained residual too (`g * (row + delta)`, delta from 0): the table itself fine-tuned.
 *
 * @example
 * const input = pieceWeightInput(tf, { bags, table, trainRows: split.train });
 * const trained = await trainIrtMoeWith(tf, data, split, {}, { seed: 1 }, input);
 * const refined = input.refinedTable(); // same format as the shipped table
 */
export function pieceWeightInput(tf: Tf, source: PieceWeightSource): PieceWeightInput {
  const { table } = source;
  const dim = table.dim;
  const values = dequantizeTable(table);
  const pieces = learnedPieces(source);
  const slot = new Int32Array(table.rows).fill(-1);
  pieces.forEach((id, k) => (slot[id] = k));
  const bags = splitBags(source, values, slot);
  const nk = pieces.length;
  const { rows, rowsT } = learnedRows(pieces, values, dim);
  const R = tf.tensor2d(rows, [nk, dim]);
  const RT = tf.tensor2d(rowsT, [dim, nk]);
  const s: Variable = tf.tidy(() => tf.variable(tf.zeros([nk]), true));
  const D: Variable | undefined = source.tuneRows ? tf.tidy(() => tf.variable(tf.zeros([nk, dim]), true)) : undefined;
  const zeroBias = tf.zeros([dim]) as Tensor1D;
  const dense = makeOps(tf).dense;
  // W R with the gradient dy R^T from a stored transpose (transpose-flagged matMul is slow on wasm).
  const pool = tf.customGrad(((W: Tensor2D, save: (t: Tensor[]) => void) => {
    save([]);
    return { value: tf.matMul(W, R), gradFunc: (dy: Tensor2D) => [tf.matMul(dy, RT)] };
  }) as any) as unknown as (W: Tensor2D) => Tensor2D;

  const unknown = values.slice(UNKNOWN_ID * dim, (UNKNOWN_ID + 1) * dim);
  const weights = (): Float32Array => Float32Array.from(s.dataSync(), Math.exp);
  /** The learned pieces' current rows, g * (row + delta), nk x dim. */
  const currentRows = (): Float32Array => {
    const g = weights();
    const delta = D?.dataSync();
    return Float32Array.from(rows, (v, c) => g[Math.floor(c / dim)]! * (v + (delta ? delta[c]! : 0)));
  };
  return {
    pieces,
    variables: D ? [s, D] : [s],
    learningRateScale: source.learningRateScale ?? 1,
    forward(items: readonly number[]): Tensor2D {
      const B = items.length;
      const C = new Float32Array(B * nk);
      const F = new Float32Array(B * dim);
      items.forEach((i, r) => {
        for (let e = bags.start[i]!; e < bags.start[i + 1]!; e++) C[r * nk + bags.index[e]!] = bags.count[e]!;
        F.set(bags.fixed.subarray(i * dim, (i + 1) * dim), r * dim);
      });
      const W = tf.mul(tf.tensor2d(C, [B, nk]), tf.expandDims(tf.exp(s as Tensor1D), 0)) as Tensor2D;
      const pooled = D ? dense(W, tf.add(R, D) as Tensor2D, zeroBias) : pool(W);
      const u = tf.add(pooled, tf.tensor2d(F, [B, dim]));
      return tf.div(u, tf.sqrt(tf.add(tf.sum(tf.square(u), 1, true), 1e-12))) as Tensor2D;
    },
    embedAll: () => embedBags(bags, currentRows(), unknown, dim),
    read(): Float32Array {
      const out = new Float32Array(nk + (D ? nk * dim : 0));
      out.set(s.dataSync());
      if (D) out.set(D.dataSync(), nk);
      return out;
    },
    write(v: Float32Array): void {
      tf.tidy(() => {
        s.assign(tf.tensor1d(v.subarray(0, nk)));
        D?.assign(tf.tensor2d(v.subarray(nk), [nk, dim]));
      });
    },
    rowWeights(): Float32Array {
      const out = new Float32Array(table.rows).fill(1);
      const g = weights();
      pieces.forEach((id, k) => (out[id] = g[k]!));
      return out;
    },
    refinedTable(): StaticTable {
      if (!D) return reweightTable(table, this.rowWeights());
      const now = currentRows();
      const all = values.slice();
      pieces.forEach((id, k) => all.set(now.subarray(k * dim, (k + 1) * dim), id * dim));
      return quantizeTable(all, table.rows, dim, table.dtype);
    },
    dispose(): void {
      for (const t of [s, D, R, RT, zeroBias]) t?.dispose();
    },
  };
}
