import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { GraphModel, io } from "@tensorflow/tfjs";
import { EncoderUnavailableError } from "../../src/errors.js";
import type { Tf } from "../tf.js";

interface WeightsGroup {
  paths: string[];
  weights: io.WeightsManifestEntry[];
}

/**
 * A tfjs `IOHandler` that reads a converted graph model (`model.json` plus its weight shards)
 * from local files: no fetch, no network. Shards are concatenated in manifest order.
 * A missing or malformed file raises {@link EncoderUnavailableError} naming the file.
 *
 * @example
 * ```ts
 * const { tf } = await getTf();
 * const model = await tf.loadGraphModel(graphModelFileHandler("/path/to/model.json"));
 * ```
 */
export function graphModelFileHandler(modelJsonPath: string): io.IOHandler {
  return {
    async load(): Promise<io.ModelArtifacts> {
      const json = await readJson(modelJsonPath);
      const manifest = json.weightsManifest as WeightsGroup[] | undefined;
      if (!json.modelTopology || !Array.isArray(manifest)) {
        throw new EncoderUnavailableError(
          `${modelJsonPath} is not a tfjs graph model (no modelTopology/weightsManifest). Reinstall the package that provides it.`,
          { file: modelJsonPath },
        );
      }
      const dir = dirname(modelJsonPath);
      const weightSpecs = manifest.flatMap((group) => group.weights);
      const shardPaths = manifest.flatMap((group) => group.paths.map((p) => join(dir, p)));
      const shards = await Promise.all(shardPaths.map((p) => readBytes(p)));
      const total = shards.reduce((sum, s) => sum + s.byteLength, 0);
      const weightData = new Uint8Array(total);
      let offset = 0;
      for (const shard of shards) {
        weightData.set(shard, offset);
        offset += shard.byteLength;
      }
      return {
        modelTopology: json.modelTopology as object,
        weightSpecs,
        weightData: weightData.buffer,
        format: json.format as string | undefined,
        generatedBy: json.generatedBy as string | undefined,
        convertedBy: json.convertedBy as string | null | undefined,
        signature: json.signature as object | undefined,
        userDefinedMetadata: json.userDefinedMetadata as Record<string, object> | undefined,
      };
    },
  };
}

/** Loads a graph model from local files with the given tfjs. */
export async function loadGraphModelFromFiles(tf: Tf, modelJsonPath: string): Promise<GraphModel> {
  try {
    return await tf.loadGraphModel(graphModelFileHandler(modelJsonPath));
  } catch (error) {
    if (error instanceof EncoderUnavailableError) throw error;
    throw new EncoderUnavailableError(
      `Could not build the graph model from ${modelJsonPath}: ${(error as Error).message}. The files may be corrupt; reinstall the package that provides them.`,
      { file: modelJsonPath, cause: error },
    );
  }
}

async function readBytes(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new EncoderUnavailableError(
      `Cannot read model file ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Reinstall the package that provides it.`,
      { file: path, cause: error },
    );
  }
}

async function readJson(path: string): Promise<Record<string, unknown>> {
  const bytes = await readBytes(path);
  try {
    return JSON.parse(Buffer.from(bytes).toString("utf8")) as Record<string, unknown>;
  } catch (error) {
    throw new EncoderUnavailableError(`${path} is not valid JSON: ${(error as Error).message}`, {
      file: path,
      cause: error,
    });
  }
}
