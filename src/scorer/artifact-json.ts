/** The JSON files of a scorer artifact, parsed and checked with the errors every reader of them gives. */
import type { z } from "zod";
import { ArtifactError } from "../errors.js";
import { parseWith } from "../util/validate.js";

/**
 * The parsed JSON of an artifact file; an ArtifactError (ARTIFACT_FORMAT) naming the file when it is not JSON
 * (a corrupted or truncated artifact).
 */
export function parseArtifactJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ArtifactError(
      "ARTIFACT_FORMAT",
      `${file} is not valid JSON (${(error as Error).message}); the artifact is corrupted or truncated.`,
      { file, cause: error },
    );
  }
}

/**
 * `json` checked against an artifact file's `schema` (`parseWith`, its issues under `what`); when it does not fit, an
 * ArtifactError (ARTIFACT_FORMAT) naming the file, with the first issue's path.
 */
export function parseArtifactWith<S extends z.ZodType>(
  schema: S,
  json: unknown,
  what: string,
  file: string,
): z.output<S> {
  try {
    return parseWith(schema, json, what, file);
  } catch (error) {
    throw new ArtifactError("ARTIFACT_FORMAT", `${file}: ${(error as Error).message}`, {
      file,
      path: (error as { path?: string }).path,
      cause: error,
    });
  }
}
