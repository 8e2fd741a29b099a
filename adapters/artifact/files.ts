import { randomUUID } from "node:crypto";
import { renameSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ArtifactError } from "../../src/errors.js";
import {
  artifactFiles,
  decodeArtifact,
  decodeShippedArtifact,
  type DecodedArtifact,
  type ScorerArtifact,
} from "../../src/scorer/artifact.js";
import { CATALOG_FILE, MANIFEST_FILE, WEIGHTS_FILE } from "../../src/scorer/serialize.js";

/**
 * Writes a scorer artifact (manifest.json, weights.bin, catalog.json) into `dir`, creating it.
 * Each file is written to a temporary name and renamed, so a crash never leaves a half-written file
 * under the final name. Returns the absolute directory.
 *
 * @example
 * await saveScorer("./my-scorer", artifact);
 * const scorer = await loadScorer("./my-scorer");
 */
export async function saveScorer(dir: string, artifact: ScorerArtifact): Promise<string> {
  const abs = resolve(dir);
  await mkdir(abs, { recursive: true });
  const files = artifactFiles(artifact);
  // All three are written under unique temporary names first (a failed write leaves the previous artifact, or
  // nothing, in place), then renamed without an await in between, so two saves of this process never mix their
  // files. Manifest last: it names the checksums of the other two.
  const staged: { tmp: string; final: string }[] = [];
  try {
    for (const name of [WEIGHTS_FILE, CATALOG_FILE, MANIFEST_FILE] as const) {
      const tmp = join(abs, `.${name}.tmp-${process.pid}-${randomUUID()}`);
      staged.push({ tmp, final: join(abs, name) });
      await writeFile(tmp, files[name]);
    }
    for (const { tmp, final } of staged) renameSync(tmp, final);
  } catch (error) {
    await Promise.all(staged.map(({ tmp }) => rm(tmp, { force: true })));
    throw error;
  }
  return abs;
}

async function readOne(dir: string, name: string): Promise<Uint8Array> {
  const path = join(dir, name);
  try {
    return new Uint8Array(await readFile(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ArtifactError(
      "ARTIFACT_FORMAT",
      code === "ENOENT"
        ? `${path} is missing: ${dir} is not a complete irt-router scorer artifact (needs ${MANIFEST_FILE}, ${WEIGHTS_FILE}, ${CATALOG_FILE}).`
        : `${path} could not be read (${(error as Error).message}).`,
      { file: path, cause: error },
    );
  }
}

/** Reads and verifies the files of an artifact directory (checksums, lengths, format version, shapes). */
export async function readArtifact(dir: string): Promise<DecodedArtifact> {
  return readArtifactFiles(dir, decodeArtifact);
}

/**
 * {@link readArtifact} of an artifact shipped inside the package: every check but the files' sha256, which the test
 * suite checks instead (see `decodeShippedArtifact`).
 */
export async function readShippedArtifact(dir: string): Promise<DecodedArtifact> {
  return readArtifactFiles(dir, decodeShippedArtifact);
}

async function readArtifactFiles(dir: string, decode: typeof decodeShippedArtifact): Promise<DecodedArtifact> {
  const abs = resolve(dir);
  const [manifest, weights, catalog] = await Promise.all([
    readOne(abs, MANIFEST_FILE),
    readOne(abs, WEIGHTS_FILE),
    readOne(abs, CATALOG_FILE),
  ]);
  return decode({ manifest, weights, catalog }, (f) => join(abs, f));
}

/** Removes an artifact's three files (not the directory). */
export async function removeArtifact(dir: string): Promise<void> {
  await Promise.all([MANIFEST_FILE, WEIGHTS_FILE, CATALOG_FILE].map((f) => rm(join(resolve(dir), f), { force: true })));
}
