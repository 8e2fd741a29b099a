import { randomUUID } from "node:crypto";
import { renameSync } from "node:fs";
import { mkdir, open, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ArtifactError } from "../../src/errors.js";
import { refusePseudoFilesystem } from "../out-dir.js";
import {
  artifactFiles,
  decodeArtifact,
  decodeShippedArtifact,
  type DecodedArtifact,
  type ScorerArtifact,
} from "../../src/scorer/artifact.js";
import { weightsArena } from "../../src/scorer/dense-kernel.js";
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
  await refusePseudoFilesystem(abs);
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

/** A file's bytes: as read (a view, not a copy), or into the memory `into(size)` gives. */
async function readOne(dir: string, name: string, into?: (size: number) => Uint8Array): Promise<Uint8Array> {
  const path = join(dir, name);
  try {
    if (!into) {
      const read = await readFile(path);
      return new Uint8Array(read.buffer, read.byteOffset, read.byteLength);
    }
    const file = await open(path, "r");
    try {
      const { size } = await file.stat();
      const bytes = into(size);
      let at = 0;
      for (let n = 1; at < size && n > 0; at += n) ({ bytesRead: n } = await file.read(bytes, at, size - at, at));
      // A file cut short while being read keeps what was read; decoding reports it as too short.
      return at === size ? bytes : bytes.subarray(0, at);
    } finally {
      await file.close();
    }
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
  return readArtifactFiles(dir, decodeArtifact, false);
}

/**
 * {@link readArtifact} of an artifact shipped inside the package: every check but the files' sha256, which the test
 * suite checks instead (see `decodeShippedArtifact`). Its weights are read into a WebAssembly arena and used where
 * they lie, so the scorer's dense layers run in the WebAssembly kernel (src/scorer/dense-kernel.ts).
 */
export async function readShippedArtifact(dir: string): Promise<DecodedArtifact> {
  return readArtifactFiles(dir, decodeShippedArtifact, true);
}

async function readArtifactFiles(
  dir: string,
  decode: typeof decodeShippedArtifact,
  shipped: boolean,
): Promise<DecodedArtifact> {
  const abs = resolve(dir);
  const [manifest, weights, catalog] = await Promise.all([
    readOne(abs, MANIFEST_FILE),
    readOne(abs, WEIGHTS_FILE, shipped ? weightsArena : undefined),
    readOne(abs, CATALOG_FILE),
  ]);
  return decode({ manifest, weights, catalog }, (f) => join(abs, f));
}

/** Removes an artifact's three files (not the directory). */
export async function removeArtifact(dir: string): Promise<void> {
  await Promise.all([MANIFEST_FILE, WEIGHTS_FILE, CATALOG_FILE].map((f) => rm(join(resolve(dir), f), { force: true })));
}
