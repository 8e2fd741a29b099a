import type { RoutingMethod } from "./types.js";

/**
 * The same method on other embeddings of the same items: `fit` and `predict` see `X` (row-major `nItems x dim`,
 * item order as the dataset's) instead of the harness's. Lets one evaluation compare encoders on the same split,
 * seeds and bootstrap resamples, so the difference between two rows is a paired figure.
 *
 * @example
 * ```ts
 * const staticRow = withEmbeddings(irtMoeMethod(tf), staticX, 256, "irt-moe (static)");
 * await evaluate(dataset, { methods: [irtMoeMethod(tf), staticRow] }); // diffVsIrtMoe: static minus USE-lite
 * ```
 */
export function withEmbeddings(method: RoutingMethod, X: Float32Array, dim: number, name: string): RoutingMethod {
  return {
    name,
    seeded: method.seeded,
    async fit(data, split, options) {
      if (X.length !== data.nItems * dim) {
        throw new RangeError(`withEmbeddings: ${X.length} values are not ${data.nItems} items x ${dim} dims`);
      }
      const fitted = await method.fit({ ...data, X, dim }, split, options);
      return { description: fitted.description, predict: (_ignored, rows) => fitted.predict(X, rows) };
    },
  };
}
