/**
 * Typed errors. Every error the library raises on purpose is an {@link IrtRouterError}
 * with a stable `code`, a message that says what was wrong and how to fix it, and,
 * where it applies, the `path` of the offending field or the `file`/`line` of a bad row.
 */
export type IrtRouterErrorCode =
  | "INVALID_ARGUMENT"
  | "INVALID_CONFIG"
  | "DATASET_NOT_FOUND"
  | "DATASET_FORMAT"
  | "ENCODER_MISMATCH"
  | "ENCODER_INPUT"
  | "ENCODER_UNAVAILABLE"
  | "DEPENDENCY_MISSING"
  | "EMBEDDING_PROVIDER"
  | "ARTIFACT_INTEGRITY"
  | "ARTIFACT_FORMAT"
  | "UNKNOWN_MODEL"
  | "NO_CANDIDATES"
  | "FEEDBACK"
  | "STORE"
  | "STORE_LOCKED"
  | "TRAINING_FAILED"
  | "CACHE_UNUSABLE"
  | "MODEL_FAULT";

export interface IrtRouterErrorOptions {
  /** Dotted path of the bad field in an options object or config file. */
  path?: string;
  /** File the problem was found in. */
  file?: string;
  /** 1-based line in `file`. */
  line?: number;
  /** Extra machine-readable detail. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class IrtRouterError extends Error {
  readonly code: IrtRouterErrorCode;
  readonly path?: string;
  readonly file?: string;
  readonly line?: number;
  readonly details?: Record<string, unknown>;

  constructor(code: IrtRouterErrorCode, message: string, options: IrtRouterErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.path = options.path;
    this.file = options.file;
    this.line = options.line;
    this.details = options.details;
  }
}

/** A public option, config file or CLI argument failed validation. */
export class ValidationError extends IrtRouterError {
  constructor(message: string, options: IrtRouterErrorOptions = {}) {
    super(options.file ? "INVALID_CONFIG" : "INVALID_ARGUMENT", message, options);
  }
}

/** A dataset could not be found under any data root that was tried. */
export class DatasetNotFoundError extends IrtRouterError {
  constructor(message: string, options: IrtRouterErrorOptions = {}) {
    super("DATASET_NOT_FOUND", message, options);
  }
}

/** A dataset file has a bad row or a bad shape. `file` and `line` say where. */
export class DatasetFormatError extends IrtRouterError {
  constructor(message: string, options: IrtRouterErrorOptions = {}) {
    super("DATASET_FORMAT", message, options);
  }
}

/**
 * An artifact built for one encoder was used with another. With `options.file` (the file that records the
 * artifact's encoder, e.g. a scorer's manifest.json) the message names it; `options.hint` replaces the closing
 * advice.
 */
export class EncoderMismatchError extends IrtRouterError {
  constructor(
    readonly expected: { id: string; dim: number },
    readonly actual: { id: string; dim: number },
    what = "artifact",
    options: Omit<IrtRouterErrorOptions, "details"> & { hint?: string } = {},
  ) {
    const { hint, ...rest } = options;
    super(
      "ENCODER_MISMATCH",
      (rest.file
        ? `${rest.file} records encoder "${expected.id}" (dim ${expected.dim}), but this ${what} is being used with encoder "${actual.id}" (dim ${actual.dim}). `
        : `This ${what} was built with encoder "${expected.id}" (dim ${expected.dim}) but is being used with encoder "${actual.id}" (dim ${actual.dim}). `) +
        (hint ?? `Use the encoder it was built with, or rebuild the ${what} with "${actual.id}".`),
      { ...rest, details: { expected, actual } },
    );
  }
}

/** Text given to an encoder cannot be embedded (wrong type, unusable content). */
export class EncoderInputError extends IrtRouterError {
  constructor(message: string, options: IrtRouterErrorOptions = {}) {
    super("ENCODER_INPUT", message, options);
  }
}

/**
 * An optional package a feature needs is not installed (e.g. `@tensorflow/tfjs` for USE-lite or training, vega for the
 * report). The
 * message names the packages with the exact `npm install` command and, where one exists, the alternative that needs
 * none; `details.packages` lists them as `name@version`.
 */
export class MissingDependencyError extends IrtRouterError {
  constructor(
    readonly packages: readonly string[],
    message: string,
    options: Omit<IrtRouterErrorOptions, "details"> = {},
  ) {
    super("DEPENDENCY_MISSING", message, { ...options, details: { packages: [...packages] } });
  }
}

/** A remote embedding provider failed (auth, rate limit after retries, bad response). */
export class EmbeddingProviderError extends IrtRouterError {
  readonly status?: number;
  constructor(message: string, options: IrtRouterErrorOptions & { status?: number } = {}) {
    super("EMBEDDING_PROVIDER", message, options);
    this.status = options.status;
  }
}

/** A saved artifact is corrupted, truncated, or of an unsupported format version. */
export class ArtifactError extends IrtRouterError {
  constructor(code: "ARTIFACT_INTEGRITY" | "ARTIFACT_FORMAT", message: string, options: IrtRouterErrorOptions = {}) {
    super(code, message, options);
  }
}

/** Training produced no usable scorer (e.g. the validation score was never finite: diverged, or a one-class validation set). */
export class TrainingError extends IrtRouterError {
  constructor(message: string, options: IrtRouterErrorOptions = {}) {
    super("TRAINING_FAILED", message, options);
  }
}

/**
 * A cache folder cannot be created or written (a path under a regular file, no permission, a read-only file system).
 * The message names the folder, where it came from and the option that moves it; `details.dir` is the folder.
 */
export class CacheError extends IrtRouterError {
  constructor(message: string, options: IrtRouterErrorOptions = {}) {
    super("CACHE_UNUSABLE", message, options);
  }
}

/** A feedback event is malformed (non-finite numbers, outcome out of range, empty id, ...). Nothing was written. */
export class FeedbackError extends IrtRouterError {
  constructor(message: string, options: IrtRouterErrorOptions = {}) {
    super("FEEDBACK", message, options);
  }
}

/** A durable store is corrupted, unwritable, or was used in a way it cannot honour. `file`/`line` say where. */
export class StoreError extends IrtRouterError {
  constructor(message: string, options: IrtRouterErrorOptions = {}) {
    super("STORE", message, options);
  }
}

/**
 * A store lost acknowledged events to damage from outside (a damaged or zeroed journal tail, a journal cut short):
 * refused rather than cut silently. `details.lost` gives the sequence numbers lost when known; the message says how
 * to repair (a backup, or `FileStore.open(dir, { repairTail: true })` accepting the loss).
 */
export class StoreCorruptedError extends StoreError {}

/**
 * A value under a store's keys is not what the store writes there (another program wrote to its prefix, or it was
 * damaged). `details.key` names the key, `details.expected` what belongs there; the value itself is not repeated.
 */
export class StoreGarbageError extends StoreError {}

/** Why a Redis connection failed, as {@link RedisConnectionError} names it. */
export type RedisConnectionCause =
  "auth" | "password-missing" | "tls-untrusted" | "tls" | "refused" | "timeout" | "not-found" | "unknown";

/**
 * A store could not connect to Redis; `cause` names why (wrong credentials, a password the server needs, a TLS
 * certificate not trusted, refused, no answer in time) and the message says how to fix it.
 */
export class RedisConnectionError extends StoreError {
  constructor(
    readonly reason: RedisConnectionCause,
    message: string,
    options: IrtRouterErrorOptions = {},
  ) {
    super(message, { ...options, details: { ...options.details, reason } });
  }
}

/** What a {@link StoreWarning} reports. */
export type StoreWarningKind =
  "unreachable" | "reachable" | "refused" | "store-wiped" | "malformed-entry" | "budget-local";

/**
 * Something a store noticed and survived (Redis unreachable, the store wiped and republished, a malformed stream entry
 * skipped): given to a store's `onWarning(message, warning)`. `kind` says which, `details` the figures.
 */
export class StoreWarning extends IrtRouterError {
  constructor(
    readonly kind: StoreWarningKind,
    message: string,
    options: IrtRouterErrorOptions = {},
  ) {
    super("STORE", message, options);
  }
}

/** Another live process (or another open handle in this one) holds the store's lock. */
export class StoreLockedError extends IrtRouterError {
  constructor(message: string, options: IrtRouterErrorOptions = {}) {
    super("STORE_LOCKED", message, options);
  }
}

/** A local encoder cannot start: its weights package is missing or its files are unreadable or corrupt. */
export class EncoderUnavailableError extends IrtRouterError {
  constructor(message: string, options: IrtRouterErrorOptions = {}) {
    super("ENCODER_UNAVAILABLE", message, options);
  }
}

/** A model id (or alias) that the scorer's catalog does not know. `details.suggestions` lists close matches. */
export class UnknownModelError extends IrtRouterError {
  constructor(
    readonly model: string,
    readonly suggestions: readonly string[],
    options: IrtRouterErrorOptions = {},
  ) {
    super(
      "UNKNOWN_MODEL",
      `Unknown model "${model}".${suggestions.length > 0 ? ` Did you mean: ${suggestions.join(", ")}?` : ""} ` +
        `Use a catalog id or alias (see scorer.models).`,
      { ...options, details: { ...options.details, model, suggestions } },
    );
  }
}

/** A child misbehaved during an attempt (no answer in time, or a reply that is no chat message); it falls back. */
export class ModelFaultError extends IrtRouterError {
  constructor(model: string, kind: "timeout" | "reply", message: string) {
    super("MODEL_FAULT", message, { details: { model, kind } });
  }
}

/** A model left out of a call, and why (in a route decision, and the `excluded` of {@link NoCandidatesError}). */
export interface ExclusionRecord {
  readonly id: string;
  readonly reason: string;
}

/** No registered model can serve this call; `excluded` says why each one was left out. */
export class NoCandidatesError extends IrtRouterError {
  readonly excluded: readonly ExclusionRecord[];
  constructor(excluded: readonly ExclusionRecord[]) {
    const list = excluded.map((e) => `${e.id}: ${e.reason}`).join("; ");
    super(
      "NO_CANDIDATES",
      `No registered model can serve this call (${list}). ` +
        `Register a model that can, give a model a larger contextWindow, or shorten the input.`,
      { details: { excluded } },
    );
    this.excluded = excluded;
  }
}

/** A source spent its budget of feedback weight for the current window; nothing was stored. */
export class FeedbackBudgetError extends FeedbackError {}

/** More feedback events arrived while Redis was unreachable than the local buffer holds: these were refused, not stored. */
export class FeedbackBufferFullError extends StoreError {
  constructor(message: string, details: Record<string, unknown>) {
    super(message, { path: "buffer.maxEvents", details });
  }
}

/**
 * A warning, never thrown: a model has no measured ability on the router's scorer (neither a scorer row nor a catalog
 * entry with data), so it starts from a rule's prior. The router gives it once per model through
 * `options.logger.warn(message, warning)`; `command` calibrates the model on a few of the user's own tasks.
 */
export class UnknownModelWarning extends IrtRouterError {
  constructor(
    /** The model, as registered in `options.models`. */
    readonly model: string,
    /**
     * The prior it starts from: `method` (`family-tier`: the family and price-tier rule; `population`: the average of
     * the scorer's models), the MMLU-equivalent accuracy in percent it stands for (when it has one), its sd on the
     * scorer's logit scale (NaN when unknown) and its source.
     */
    readonly prior: {
      readonly method: "family-tier" | "population" | "published" | "terminal-bench";
      readonly mmluEquivalent?: number;
      readonly sd: number;
      readonly source: string;
    },
    /** The CLI command that calibrates it on a few of the user's own tasks. */
    readonly command: string,
    /** Close catalog names, when the name looks like a typo. */
    readonly suggestions: readonly string[] = [],
    /**
     * The catalog id, for a catalog model that has no data (its prior is the family and price-tier rule) or whose prior
     * is not fitted for the router's scorer (a custom scorer: population average).
     */
    readonly catalogId?: string,
  ) {
    const pct = prior.mmluEquivalent !== undefined ? `, MMLU-equivalent ${prior.mmluEquivalent.toFixed(1)}%` : "";
    const what =
      catalogId === undefined
        ? "is not in the model catalog"
        : prior.method === "population"
          ? `is in the model catalog as "${catalogId}", but the catalog's priors are fitted for the shipped scorers only`
          : `is in the model catalog as "${catalogId}" but no data measures it`;
    super(
      "UNKNOWN_MODEL",
      `irt-router: model "${model}" ${what}; it starts from a prior: ${prior.method}${pct} ` +
        `(${Number.isFinite(prior.sd) ? `sd ${prior.sd.toFixed(2)} logits; ` : ""}${prior.source}). ` +
        (suggestions.length > 0 ? `Did you mean ${suggestions.join(", ")}? ` : "") +
        `Calibrate it on a few of your own tasks: ${command}`,
      {
        path: `options.models.${model}`,
        details: { model, prior, command, suggestions, ...(catalogId !== undefined ? { catalogId } : {}) },
      },
    );
  }
}

/**
 * Whether a failed `snapshot()` left the store unable to take more events until it is reopened (FileStore says so with
 * `details.reopen: true`, after a failed journal compaction). Otherwise the events are in the journal, appends go on and
 * a later due snapshot retries: the caller warns and continues.
 *
 * @example
 * ```ts
 * try { await store.snapshot(seq, learner.exportState()); }
 * catch (error) { if (snapshotNeedsReopen(error)) throw error; console.warn(`snapshot failed, will retry: ${error}`); }
 * ```
 */
export function snapshotNeedsReopen(error: unknown): boolean {
  return (error as { details?: { reopen?: unknown } } | null | undefined)?.details?.reopen === true;
}
