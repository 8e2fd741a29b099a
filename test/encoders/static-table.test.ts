import { describe, expect, it } from "vitest";
import {
  decodeStaticTable,
  encodeStaticTable,
  floatToHalf,
  halfToFloat,
  quantizeTable,
  sifWeight,
  staticEmbed,
  type StaticTableDtype,
} from "../../src/encoders/static-table.js";

const norm = (v: ArrayLike<number>) => Math.sqrt(Array.from(v).reduce((s, x) => s + x * x, 0));

describe("half precision", () => {
  it("round-trips exactly representable values and rounds others to the nearest half", () => {
    for (const x of [0, 1, -1, 0.5, 2 ** -14, 2 ** -24, 65504, -0.333251953125])
      expect(halfToFloat(floatToHalf(x))).toBe(x);
    expect(floatToHalf(1)).toBe(0x3c00);
    expect(floatToHalf(-2)).toBe(0xc000);
    expect(halfToFloat(0x7c00)).toBe(Infinity);
    expect(floatToHalf(1e6)).toBe(0x7c00);
    for (const x of [0.1, -0.7, 3.14159, 1e-5, 123.456]) {
      const back = halfToFloat(floatToHalf(x));
      expect(Math.abs(back - x)).toBeLessThanOrEqual(Math.abs(x) * 2 ** -11 + 2 ** -25);
    }
  });
});

describe("static table", () => {
  const rows = 4;
  const dim = 3;
  const values = new Float32Array([0, 0, 0, 1, 2, 3, -1, 0.5, 0.25, 0.1, -0.2, 0.3]);

  it("stores every dtype in its file layout and reads it back to the same numbers", () => {
    for (const dtype of ["float32", "float16", "int8"] as StaticTableDtype[]) {
      const table = quantizeTable(values, rows, dim, dtype);
      const back = decodeStaticTable(encodeStaticTable(table), rows, dim, dtype);
      expect(Array.from(back.data)).toEqual(Array.from(table.data));
      if (dtype === "int8") expect(Array.from(back.scales!)).toEqual(Array.from(table.scales!));
      // each dtype keeps the rows close to the original values
      for (let r = 1; r < rows; r++) {
        const got = staticEmbed([r], back);
        const want = values.subarray(r * dim, (r + 1) * dim);
        const cos = got.reduce((s, x, j) => s + x * want[j]!, 0) / norm(want);
        expect(cos).toBeGreaterThan(0.999);
      }
    }
    expect(() => decodeStaticTable(new Uint8Array(5), rows, dim, "int8")).toThrow(RangeError);
  });

  it("copies the bytes unless told to adopt them, and adopts only an aligned buffer of their own", () => {
    const bytes = encodeStaticTable(quantizeTable(values, rows, dim, "int8"));
    const copied = decodeStaticTable(bytes, rows, dim, "int8");
    const adopted = decodeStaticTable(bytes, rows, dim, "int8", true);
    expect(copied.data.buffer).not.toBe(bytes.buffer);
    expect(adopted.data.buffer).toBe(bytes.buffer);
    expect(Array.from(adopted.data)).toEqual(Array.from(copied.data));
    expect(Array.from(adopted.scales!)).toEqual(Array.from(copied.scales!));
    // a view into a larger buffer (e.g. a pooled Buffer) is copied even when adopted: its offset may be misaligned
    const padded = new Uint8Array(bytes.byteLength + 1);
    padded.set(bytes, 1);
    const inside = decodeStaticTable(padded.subarray(1), rows, dim, "int8", true);
    expect(inside.data.buffer).not.toBe(padded.buffer);
    expect(Array.from(inside.scales!)).toEqual(Array.from(copied.scales!));
  });

  it("embeds a sequence as the unit-norm sum of its rows, skipping unknown ids", () => {
    const table = quantizeTable(values, rows, dim, "float32");
    const v = staticEmbed([1, 2, 2, 99, -1], table);
    const sum = [1 - 2, 2 + 1, 3 + 0.5].map((x) => x / norm([-1, 3, 3.5]));
    sum.forEach((x, j) => expect(v[j]).toBeCloseTo(x, 6));
    expect(norm(v)).toBeCloseTo(1, 6);
  });

  it("falls back to the unknown piece's row, then to a fixed unit vector, when the sum is zero", () => {
    const table = quantizeTable(values, rows, dim, "float32");
    const fromFallback = staticEmbed([], table, 3);
    expect(norm(fromFallback)).toBeCloseTo(1, 6);
    expect(fromFallback[2]! / fromFallback[0]!).toBeCloseTo(3, 5);
    expect(Array.from(staticEmbed([0], table, 0))).toEqual([1, 0, 0]);
  });

  it("weighs frequent pieces down (SIF)", () => {
    expect(sifWeight(Math.log(0.05), 1e-3)).toBeCloseTo(1e-3 / (1e-3 + 0.05), 10);
    expect(sifWeight(Math.log(1e-6), 1e-3)).toBeGreaterThan(0.99);
    expect(sifWeight(null, 1e-3)).toBeCloseTo(1e-3 / 1.001, 10);
  });
});
