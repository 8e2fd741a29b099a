/** Identity of an encoder: what every encoder-dependent artifact records. */
export interface EncoderInfo {
  /** Stable id, e.g. `use-lite-512@energetic-ai-0.2.0`. Artifacts built with one id refuse another. */
  readonly id: string;
  /** Output dimension. */
  readonly dim: number;
}

/** Turns query texts into fixed-size vectors. Implementations: UseLiteEncoder, LangChainEncoder, HuggingFaceEncoder. */
export interface QueryEncoder extends EncoderInfo {
  /** One vector per text, in order. Vectors are finite; never NaN. */
  embed(texts: string[]): Promise<Float32Array[]>;
}
