import { describe, expect, it } from "vitest";
import { withEmbeddings } from "../../src/eval/with-embeddings.js";
import type { EmbeddedLabelData, RoutingMethod } from "../../src/eval/types.js";

/** A method whose prediction for an item is the first value of that item's embedding (for every model). */
const firstValue: RoutingMethod = {
  name: "first-value",
  seeded: true,
  async fit(data) {
    const seen = data.X;
    return {
      description: `dim ${data.dim}`,
      predict: (X, rows) => {
        expect(X).toBe(seen);
        return Float32Array.from(rows.flatMap((r) => [X[r * data.dim]!, X[r * data.dim]!]));
      },
    };
  },
};

const data: EmbeddedLabelData = {
  X: new Float32Array([0.1, 0.1, 0.2, 0.2, 0.3, 0.3]),
  dim: 2,
  nItems: 3,
  nModels: 2,
  offsets: new Int32Array([0, 0, 0, 0]),
  model: new Int32Array(0),
  y: new Float32Array(0),
};

describe("withEmbeddings", () => {
  it("fits and predicts on the given embeddings, not the harness's", async () => {
    const other = new Float32Array([0.9, 0.8, 0.7]);
    const method = withEmbeddings(firstValue, other, 1, "first-value (other)");
    expect(method.name).toBe("first-value (other)");
    expect(method.seeded).toBe(true);
    const fitted = await method.fit(data, { train: [0], val: [1] }, { seed: 1 });
    expect(fitted.description).toBe("dim 1");
    expect(Array.from(await fitted.predict(data.X, [2, 0]))).toEqual([0.7, 0.7, 0.9, 0.9].map(Math.fround));
  });

  it("refuses embeddings of another number of items", async () => {
    const method = withEmbeddings(firstValue, new Float32Array(4), 1, "x");
    await expect(method.fit(data, { train: [0], val: [1] }, { seed: 1 })).rejects.toThrow(
      /4 values are not 3 items x 1 dims/,
    );
  });
});
