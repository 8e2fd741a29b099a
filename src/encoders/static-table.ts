/**
 * The math of the static query encoder: a table with one row per vocabulary piece, a query vector = the
 * unit-norm sum of its pieces' rows. Rows are stored already weighted (SIF, from each piece's unigram
 * probability) and centred, so the sum is the weighted mean up to its norm. Pure logic, no I/O.
 *
 * @module
 */

/** How a table's numbers are stored. `int8`: one float32 scale per row, `value = scale * q`. */
export type StaticTableDtype = "float32" | "float16" | "int8";

/** A static embedding table, row-major `rows x dim`. */
export interface StaticTable {
  readonly rows: number;
  readonly dim: number;
  readonly dtype: StaticTableDtype;
  /** `rows * dim` values: Float32Array (float32), Uint16Array of IEEE half bits (float16), Int8Array (int8). */
  readonly data: Float32Array | Uint16Array | Int8Array;
  /** Per-row scales of an int8 table (length `rows`); absent otherwise. */
  readonly scales?: Float32Array;
}

let halfTable: Float32Array | undefined;

/** Float32 value of every IEEE-754 half-precision bit pattern (built once, 256 KiB). */
function halfToFloatTable(): Float32Array {
  if (halfTable) return halfTable;
  const out = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) out[h] = halfToFloat(h);
  halfTable = out;
  return out;
}

/**
 * The float value of a half-precision bit pattern.
 *
 * @example
 * ```ts
 * halfToFloat(0x3c00); // 1
 * ```
 */
export function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/**
 * The half-precision bit pattern nearest to `value` (round to nearest even; overflow to infinity).
 *
 * @example
 * ```ts
 * floatToHalf(1); // 0x3c00
 * ```
 */
export function floatToHalf(value: number): number {
  if (Number.isNaN(value)) return 0x7e00;
  const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
  const abs = Math.abs(value);
  if (abs >= 65520) return sign | 0x7c00;
  if (abs < 2 ** -24 / 2) return sign;
  if (abs < 2 ** -14) return sign | roundEven(abs / 2 ** -24);
  let exponent = Math.floor(Math.log2(abs));
  if (2 ** exponent > abs) exponent--; // guard against log2 rounding up
  let mantissa = roundEven((abs / 2 ** exponent - 1) * 1024);
  if (mantissa === 1024) {
    mantissa = 0;
    exponent++;
  }
  if (exponent > 15) return sign | 0x7c00;
  return sign | ((exponent + 15) << 10) | mantissa;
}

function roundEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * Adds the rows of `ids` (those inside the table) to `acc` (length `table.dim`). One loop per storage type, each
 * over a concretely typed array, so the hot loop stays monomorphic (about 1.6x faster than a per-row dispatch).
 */
function addRows(table: StaticTable, ids: readonly number[], acc: Float64Array): void {
  const { dim, rows } = table;
  if (table.dtype === "int8") {
    const data = table.data as Int8Array;
    const scales = table.scales!;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      if (!(id >= 0 && id < rows)) continue;
      const offset = id * dim;
      const scale = scales[id]!;
      for (let j = 0; j < dim; j++) acc[j]! += scale * data[offset + j]!;
    }
  } else if (table.dtype === "float16") {
    const data = table.data as Uint16Array;
    const half = halfToFloatTable();
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      if (!(id >= 0 && id < rows)) continue;
      const offset = id * dim;
      for (let j = 0; j < dim; j++) acc[j]! += half[data[offset + j]!]!;
    }
  } else {
    const data = table.data as Float32Array;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      if (!(id >= 0 && id < rows)) continue;
      const offset = id * dim;
      for (let j = 0; j < dim; j++) acc[j]! += data[offset + j]!;
    }
  }
}

/**
 * The static embedding of a token-id sequence: the sum of the ids' rows (weighted and centred at build time),
 * scaled to unit norm. Ids outside the table are skipped. When nothing is left or the sum is zero, the
 * vector of `fallbackId` (the unknown piece) is returned, so every result is a finite unit vector.
 *
 * @example
 * ```ts
 * const v = staticEmbed(tokenizer.encode("What is 17 * 23?"), table);
 * v.length === table.dim; // true
 * ```
 */
export function staticEmbed(ids: readonly number[], table: StaticTable, fallbackId = 0): Float32Array {
  const acc = new Float64Array(table.dim);
  addRows(table, ids, acc);
  let norm = unitScale(acc);
  if (norm === 0 && fallbackId >= 0 && fallbackId < table.rows) {
    acc.fill(0);
    addRows(table, [fallbackId], acc);
    norm = unitScale(acc);
  }
  const out = new Float32Array(table.dim);
  if (norm === 0) {
    out[0] = 1; // a table whose fallback row is zero: any fixed unit vector keeps the contract
    return out;
  }
  for (let j = 0; j < table.dim; j++) out[j] = acc[j]! / norm;
  return out;
}

/** Euclidean norm of `v`, or 0 when it is zero or not finite. */
function unitScale(v: Float64Array): number {
  let sum = 0;
  for (let j = 0; j < v.length; j++) sum += v[j]! * v[j]!;
  const norm = Math.sqrt(sum);
  return Number.isFinite(norm) && norm > 0 ? norm : 0;
}

/**
 * The SIF weight of a piece from its unigram log-probability: `a / (a + p)`, `p = exp(logProb)`
 * (Arora et al., 2017). Frequent pieces ("▁the", ",") weigh little, rare ones close to 1. A missing
 * log-probability counts as 0 (p = 1).
 *
 * @example
 * ```ts
 * sifWeight(Math.log(1e-2), 1e-3); // ~0.09
 * ```
 */
export function sifWeight(logProb: number | null, a: number): number {
  const p = Math.exp(logProb ?? 0);
  return a / (a + p);
}

/**
 * Stores a float32 table as `dtype`. `int8` uses one symmetric scale per row (`max |x| / 127`).
 *
 * @example
 * ```ts
 * const compact = quantizeTable(rows, 8000, 256, "int8");
 * ```
 */
export function quantizeTable(values: Float32Array, rows: number, dim: number, dtype: StaticTableDtype): StaticTable {
  if (values.length !== rows * dim) throw new RangeError(`quantizeTable: ${values.length} values for ${rows} x ${dim}`);
  if (dtype === "float32") return { rows, dim, dtype, data: values.slice() };
  if (dtype === "float16") {
    const data = new Uint16Array(values.length);
    for (let i = 0; i < values.length; i++) data[i] = floatToHalf(values[i]!);
    return { rows, dim, dtype, data };
  }
  const data = new Int8Array(values.length);
  const scales = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let max = 0;
    for (let j = 0; j < dim; j++) max = Math.max(max, Math.abs(values[r * dim + j]!));
    const scale = max / 127;
    scales[r] = scale;
    if (scale === 0) continue;
    for (let j = 0; j < dim; j++) data[r * dim + j] = Math.round(values[r * dim + j]! / scale);
  }
  return { rows, dim, dtype, data, scales };
}

/** Bytes of one stored value. */
export function bytesPerValue(dtype: StaticTableDtype): number {
  return dtype === "float32" ? 4 : dtype === "float16" ? 2 : 1;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Bytes of a table in its file layout. */
export function tableByteLength(rows: number, dim: number, dtype: StaticTableDtype): number {
  return rows * dim * bytesPerValue(dtype) + (dtype === "int8" ? rows * 4 : 0);
}

/**
 * A table's file layout, little-endian: for int8 the `rows` float32 scales then the `rows x dim` int8 values;
 * for float16/float32 the `rows x dim` values.
 *
 * @example
 * ```ts
 * const bytes = encodeStaticTable(quantizeTable(values, rows, dim, "int8"));
 * decodeStaticTable(bytes, rows, dim, "int8"); // the same table
 * ```
 */
export function encodeStaticTable(table: StaticTable): Uint8Array {
  const out = new Uint8Array(tableByteLength(table.rows, table.dim, table.dtype));
  const view = new DataView(out.buffer);
  let at = 0;
  if (table.dtype === "int8") {
    for (const s of table.scales!) view.setFloat32((at += 4) - 4, s, true);
    out.set(new Uint8Array(table.data.buffer, table.data.byteOffset, table.data.byteLength), at);
  } else if (table.dtype === "float16") {
    for (const h of table.data as Uint16Array) view.setUint16((at += 2) - 2, h, true);
  } else {
    for (const f of table.data as Float32Array) view.setFloat32((at += 4) - 4, f, true);
  }
  return out;
}

/**
 * The table stored in `bytes` (see {@link encodeStaticTable}). Throws a RangeError when the length does not match.
 * The table gets its own copy of the bytes, unless `adopt` is true and `bytes` starts at an aligned offset: then it is
 * a view of them (no copy; for bytes just read from a file that nothing else holds), so later writes to `bytes` would
 * change the table.
 */
export function decodeStaticTable(
  bytes: Uint8Array,
  rows: number,
  dim: number,
  dtype: StaticTableDtype,
  adopt = false,
): StaticTable {
  const expected = tableByteLength(rows, dim, dtype);
  if (bytes.byteLength !== expected) {
    throw new RangeError(`a ${rows} x ${dim} ${dtype} table takes ${expected} bytes, got ${bytes.byteLength}`);
  }
  // An aligned buffer of its own: the bytes themselves when adopted from offset 0, else a copy (a fresh process pays
  // ~3 ms per MB of new memory on a small VM, so the encoder's load adopts the file it read).
  const copy = adopt && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
  const view = new DataView(copy.buffer);
  if (dtype === "int8") {
    const scales = LITTLE_ENDIAN
      ? new Float32Array(copy.buffer, 0, rows)
      : Float32Array.from({ length: rows }, (_, r) => view.getFloat32(4 * r, true));
    return { rows, dim, dtype, scales, data: new Int8Array(copy.buffer, rows * 4, rows * dim) };
  }
  if (dtype === "float16") {
    const data = LITTLE_ENDIAN
      ? new Uint16Array(copy.buffer)
      : Uint16Array.from({ length: rows * dim }, (_, i) => view.getUint16(2 * i, true));
    return { rows, dim, dtype, data };
  }
  const data = LITTLE_ENDIAN
    ? new Float32Array(copy.buffer)
    : Float32Array.from({ length: rows * dim }, (_, i) => view.getFloat32(4 * i, true));
  return { rows, dim, dtype, data };
}

/**
 * The float32 values of a table, row-major `rows x dim` (int8 rows times their scale, float16 widened).
 *
 * @example
 * ```ts
 * const values = dequantizeTable(table); // values[id * table.dim + j]
 * ```
 */
export function dequantizeTable(table: StaticTable): Float32Array {
  const { rows, dim } = table;
  const out = new Float32Array(rows * dim);
  const acc = new Float64Array(dim);
  for (let id = 0; id < rows; id++) {
    acc.fill(0);
    addRows(table, [id], acc);
    for (let j = 0; j < dim; j++) out[id * dim + j] = acc[j]!;
  }
  return out;
}

/**
 * The table with each row multiplied by its weight (`weights.length === table.rows`, finite and positive): for int8
 * only the per-row scales change, so the stored values and their precision stay as they were.
 *
 * @example
 * ```ts
 * const refined = reweightTable(table, learnedWeights); // staticEmbed(ids, refined): the re-weighted mean
 * ```
 */
export function reweightTable(table: StaticTable, weights: Float32Array): StaticTable {
  if (weights.length !== table.rows)
    throw new RangeError(`reweightTable: ${weights.length} weights for ${table.rows} rows`);
  for (const w of weights)
    if (!(Number.isFinite(w) && w > 0)) throw new RangeError(`reweightTable: weight ${w} is not a positive number`);
  if (table.dtype === "int8") {
    const scales = Float32Array.from(table.scales!, (s, r) => s * weights[r]!);
    return { ...table, data: table.data.slice(), scales };
  }
  const values = dequantizeTable(table);
  for (let r = 0; r < table.rows; r++) for (let j = 0; j < table.dim; j++) values[r * table.dim + j]! *= weights[r]!;
  return quantizeTable(values, table.rows, table.dim, table.dtype);
}
