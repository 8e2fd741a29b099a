import type { InferenceClient } from "@huggingface/inference";
import { z } from "zod";
import type { QueryEncoder } from "../../src/encoders/types.js";
import { assertTexts, describe, toCheckedVector } from "../../src/encoders/vectors.js";
import { EmbeddingProviderError, MissingDependencyError } from "../../src/errors.js";
import { isMissingPackage } from "../../src/util/missing-package.js";
import { parseWith } from "../../src/util/validate.js";

type HuggingFaceModule = typeof import("@huggingface/inference");
/** The version of the optional peer dependency the project is tested with (package.json). */
const HUGGING_FACE_VERSION = "4.13.30";
let huggingFace: Promise<HuggingFaceModule> | undefined;

/**
 * The client library, imported on the first request (about 140 ms of module loading that routing never needs). It is
 * an optional peer dependency: when it is not installed, a MissingDependencyError names it with the install command.
 */
function loadHuggingFace(): Promise<HuggingFaceModule> {
  huggingFace ??= import("@huggingface/inference").catch((error: unknown) => {
    huggingFace = undefined;
    if (!isMissingPackage(error, "@huggingface/inference")) throw error;
    throw new MissingDependencyError(
      [`@huggingface/inference@${HUGGING_FACE_VERSION}`],
      `HuggingFaceEncoder needs the optional package @huggingface/inference, not installed. Install it with: ` +
        `npm install @huggingface/inference@${HUGGING_FACE_VERSION}`,
      { cause: error },
    );
  });
  return huggingFace;
}

const httpUrl = z
  .string()
  .url("endpointUrl must be an absolute URL")
  .refine((u) => /^https?:\/\//i.test(u), "endpointUrl must start with http:// or https://");

const baseOptionsSchema = z.object({
  /** Hub model id, e.g. `BAAI/bge-small-en-v1.5`. Names the model in the encoder id even when `endpointUrl` is set. */
  model: z.string().trim().min(1, "model must be a Hugging Face model id such as BAAI/bge-small-en-v1.5"),
  /** Hugging Face token (`hf_...`) or a provider key. Optional for endpoints that need none. */
  accessToken: z.string().min(1, "accessToken must not be empty; omit it instead").optional(),
  /** Your own endpoint (Inference Endpoint, TEI server, ...). The client POSTs `{ inputs: [...] }` to this exact URL. */
  endpointUrl: httpUrl.optional(),
  /** Inference provider when no endpointUrl is given (default `hf-inference`). */
  provider: z.string().trim().min(1).optional(),
  /** Encoder id recorded by artifacts; default `huggingface:<model>`. */
  id: z.string().trim().min(1, "id must not be empty").optional(),
  /** Retries after the first attempt for 429, 503, 5xx, timeouts and network errors. */
  maxRetries: z.number().int().min(0).max(20).default(4),
  /** Cap on any single wait between retries (Retry-After and estimated_time are honoured up to this). */
  maxRetryWaitMs: z.number().int().min(0).max(600_000).default(30_000),
  /** First backoff when the server gives no hint; doubles per retry (capped by maxRetryWaitMs). */
  baseRetryDelayMs: z.number().int().min(0).max(60_000).default(500),
  /** Texts per request. */
  batchSize: z.number().int().min(1).max(2048).default(32),
  /** How token-level output (one vector per token) is reduced to one vector: mean, first token, or refuse. */
  pooling: z.enum(["mean", "cls", "none"]).default("mean"),
  /** Per-request timeout; a timed-out request counts as a retryable failure. */
  timeoutMs: z.number().int().min(1).max(600_000).default(60_000),
  /** Sent as `normalize` in the request body when set (text-embeddings-inference honours it). */
  normalize: z.boolean().optional(),
  /** Sent as `truncate` in the request body when set (text-embeddings-inference honours it). */
  truncate: z.boolean().optional(),
  /** Called before each retry wait (for logging/metrics): attempt number, HTTP status if any, wait, reason. */
  onRetry: z
    .custom<(info: HuggingFaceRetryInfo) => void>((v) => typeof v === "function", "onRetry must be a function")
    .optional(),
});

/** What {@link HuggingFaceEncoderOptions.onRetry} receives before each retry. */
export interface HuggingFaceRetryInfo {
  /** 1 for the first retry. */
  readonly retry: number;
  readonly status?: number;
  /** How long the encoder waits before the retry (server hint or backoff, capped by maxRetryWaitMs). */
  readonly waitMs: number;
  readonly reason: string;
}

const optionsSchema = baseOptionsSchema
  .extend({
    /** Output dimension of the model (e.g. 384 for bge-small). Every returned vector is checked against it. */
    dim: z.number().int().positive("dim must be the model's output dimension, a positive integer"),
  })
  .refine((o) => !(o.endpointUrl && o.provider), {
    message: "set either endpointUrl or provider, not both (an endpoint URL already says where to send requests)",
    path: ["provider"],
  });

/** Options of {@link HuggingFaceEncoder}; see the field comments for defaults. */
export type HuggingFaceEncoderOptions = z.input<typeof optionsSchema>;
/** Options of {@link HuggingFaceEncoder.probe}: as the constructor's, with `dim` optional (probed when absent). */
export type HuggingFaceEncoderProbeOptions = Omit<HuggingFaceEncoderOptions, "dim"> & { dim?: number };

type ResolvedOptions = z.output<typeof optionsSchema>;

/** Why one attempt failed, and whether (and after how long) it may be retried. */
interface AttemptFailure {
  retryable: boolean;
  status?: number;
  message: string;
  /** Server-suggested wait in ms (Retry-After, or estimated_time of a loading model). */
  hintMs?: number;
  cause: unknown;
}

/**
 * Query encoder backed by the Hugging Face Inference API (`@huggingface/inference` v4,
 * `InferenceClient.featureExtraction`), a dedicated Inference Endpoint, or any server speaking the
 * same feature-extraction protocol (e.g. text-embeddings-inference) via `endpointUrl`.
 *
 * Behaviour: texts are sent in batches of `batchSize`; 401/403 fail at once (check the token);
 * 429 is retried after `Retry-After` (capped by `maxRetryWaitMs`), 503 "model is loading" after its
 * `estimated_time` (capped), 5xx/timeouts/network errors with exponential backoff, all at most
 * `maxRetries` times, then an {@link EmbeddingProviderError} carrying the last HTTP status.
 * A malformed body, a wrong number of vectors, a wrong dimension or a non-finite number is an
 * `EmbeddingProviderError` too: a NaN vector is never returned. Token-level output is pooled
 * (`pooling`, default mean).
 *
 * @example
 * ```ts
 * import { HuggingFaceEncoder } from "irt-router/adapters";
 * const encoder = new HuggingFaceEncoder({
 *   model: "BAAI/bge-small-en-v1.5",
 *   dim: 384,
 *   accessToken: process.env.HF_TOKEN,
 * });
 * const [v] = await encoder.embed(["How do I reverse a linked list?"]); // Float32Array(384)
 * ```
 */
export class HuggingFaceEncoder implements QueryEncoder {
  readonly id: string;
  readonly dim: number;
  private readonly options: ResolvedOptions;
  private client?: InferenceClient;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: HuggingFaceEncoderOptions) {
    this.options = parseWith(optionsSchema, options, "HuggingFaceEncoder options");
    this.id = this.options.id ?? `huggingface:${this.options.model}`;
    this.dim = this.options.dim;
    this.sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  }

  /**
   * Create an encoder, learning `dim` from one request when it is not given (embeds a short probe
   * text once). Use it when you do not know the model's output size.
   *
   * @example
   * ```ts
   * const encoder = await HuggingFaceEncoder.probe({ model: "BAAI/bge-small-en-v1.5", accessToken });
   * encoder.dim; // 384
   * ```
   */
  static async probe(options: HuggingFaceEncoderProbeOptions): Promise<HuggingFaceEncoder> {
    if (options?.dim !== undefined) return new HuggingFaceEncoder(options as HuggingFaceEncoderOptions);
    // Validate everything except dim first, so a bad option is reported before any request.
    const probeOptions = parseWith(baseOptionsSchema, options, "HuggingFaceEncoder options");
    const probe = new HuggingFaceEncoder({ ...probeOptions, dim: 1 });
    const raw = await probe.requestWithRetry(["dimension probe"]);
    const item = Array.isArray(raw) && raw.length === 1 && Array.isArray(raw[0]) ? raw[0] : raw;
    const first = Array.isArray(item) && Array.isArray(item[0]) ? item[0] : item;
    if (!Array.isArray(first) || first.length === 0) {
      throw new EmbeddingProviderError(
        `${probe.source()} returned ${describe(first)} for the dimension probe; cannot learn dim. Pass dim explicitly.`,
      );
    }
    return new HuggingFaceEncoder({ ...options, dim: first.length } as HuggingFaceEncoderOptions);
  }

  /** Embed texts in order, `batchSize` per request. An empty list makes no request. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    assertTexts(texts, this.id);
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.options.batchSize) {
      const batch = texts.slice(start, start + this.options.batchSize);
      const raw = await this.requestWithRetry(batch);
      out.push(...this.toVectors(raw, batch.length, start));
    }
    return out;
  }

  private source(): string {
    return `Hugging Face feature-extraction (${this.options.endpointUrl ?? this.options.model})`;
  }

  /** One batch, with bounded retries. Returns the raw parsed output. */
  private async requestWithRetry(inputs: string[]): Promise<unknown> {
    const { maxRetries } = this.options;
    for (let attempt = 0; ; attempt++) {
      let failure: AttemptFailure;
      try {
        return await this.request(inputs);
      } catch (err) {
        if (err instanceof MissingDependencyError) throw err; // not a provider failure: no retry
        failure = err instanceof AttemptError ? err.failure : this.classify(err, undefined);
      }
      if (!failure.retryable) {
        throw new EmbeddingProviderError(failure.message, { status: failure.status, cause: failure.cause });
      }
      if (attempt >= maxRetries) {
        throw new EmbeddingProviderError(
          `${failure.message} Gave up after ${attempt + 1} attempt${attempt === 0 ? "" : "s"} (maxRetries ${maxRetries}); ` +
            `retry later, or raise maxRetries / maxRetryWaitMs.`,
          { status: failure.status, cause: failure.cause, details: { attempts: attempt + 1 } },
        );
      }
      const waitMs = this.retryDelayMs(attempt, failure.hintMs);
      this.options.onRetry?.({ retry: attempt + 1, status: failure.status, waitMs, reason: failure.message });
      await this.sleep(waitMs);
    }
  }

  /** Wait before retry number `attempt + 1`: the server's hint if any, else exponential backoff; always capped. */
  private retryDelayMs(attempt: number, hintMs: number | undefined): number {
    const backoff = this.options.baseRetryDelayMs * 2 ** attempt;
    return Math.min(hintMs ?? backoff, this.options.maxRetryWaitMs);
  }

  /** One HTTP attempt. Errors are normalised to AttemptError with the response's Retry-After captured. */
  private async request(inputs: string[]): Promise<unknown> {
    let retryAfterMs: number | undefined;
    // The client does not expose response headers on errors; a thin fetch wrapper records Retry-After.
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
      return response;
    };
    const { model, endpointUrl, provider, normalize, truncate, timeoutMs } = this.options;
    const args: Record<string, unknown> = { model, inputs };
    if (endpointUrl) args.endpointUrl = endpointUrl;
    else args.provider = provider ?? "hf-inference";
    if (normalize !== undefined) args.normalize = normalize;
    if (truncate !== undefined) args.truncate = truncate;
    const hf = await loadHuggingFace();
    this.client ??= new hf.InferenceClient(this.options.accessToken ?? "");
    try {
      return await this.client.featureExtraction(args as never, {
        // The client's own 503 handling retries forever; ours is bounded.
        retry_on_error: false,
        fetch: recordingFetch,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new AttemptError(this.classify(err, retryAfterMs, hf));
    }
  }

  /** `hf`: the client library, when it was loaded (its error classes); without it only generic errors match. */
  private classify(err: unknown, retryAfterMs: number | undefined, hf?: HuggingFaceModule): AttemptFailure {
    const none = class {} as never; // matches no error
    const {
      InferenceClientHubApiError = none,
      InferenceClientInputError = none,
      InferenceClientProviderApiError = none,
      InferenceClientProviderOutputError = none,
      InferenceClientRoutingError = none,
    } = hf ?? ({} as Partial<HuggingFaceModule>);
    const src = this.source();
    // Provider errors, and Hub errors from resolving which provider serves the model.
    if (err instanceof InferenceClientProviderApiError || err instanceof InferenceClientHubApiError) {
      const detail = bodyMessage(err.httpResponse.body) ?? err.message;
      return httpFailure(src, err, err.httpResponse.status, detail, retryAfterMs);
    }
    if (err instanceof InferenceClientProviderOutputError) {
      return { retryable: false, cause: err, message: `${src} returned a malformed body: ${err.message}` };
    }
    if (err instanceof SyntaxError) {
      return {
        retryable: false,
        cause: err,
        message: `${src} returned a body that is not valid JSON (${err.message}).`,
      };
    }
    if (err instanceof InferenceClientInputError || err instanceof InferenceClientRoutingError) {
      return { retryable: false, cause: err, message: `${src}: the request could not be built (${err.message}).` };
    }
    const name = (err as { name?: string } | null)?.name;
    if (name === "TimeoutError" || name === "AbortError") {
      return { retryable: true, cause: err, message: `${src} did not answer within ${this.options.timeoutMs} ms.` };
    }
    if (err instanceof TypeError) {
      // fetch() reports connection failures (refused, reset, DNS) as TypeError("fetch failed").
      const why = (err.cause as { code?: string } | undefined)?.code ?? err.message;
      return { retryable: true, cause: err, message: `${src} could not be reached (${why}).` };
    }
    return {
      retryable: false,
      cause: err,
      message: `${src} failed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }

  /** Shape a batch's raw output into `count` checked vectors (pooling token-level output). */
  private toVectors(raw: unknown, count: number, offset: number): Float32Array[] {
    const src = this.source();
    if (!Array.isArray(raw)) {
      throw new EmbeddingProviderError(`${src} returned ${describe(raw)}; expected an array of ${count} vectors.`);
    }
    // Some servers return a bare vector (or a bare token matrix) for a single input.
    const items: unknown[] = raw.length === count && raw.every(Array.isArray) ? raw : count === 1 ? [raw] : [];
    if (items.length !== count) {
      throw new EmbeddingProviderError(
        `${src} returned ${raw.length} entries for a batch of ${count} texts; expected one vector per text.`,
        { details: { expected: count, actual: raw.length } },
      );
    }
    return items.map((item, k) => this.toVector(item, offset + k));
  }

  private toVector(item: unknown, index: number): Float32Array {
    const src = this.source();
    if (!Array.isArray(item) || !Array.isArray(item[0])) return toCheckedVector(item, this.dim, index, src);
    // Token-level output: one row per token.
    const rows = item as unknown[];
    if (this.options.pooling === "none") {
      throw new EmbeddingProviderError(
        `${src} returned token-level output (${rows.length} token vectors) for text ${index}, and pooling is "none". ` +
          `Use a sentence-embedding model, or set pooling to "mean" or "cls".`,
      );
    }
    const tokens = rows.map((row) => toCheckedVector(row, this.dim, index, src));
    if (tokens.length === 0) throw new EmbeddingProviderError(`${src} returned zero token vectors for text ${index}.`);
    if (this.options.pooling === "cls") return tokens[0]!;
    const mean = new Float32Array(this.dim);
    for (const t of tokens) for (let j = 0; j < this.dim; j++) mean[j]! += t[j]! / tokens.length;
    return mean;
  }
}

/** Carries a classified failure out of one attempt. */
class AttemptError extends Error {
  constructor(readonly failure: AttemptFailure) {
    super(failure.message);
  }
}

/**
 * Parse an HTTP `Retry-After` value: delay-seconds (`"3"`) or an HTTP-date. Returns ms to wait,
 * or undefined when absent or unparseable.
 */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - Date.now());
}

function bodyMessage(body: unknown): string | undefined {
  if (typeof body === "string") return body.trim() || undefined;
  if (body && typeof body === "object") {
    const b = body as Record<string, unknown>;
    for (const key of ["error", "detail", "message"]) if (typeof b[key] === "string") return b[key] as string;
  }
  return undefined;
}

function estimatedTimeMs(body: unknown): number | undefined {
  const t = body && typeof body === "object" ? (body as Record<string, unknown>).estimated_time : undefined;
  return typeof t === "number" && Number.isFinite(t) && t >= 0 ? Math.round(t * 1000) : undefined;
}

/**
 * The failure of an HTTP error from the provider or the Hub: 401/403 (a token problem), 429 (rate limited), 503
 * (loading or unavailable, with the provider's estimate), other 5xx (retryable) and other 4xx (a bad request).
 */
function httpFailure(
  src: string,
  err: { httpResponse: { body: unknown } },
  status: number,
  detail: string,
  retryAfterMs: number | undefined,
): AttemptFailure {
  if (status === 401 || status === 403) {
    return {
      retryable: false,
      status,
      cause: err,
      message:
        `${src} refused the request (HTTP ${status}: ${detail}). Check the accessToken: it must be a valid token ` +
        `with access to this model/endpoint (Inference permission for hf_ tokens).`,
    };
  }
  if (status === 429) {
    return {
      retryable: true,
      status,
      cause: err,
      hintMs: retryAfterMs,
      message: `${src} is rate limiting (HTTP 429: ${detail}).`,
    };
  }
  if (status === 503) {
    const estimated = estimatedTimeMs(err.httpResponse.body);
    const loading = estimated !== undefined || /loading/i.test(detail);
    return {
      retryable: true,
      status,
      cause: err,
      hintMs: estimated ?? retryAfterMs,
      message: loading
        ? `${src}: the model is still loading (HTTP 503: ${detail}).`
        : `${src} is unavailable (HTTP 503: ${detail}).`,
    };
  }
  if (status >= 500) {
    return {
      retryable: true,
      status,
      cause: err,
      hintMs: retryAfterMs,
      message: `${src} failed (HTTP ${status}: ${detail}).`,
    };
  }
  return {
    retryable: false,
    status,
    cause: err,
    message: `${src} rejected the request (HTTP ${status}: ${detail}). Check model, endpointUrl and the input texts.`,
  };
}
