/** The JSON files of a scorer artifact, parsed with the error every reader of them gives. */
import { ArtifactError } from "../errors.js";

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
