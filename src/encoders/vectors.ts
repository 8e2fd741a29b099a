import { EmbeddingProviderError, EncoderInputError } from "../errors.js";

/**
 * Check the `texts` argument of `QueryEncoder.embed`: an array whose every entry is a string.
 * Throws an {@link EncoderInputError} naming the first bad index and its type.
 */
export function assertTexts(texts: unknown, encoderId: string): asserts texts is string[] {
  if (!Array.isArray(texts)) {
    throw new EncoderInputError(
      `Encoder "${encoderId}": embed() takes an array of strings, got ${describe(texts)}. Wrap a single text as [text].`,
    );
  }
  for (let i = 0; i < texts.length; i++) {
    if (typeof texts[i] !== "string") {
      throw new EncoderInputError(
        `Encoder "${encoderId}": texts[${i}] is ${describe(texts[i])}, not a string. Convert it to text before embedding.`,
        { path: `texts.${i}` },
      );
    }
  }
}

/**
 * Turn one provider-returned vector into a `Float32Array` of length `dim`, or throw an
 * {@link EmbeddingProviderError} saying which vector (`index`) was wrong and how: not an array,
 * wrong length, a non-number, a non-finite number, or a value that overflows float32.
 * Never returns a vector containing NaN or Infinity.
 */
export function toCheckedVector(values: unknown, dim: number, index: number, source: string): Float32Array {
  if (!Array.isArray(values) && !(values instanceof Float32Array) && !(values instanceof Float64Array)) {
    throw new EmbeddingProviderError(
      `${source} returned ${describe(values)} for vector ${index}; expected ${dim} numbers.`,
      {
        details: { index },
      },
    );
  }
  if (values.length !== dim) {
    throw new EmbeddingProviderError(
      `${source} returned a vector of length ${values.length} for text ${index}, but the encoder is configured with dim ${dim}. ` +
        `Set dim to the model's real output size (or check that the endpoint serves the model you think it does).`,
      { details: { index, expectedDim: dim, actualDim: values.length } },
    );
  }
  const out = new Float32Array(dim);
  for (let j = 0; j < dim; j++) {
    const v = (values as ArrayLike<unknown>)[j];
    if (typeof v !== "number") {
      throw new EmbeddingProviderError(
        `${source} returned ${describe(v)} at vector ${index}, component ${j}; expected a number.`,
        {
          details: { index, component: j },
        },
      );
    }
    if (!Number.isFinite(v)) {
      throw new EmbeddingProviderError(
        `${source} returned a non-finite value (${v}) at vector ${index}, component ${j}.`,
        {
          details: { index, component: j },
        },
      );
    }
    out[j] = v;
    if (!Number.isFinite(out[j])) {
      throw new EmbeddingProviderError(
        `${source} returned ${v} at vector ${index}, component ${j}, which overflows float32.`,
        {
          details: { index, component: j },
        },
      );
    }
  }
  return out;
}

/** Short human description of a value's type for error messages. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (typeof value === "number") return `the number ${value}`;
  if (typeof value === "string") return `a string of length ${value.length}`;
  if (typeof value === "object") return `an object (${(value as object).constructor?.name ?? "Object"})`;
  return `a ${typeof value}`;
}
