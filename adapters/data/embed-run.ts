/**
 * One run of `embedDataset` that computes vectors: resumed from the checkpoint of an interrupted run, embedded in
 * batches with periodic checkpoints, checkpointed on abort, and written to the cache when complete.
 */
import { rm } from "node:fs/promises";
import { z } from "zod";
import { EmbeddingProviderError } from "../../src/errors.js";
import type { QueryEncoder } from "../../src/encoders/types.js";
import type { CorrectnessDataset } from "../../src/data/types.js";
import { fsProblem } from "./cache-dir.js";
import {
  CACHE_DIR_ENV,
  readEmbeddingCacheFile,
  writeEmbeddingCacheFile,
  type CacheExpectation,
} from "./embedding-file.js";

/** Options of `embedDataset` (its `EmbedDatasetOptions`). */
export const embedOptionsSchema = z
  .object({
    cacheDir: z.string().min(1).optional(),
    batchSize: z.number().int().min(1).max(4096).default(32),
    /** Minimum milliseconds between two checkpoints of partial progress. */
    checkpointEveryMs: z.number().int().min(0).default(15_000),
    onProgress: z
      .custom<(progress: EmbedProgress) => void>((v) => typeof v === "function", "must be a function")
      .optional(),
    signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal, "must be an AbortSignal").optional(),
    /** Told, when `signal` aborts the run, whether its progress was checkpointed (see {@link EmbedAbort}). */
    onAbort: z.custom<(abort: EmbedAbort) => void>((v) => typeof v === "function", "must be a function").optional(),
    /** Told when computed vectors could not be written to the cache (they are still returned; default console.warn). */
    onWarning: z.custom<(message: string) => void>((v) => typeof v === "function", "must be a function").optional(),
    env: z.record(z.string(), z.string().optional()).optional(),
  })
  .strict();

/** Progress report of {@link embedDataset}: only while vectors are computed, never for a run served from the cache. */
export interface EmbedProgress {
  /** Vectors available so far (including those resumed from a checkpoint). */
  readonly done: number;
  readonly total: number;
  /** Vectors taken from a checkpoint of an earlier, interrupted run. */
  readonly resumed: number;
}

/** What an aborted {@link embedDataset} run left for a rerun to resume from (told to `onAbort` before it rejects). */
export interface EmbedAbort {
  /** Vectors available when the run stopped (including those resumed from a checkpoint). */
  readonly done: number;
  readonly total: number;
  /**
   * Vectors the checkpoint file holds, as far as this run knows: `done` when the checkpoint on abort was written (or
   * there was nothing new to write), else those of the last checkpoint that was written (0: none).
   */
  readonly checkpointed: number;
  /** The checkpoint file a rerun resumes from. */
  readonly file: string;
  /** Why the checkpoint on abort could not be written, when it could not. */
  readonly problem?: string;
}

/**
 * What a rerun of an aborted {@link embedDataset} resumes from, in words: e.g. "rerun the same command to resume from
 * 20/45 texts", or "a rerun starts over".
 *
 * @example
 * ```ts
 * embedDataset(ds, encoder, { signal, onAbort: (a) => console.error(`Interrupted: ${resumeNote(a)}.`) });
 * ```
 */
export function resumeNote(abort: EmbedAbort): string {
  if (abort.checkpointed === 0) return "a rerun starts over";
  const from = `${abort.checkpointed}/${abort.total} texts`;
  return abort.problem
    ? `a rerun resumes from the last checkpoint written (${from}) if it is still there, else starts over`
    : `a rerun resumes from ${from}`;
}

/** What a run embeds and where it caches it. */
export interface EmbedTarget {
  readonly ds: CorrectnessDataset;
  readonly encoder: QueryEncoder;
  readonly expect: CacheExpectation;
  /** The complete cache file; the checkpoint is `${file}.partial`. */
  readonly file: string;
  /** The cache folder (for messages). */
  readonly dir: string;
  readonly warn: (message: string) => void;
}

/** The vectors of one dataset being computed, with what is on disk of them. */
export class EmbedRun {
  private lastCheckpoint = performance.now();
  /** Vectors on disk in the checkpoint file (the resumed ones were read from it). */
  private checkpointed: number;
  private checkpointsFailed = false;

  private constructor(
    private readonly target: EmbedTarget,
    private readonly vectors: Float32Array,
    private done: number,
    /** Vectors taken from the checkpoint of an earlier run. */
    readonly resumed: number,
  ) {
    this.checkpointed = done;
  }

  /** A run starting from the checkpoint of an interrupted one when there is a valid one, else from nothing. */
  static async resume(target: EmbedTarget): Promise<EmbedRun> {
    const { count, dim } = target.expect;
    const partial = await readEmbeddingCacheFile(`${target.file}.partial`, target.expect);
    return partial.ok
      ? new EmbedRun(target, partial.vectors, partial.header.done, partial.header.done)
      : new EmbedRun(target, new Float32Array(count * dim), 0, 0);
  }

  private get partialFile(): string {
    return `${this.target.file}.partial`;
  }

  /**
   * Embeds the remaining texts in batches, reporting progress and checkpointing at most every `checkpointEveryMs`;
   * when `signal` aborts, checkpoints (tried even after a periodic one failed), tells `onAbort` and rejects.
   */
  async embedAll(opts: z.output<typeof embedOptionsSchema>): Promise<void> {
    const { ds, encoder, expect } = this.target;
    const { count, dim } = expect;
    const report = () => opts.onProgress?.({ done: this.done, total: count, resumed: this.resumed });
    report();
    while (this.done < count) {
      if (opts.signal?.aborted) await this.abort(opts.signal, opts.onAbort);
      const end = Math.min(count, this.done + opts.batchSize);
      const texts = ds.items.slice(this.done, end).map((item) => item.text);
      const out = await encoder.embed(texts);
      checkBatch(out, texts.length, dim, encoder.id, this.done);
      out.forEach((v, j) => this.vectors.set(v, (this.done + j) * dim));
      this.done = end;
      report();
      if (this.done < count && performance.now() - this.lastCheckpoint >= opts.checkpointEveryMs)
        await this.checkpoint();
    }
  }

  /** Writes the complete file and removes the checkpoint; the problem, when the cache could not take the vectors. */
  async writeComplete(): Promise<string | undefined> {
    const { ds, expect, dir, warn } = this.target;
    try {
      await writeEmbeddingCacheFile(this.target.file, this.header("complete", expect.count), this.vectors);
    } catch (error) {
      // The vectors are computed and correct: a cache that cannot take them costs a recomputation next time, not this run.
      const notCached = `${fsProblem(error)}: ${(error as Error).message.split("\n")[0]}`;
      warn(
        `irt-router: the embeddings of ${ds.name} could not be cached in ${dir} (${notCached}); they are used uncached and will be recomputed next time. ` +
          `Point --cache-dir, the cacheDir option or ${CACHE_DIR_ENV} at a writable folder with room for ${((expect.count * expect.dim * 4) / 1e6).toFixed(1)} MB.`,
      );
      return notCached;
    }
    await rm(this.partialFile, { force: true }).catch(() => {});
    return undefined;
  }

  /** The computed vectors, as `embedDataset` returns them (without the file and encoder fields). */
  result(): { vectors: Float32Array; dim: number; count: number; fromCache: false; resumed: number } {
    const { dim, count } = this.target.expect;
    return { vectors: this.vectors, dim, count, fromCache: false, resumed: this.resumed };
  }

  private header(kind: "complete" | "partial", n: number) {
    const { ds, encoder, expect } = this.target;
    return {
      kind,
      encoderId: encoder.id,
      dim: expect.dim,
      count: expect.count,
      done: n,
      dataHash: expect.dataHash,
      itemIdHash: expect.itemIdHash,
      dataset: { name: ds.name, sha256: ds.source.sha256 },
    };
  }

  /** Writes the checkpoint; the problem when it could not be written. */
  private async writeCheckpoint(): Promise<string | undefined> {
    try {
      await writeEmbeddingCacheFile(this.partialFile, this.header("partial", this.done), this.vectors);
      this.checkpointed = this.done;
      return undefined;
    } catch (error) {
      return fsProblem(error);
    }
  }

  private async checkpoint(): Promise<void> {
    if (this.done > this.checkpointed && !this.checkpointsFailed) {
      const problem = await this.writeCheckpoint();
      if (problem) {
        // Losing a checkpoint costs a resume, not this run: say so once and carry on (the abort still tries one).
        this.checkpointsFailed = true;
        this.target.warn(
          `irt-router: progress could not be checkpointed in ${this.target.dir} (${problem}); embedding goes on without checkpoints (one is tried again if the run is interrupted).`,
        );
      }
    }
    this.lastCheckpoint = performance.now();
  }

  private async abort(signal: AbortSignal, onAbort: ((abort: EmbedAbort) => void) | undefined): Promise<never> {
    // Always tried, even after a periodic checkpoint failed: it is what a rerun resumes from.
    const problem = this.done > this.checkpointed ? await this.writeCheckpoint() : undefined;
    const outcome: EmbedAbort = {
      done: this.done,
      total: this.target.expect.count,
      checkpointed: this.checkpointed,
      file: this.partialFile,
      ...(problem ? { problem } : {}),
    };
    if (onAbort) onAbort(outcome);
    else if (problem)
      this.target.warn(
        `irt-router: the interrupted run's progress could not be checkpointed in ${this.target.dir} (${problem}); ${resumeNote(outcome)}.`,
      );
    throw signal.reason ?? new Error("aborted");
  }
}

function checkBatch(
  out: unknown,
  expected: number,
  dim: number,
  encoderId: string,
  offset: number,
): asserts out is Float32Array[] {
  if (!Array.isArray(out) || out.length !== expected) {
    throw new EmbeddingProviderError(
      `Encoder "${encoderId}" returned ${Array.isArray(out) ? out.length : typeof out} vectors for a batch of ${expected} texts (items ${offset}..${offset + expected - 1}); nothing was cached for this batch.`,
    );
  }
  out.forEach((v: unknown, j) => {
    if (!(v instanceof Float32Array) || v.length !== dim) {
      throw new EmbeddingProviderError(
        `Encoder "${encoderId}" returned a vector of length ${(v as { length?: number })?.length} for item ${offset + j}; expected ${dim}.`,
      );
    }
    for (const x of v) {
      if (!Number.isFinite(x)) {
        throw new EmbeddingProviderError(
          `Encoder "${encoderId}" returned a non-finite value for item ${offset + j}; refusing to cache it.`,
        );
      }
    }
  });
}
