import type { LabelMatrix } from "../../src/eval/types.js";

/** CSR labels from a dense matrix where null = unobserved. */
export function csr(rows: (number | null)[][]): LabelMatrix {
  const offsets = [0];
  const model: number[] = [];
  const y: number[] = [];
  for (const row of rows) {
    row.forEach((v, m) => {
      if (v !== null) {
        model.push(m);
        y.push(v);
      }
    });
    offsets.push(model.length);
  }
  return { offsets: Int32Array.from(offsets), model: Int32Array.from(model), y: Float32Array.from(y) };
}
