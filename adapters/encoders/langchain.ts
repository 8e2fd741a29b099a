import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { z } from "zod";
import type { QueryEncoder } from "../../src/encoders/types.js";
import { assertTexts, describe, toCheckedVector } from "../../src/encoders/vectors.js";
import { EmbeddingProviderError, ValidationError } from "../../src/errors.js";
import { parseWith } from "../../src/util/validate.js";

const baseOptionsSchema = z.object({
  /** Encoder id recorded by artifacts. Default: `langchain:<ClassName>` plus `/<model>` when the instance names its model. */
  id: z.string().trim().min(1, "id must not be empty; omit it to derive one from the embeddings class").optional(),
  /** Texts per embedDocuments() call; default: all texts of one embed() call at once (the class batches itself). */
  batchSize: z.number().int().min(1).max(100_000).optional(),
});

const optionsSchema = baseOptionsSchema.extend({
  /** Output dimension; every returned vector is checked against it. */
  dim: z.number().int().positive("dim must be the embeddings' output dimension, a positive integer"),
});

/** Options of {@link LangChainEncoder}. */
export type LangChainEncoderOptions = z.input<typeof optionsSchema>;
/** Options of {@link LangChainEncoder.create}: `dim` is probed with one call when absent. */
export type LangChainEncoderCreateOptions = z.input<typeof baseOptionsSchema> & { dim?: number };

/**
 * Wraps any LangChain `Embeddings` (OpenAI, Cohere, Ollama, Bedrock, ...) as a {@link QueryEncoder}.
 * Texts are embedded with `embedDocuments`; each returned vector is checked (one per text, length
 * `dim`, all finite, representable as float32) and a bad one is an `EmbeddingProviderError`
 * naming its index and the problem. A failure thrown by the embeddings class is wrapped in an
 * `EmbeddingProviderError` (its original error as `cause`). Retries are the class's own
 * (LangChain's `AsyncCaller`, `maxRetries` on the embeddings instance).
 *
 * The default id is `langchain:<ClassName>`, with `/<model>` appended when the instance exposes a
 * string `model` or `modelName` (so two models of one provider never share an id). Pass `id` to
 * pin it explicitly.
 *
 * @example
 * ```ts
 * import { OpenAIEmbeddings } from "@langchain/openai";
 * import { LangChainEncoder } from "irt-router/adapters";
 * const encoder = new LangChainEncoder(new OpenAIEmbeddings({ model: "text-embedding-3-small" }), { dim: 1536 });
 * encoder.id; // "langchain:OpenAIEmbeddings/text-embedding-3-small"
 * // or learn dim with one call:
 * const probed = await LangChainEncoder.create(new OpenAIEmbeddings({ model: "text-embedding-3-small" }));
 * ```
 */
export class LangChainEncoder implements QueryEncoder {
  readonly id: string;
  readonly dim: number;
  private readonly batchSize?: number;

  constructor(
    private readonly embeddings: EmbeddingsInterface,
    options: LangChainEncoderOptions,
  ) {
    assertEmbeddings(embeddings);
    const parsed = parseWith(optionsSchema, options, "LangChainEncoder options");
    this.id = parsed.id ?? defaultLangChainEncoderId(embeddings);
    this.dim = parsed.dim;
    this.batchSize = parsed.batchSize;
  }

  /**
   * Create an encoder, learning `dim` from one `embedDocuments` call on a short probe text when
   * it is not given.
   *
   * @example
   * ```ts
   * const encoder = await LangChainEncoder.create(embeddings); // probes dim once
   * ```
   */
  static async create(
    embeddings: EmbeddingsInterface,
    options: LangChainEncoderCreateOptions = {},
  ): Promise<LangChainEncoder> {
    assertEmbeddings(embeddings);
    if (options.dim !== undefined) return new LangChainEncoder(embeddings, { ...options, dim: options.dim });
    const parsed = parseWith(baseOptionsSchema, options, "LangChainEncoder options");
    const id = parsed.id ?? defaultLangChainEncoderId(embeddings);
    const out = await callEmbeddings(embeddings, ["dimension probe"], id);
    const first = Array.isArray(out) ? out[0] : undefined;
    if (
      !first ||
      typeof (first as ArrayLike<unknown>).length !== "number" ||
      (first as ArrayLike<unknown>).length === 0
    ) {
      throw new EmbeddingProviderError(
        `Encoder "${id}": embedDocuments returned ${describe(first)} for the dimension probe; cannot learn dim. Pass dim explicitly.`,
      );
    }
    return new LangChainEncoder(embeddings, { ...options, dim: (first as ArrayLike<unknown>).length });
  }

  /** Embed texts in order. An empty list makes no call. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    assertTexts(texts, this.id);
    const step = this.batchSize ?? Math.max(texts.length, 1);
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += step) {
      const batch = texts.slice(start, start + step);
      const vectors = await callEmbeddings(this.embeddings, batch, this.id);
      if (!Array.isArray(vectors) || vectors.length !== batch.length) {
        throw new EmbeddingProviderError(
          `Encoder "${this.id}": embedDocuments returned ${describe(vectors)} for ${batch.length} texts; expected one vector per text.`,
          { details: { expected: batch.length, actual: Array.isArray(vectors) ? vectors.length : undefined } },
        );
      }
      vectors.forEach((v, k) =>
        out.push(toCheckedVector(v, this.dim, start + k, `Encoder "${this.id}" (embedDocuments)`)),
      );
    }
    return out;
  }
}

/**
 * The id a {@link LangChainEncoder} gets by default: `langchain:<ClassName>`, plus `/<model>` when
 * the instance has a string `model` (or `modelName`) property.
 */
export function defaultLangChainEncoderId(embeddings: EmbeddingsInterface): string {
  const className = (embeddings as object).constructor?.name || "Embeddings";
  const e = embeddings as unknown as { model?: unknown; modelName?: unknown };
  const model =
    typeof e.model === "string" && e.model
      ? e.model
      : typeof e.modelName === "string" && e.modelName
        ? e.modelName
        : undefined;
  return `langchain:${className}${model ? `/${model}` : ""}`;
}

function assertEmbeddings(embeddings: unknown): asserts embeddings is EmbeddingsInterface {
  if (!embeddings || typeof (embeddings as { embedDocuments?: unknown }).embedDocuments !== "function") {
    throw new ValidationError(
      `LangChainEncoder needs a LangChain Embeddings instance (an object with embedDocuments(texts)), got ${describe(embeddings)}.`,
      { path: "embeddings" },
    );
  }
}

async function callEmbeddings(embeddings: EmbeddingsInterface, texts: string[], id: string): Promise<unknown> {
  try {
    return await embeddings.embedDocuments(texts);
  } catch (err) {
    const status = (err as { status?: unknown } | null)?.status;
    throw new EmbeddingProviderError(
      `Encoder "${id}": embedDocuments failed: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err, status: typeof status === "number" ? status : undefined },
    );
  }
}
