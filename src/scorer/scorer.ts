import { assertSameEncoder } from "../encoders/identity.js";
import type { EncoderInfo, QueryEncoder } from "../encoders/types.js";
import {
  EmbeddingProviderError,
  EncoderInputError,
  EncoderMismatchError,
  EncoderUnavailableError,
  ValidationError,
} from "../errors.js";
import type { KnownPrior } from "../learning/known-prior.js";
import { firstRepeat } from "../util/repeats.js";
import { ModelResolver } from "./catalog.js";
import { irtHeads, scoreRows } from "./irt-head.js";
import { mixtureForward } from "./mixture.js";
import type { ScorerManifest } from "./serialize.js";
import type { CatalogEntry, ItemParams, ModelScore, Scorer } from "./types.js";
import type { IrtMoeWeights } from "./weights.js";

/** Where text embeddings come from: an encoder, or a function that loads one on first use. */
export type EncoderSource = QueryEncoder | (() => Promise<QueryEncoder>);

/** Everything an {@link IrtMoeScorer} needs (what an artifact holds). */
export interface IrtMoeScorerInit {
  readonly weights: IrtMoeWeights;
  /** One entry per row of `weights.theta`, same order. */
  readonly catalog: readonly CatalogEntry[];
  /** Encoder the weights were trained on; text and vectors must come from it. */
  readonly encoderInfo: EncoderInfo;
  /** Temperature applied to logits (1 = none). */
  readonly temperature: number;
  /** Encoder for text input (checked against `encoderInfo`); without one, only vectors are accepted. */
  readonly encoder?: EncoderSource;
  /** The manifest it was loaded from, when it came from an artifact. */
  readonly manifest?: ScorerManifest;
  /** Path of that manifest file: ENCODER_MISMATCH errors (at construction or at the first text query) name it. */
  readonly manifestFile?: string;
}

/** One query's full explanation: item parameters, gate weights, and every model's p. */
export interface ScorerExplanation extends ItemParams {
  /** Softmax gate over the routed experts. */
  readonly gate: Float32Array;
  readonly scores: ModelScore[];
}

/**
 * The IRT mixture-of-experts scorer: p(m correct on q) = sigmoid((alpha_q . theta_m - beta_q) / T).
 * Inference is plain typed arrays (no tfjs); alpha and beta are computed once per query and every
 * candidate is scored against them.
 *
 * @example
 * const scorer = await loadPretrained();          // adapters
 * const ranked = await scorer.predict("What is the derivative of x^2?", ["gpt-4-1106-preview", "mixtral-8x7b-instruct-v0.1"]);
 * // [{ model: "gpt-4-1106-preview", p: 0.93 }, { model: "mixtral-8x7b-instruct-v0.1", p: 0.71 }]
 */
export class IrtMoeScorer implements Scorer {
  readonly encoder: EncoderInfo;
  readonly models: readonly CatalogEntry[];
  readonly abilityDim: number;
  readonly temperature: number;
  readonly weights: IrtMoeWeights;
  /** Manifest of the artifact it was loaded from (hyperparameters, training data, metrics), if any. */
  readonly manifest?: ScorerManifest;
  /** Path of that manifest (named by ENCODER_MISMATCH errors), if any. */
  readonly manifestFile?: string;
  /** Known-model prior fitted on the training labels (from the manifest), if the artifact has one. */
  readonly knownPrior?: KnownPrior;
  private readonly resolver: ModelResolver;
  private encoderSource?: EncoderSource;
  private encoderPromise?: Promise<QueryEncoder>;

  constructor(init: IrtMoeScorerInit) {
    const { weights, catalog } = init;
    if (catalog.length !== weights.models.length)
      throw new ValidationError(
        `catalog has ${catalog.length} entries but the weights have ${weights.models.length} ability rows`,
        { path: "catalog" },
      );
    if (init.encoderInfo.dim !== weights.inDim)
      throw new ValidationError(
        `encoderInfo.dim ${init.encoderInfo.dim} does not match the weights' input dimension ${weights.inDim}`,
        { path: "encoderInfo.dim" },
      );
    if (typeof init.temperature !== "number" || !Number.isFinite(init.temperature) || !(init.temperature > 0))
      throw new ValidationError(`temperature must be a finite number > 0, got ${String(init.temperature)}`, {
        path: "temperature",
      });
    const twice = firstRepeat(catalog.map((e) => e.id));
    if (twice)
      throw new ValidationError(
        `catalog has the id "${twice.value}" twice (entries ${twice.first} and ${twice.at}); each ability row needs its own id`,
        {
          path: `catalog.${twice.at}.id`,
        },
      );
    this.weights = weights;
    this.models = catalog;
    this.encoder = { id: init.encoderInfo.id, dim: init.encoderInfo.dim };
    this.abilityDim = weights.alpha.outDim;
    this.temperature = init.temperature;
    this.manifest = init.manifest;
    if (init.manifest?.knownPrior)
      this.knownPrior = { scale: init.manifest.knownPrior.scale, shrinkage: init.manifest.knownPrior.shrinkage };
    this.resolver = new ModelResolver(catalog);
    this.manifestFile = init.manifestFile;
    if (init.encoder && typeof init.encoder !== "function")
      assertSameEncoder(this.encoder, init.encoder, "scorer", { file: this.manifestFile });
    this.encoderSource = init.encoder;
  }

  /** The text encoder (loaded on first use when given as a loader); checked against the scorer's encoder. */
  async textEncoder(): Promise<QueryEncoder> {
    if (!this.encoderSource)
      throw new EncoderUnavailableError(
        `This scorer has no text encoder: pass an embedding (Float32Array of dim ${this.encoder.dim} from "${this.encoder.id}"), or load it with an encoder.`,
      );
    this.encoderPromise ??= (async () => {
      const src = this.encoderSource!;
      const enc = typeof src === "function" ? await src() : src;
      assertSameEncoder(this.encoder, enc, "scorer", { file: this.manifestFile });
      return enc;
    })();
    try {
      return await this.encoderPromise;
    } catch (error) {
      this.encoderPromise = undefined;
      throw error;
    }
  }

  /** The query's embedding: the vector itself (checked) or the encoder's vector of the text. */
  async embed(textOrEmbedding: string | Float32Array): Promise<Float32Array> {
    if (typeof textOrEmbedding === "string") {
      if (textOrEmbedding.length === 0)
        throw new EncoderInputError(
          "query text is the empty string, which carries nothing to embed; pass the text of the query.",
          { path: "textOrEmbedding" },
        );
      const enc = await this.textEncoder();
      const out = await enc.embed([textOrEmbedding]);
      const v = Array.isArray(out) && out.length === 1 ? out[0] : undefined;
      if (!(v instanceof Float32Array))
        throw new EmbeddingProviderError(
          `Encoder "${enc.id}" returned ${Array.isArray(out) ? `${out.length} results` : String(out)} for one text; expected one Float32Array.`,
        );
      if (v.length !== this.encoder.dim)
        throw new EmbeddingProviderError(
          `Encoder "${enc.id}" reports dim ${enc.dim} but returned a vector of length ${v.length}.`,
          {
            details: { expectedDim: this.encoder.dim, actualDim: v.length },
          },
        );
      return this.checkVector(v);
    }
    if (textOrEmbedding instanceof Float32Array) return this.checkVector(textOrEmbedding);
    throw new ValidationError(
      `query must be a string or a Float32Array embedding, got ${textOrEmbedding === null ? "null" : typeof textOrEmbedding}`,
      { path: "textOrEmbedding" },
    );
  }

  private checkVector(v: Float32Array): Float32Array {
    if (v.length !== this.encoder.dim)
      throw new EncoderMismatchError(this.encoder, { id: "(vector given)", dim: v.length }, "scorer");
    for (let i = 0; i < v.length; i++)
      if (!Number.isFinite(v[i]!))
        throw new ValidationError(`embedding has a non-finite value at index ${i}`, { path: `textOrEmbedding.${i}` });
    return v;
  }

  /** Row of theta of a model id or alias (UNKNOWN_MODEL with close matches otherwise). */
  modelIndex(modelId: string): number {
    return this.resolver.indexOf(modelIdArg(modelId, "modelId"));
  }

  async itemParams(textOrEmbedding: string | Float32Array): Promise<ItemParams> {
    return this.itemParamsSync(await this.embed(textOrEmbedding));
  }

  /** Alpha and beta of an embedding, synchronously (checked vector). */
  itemParamsSync(embedding: Float32Array): ItemParams {
    const x = this.checkVector(embedding);
    return irtHeads(this.weights, mixtureForward(this.weights, x).mixed);
  }

  /**
   * p for each requested model (ids or aliases; default: the whole catalog), in the order requested,
   * reported under the catalog's canonical id. A name listed twice, or one that is not a non-empty string,
   * is a ValidationError (`path` `modelIds.<i>`); empty query text is an EncoderInputError.
   */
  async predict(textOrEmbedding: string | Float32Array, modelIds?: readonly string[]): Promise<ModelScore[]> {
    const rows = this.rowsOf(modelIds);
    return this.predictRows(await this.embed(textOrEmbedding), rows);
  }

  /** Synchronous scoring of an embedding (the hot path measured by the benchmark). */
  predictSync(embedding: Float32Array, modelIds?: readonly string[]): ModelScore[] {
    return this.predictRows(this.checkVector(embedding), this.rowsOf(modelIds));
  }

  private rowsOf(modelIds?: readonly string[]): number[] {
    if (modelIds === undefined) return this.models.map((_, m) => m);
    if (!Array.isArray(modelIds))
      throw new ValidationError("modelIds must be an array of model ids", { path: "modelIds" });
    const seen = new Map<string, number>();
    return modelIds.map((id, i) => {
      const name = modelIdArg(id, `modelIds.${i}`);
      const first = seen.get(name);
      if (first !== undefined)
        throw new ValidationError(
          `modelIds lists "${name}" twice (modelIds[${first}] and modelIds[${i}]); list each model once.`,
          { path: `modelIds.${i}` },
        );
      seen.set(name, i);
      return this.resolver.indexOf(name);
    });
  }

  private predictRows(x: Float32Array, rows: number[]): ModelScore[] {
    const params = irtHeads(this.weights, mixtureForward(this.weights, x).mixed);
    const p = scoreRows(params, this.weights.theta, rows, this.temperature);
    return rows.map((m, i) => ({ model: this.models[m]!.id, p: p[i]! }));
  }

  /** beta, alpha, the gate over experts and every catalog model's p (for `irt-router explain`). */
  async explain(textOrEmbedding: string | Float32Array): Promise<ScorerExplanation> {
    const x = await this.embed(textOrEmbedding);
    const { gate, mixed } = mixtureForward(this.weights, x);
    const params = irtHeads(this.weights, mixed);
    const p = scoreRows(params, this.weights.theta, this.models.length, this.temperature);
    return { ...params, gate, scores: this.models.map((e, m) => ({ model: e.id, p: p[m]! })) };
  }

  ability(modelId: string): Float32Array {
    const m = this.resolver.indexOf(modelIdArg(modelId, "modelId"));
    return this.weights.theta.slice(m * this.abilityDim, (m + 1) * this.abilityDim);
  }
}

/** A model id argument: a non-empty string (ValidationError at `path` otherwise). */
function modelIdArg(id: unknown, path: string): string {
  if (typeof id !== "string" || id.length === 0)
    throw new ValidationError(
      `${path} must be a non-empty model id string, got ${typeof id === "string" ? "the empty string" : id === null ? "null" : typeof id}`,
      { path },
    );
  return id;
}
