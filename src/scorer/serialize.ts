/**
 * The scorer artifact format (pure: bytes and JSON in, bytes and JSON out; files live in adapters/artifact).
 *
 * A scorer directory holds three files:
 * - `manifest.json`: format name and version, encoder identity, architecture, hyperparameters, temperature,
 *   training data and split rule, metrics, and a table of the tensors in `weights.bin` plus the sha256 and
 *   byte length of `weights.bin` and `catalog.json`; from format version 2, `manifestSha256`, the sha256 of
 *   its own canonical content (see {@link manifestChecksum}).
 * - `weights.bin`: the tensors back to back, little-endian float32, row-major, each at a byte offset that
 *   is a multiple of 4 (see {@link tensorLayout} for the names and shapes).
 * - `catalog.json`: one entry per model (canonical id, aliases, provider, sources, ability, nLabels,
 *   accuracy, price).
 */
import { createHash } from "node:crypto";
import { ArtifactError } from "../errors.js";
import { parseArtifactJson, parseArtifactWith } from "./artifact-json.js";
import { scorerManifestSchema, type ScorerManifest } from "./manifest-schema.js";

import { ARTIFACT_FORMAT, MANIFEST_CHECKSUM_FIELD, MANIFEST_FILE, READABLE_FORMAT_VERSIONS } from "./artifact-names.js";

export {
  ARTIFACT_FORMAT,
  ARTIFACT_FORMAT_VERSION,
  CATALOG_FILE,
  CATALOG_FORMAT_VERSION,
  MANIFEST_CHECKSUM_FIELD,
  MANIFEST_FILE,
  READABLE_FORMAT_VERSIONS,
  WEIGHTS_FILE,
} from "./artifact-names.js";
export { decodeWeights, encodeWeights, tensorLayout } from "./weights-file.js";
export { checkCatalogAbilities, parseCatalog, parseShippedCatalog, serializeCatalog } from "./catalog-file.js";

export { scorerManifestSchema, type ScorerManifest, type TensorEntry } from "./manifest-schema.js";

/** sha256 hex of bytes. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * The canonical JSON of a parsed JSON value: object keys sorted (by UTF-16 code units) at every level, no
 * whitespace, strings and numbers as `JSON.stringify` writes them. Two texts that parse to the same value have
 * the same canonical JSON, whatever their indentation or key order.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .filter((k) => obj[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The manifest's own checksum: sha256 (hex) of the canonical JSON ({@link canonicalJson}) of the manifest as
 * parsed from its file, without the `manifestSha256` field. Stored in that field (format version 2 on) and
 * verified first on load, so a changed value anywhere in manifest.json (a temperature, a metric, a checksum of
 * the other files, a key name) is reported as corruption; reformatting it (indentation, key order) is not a change.
 *
 * @example
 * ```ts
 * const json = JSON.parse(readFileSync("my-scorer/manifest.json", "utf8"));
 * manifestChecksum(json) === json.manifestSha256; // true for an intact version-2 manifest
 * ```
 */
export function manifestChecksum(manifest: object): string {
  const { [MANIFEST_CHECKSUM_FIELD]: _own, ...rest } = manifest as Record<string, unknown>;
  return sha256Hex(new TextEncoder().encode(canonicalJson(rest)));
}

/**
 * Checks a parsed manifest's own checksum: when `manifestSha256` is present it must match the content; a manifest
 * of a version that requires it (2 on) must have it. Version 1 manifests (written before the field existed) carry
 * none and pass. Throws ArtifactError ARTIFACT_INTEGRITY naming `file`.
 */
function checkManifestChecksum(json: Record<string, unknown>, file: string, stage: "present" | "required"): void {
  const recorded = json[MANIFEST_CHECKSUM_FIELD];
  if (stage === "present") {
    if (recorded === undefined) return;
    const actual = manifestChecksum(json);
    if (recorded !== actual)
      throw new ArtifactError(
        "ARTIFACT_INTEGRITY",
        `${file} is corrupted: the sha256 of its content is ${actual} but its ${MANIFEST_CHECKSUM_FIELD} records ${typeof recorded === "string" ? recorded : JSON.stringify(recorded)}. ` +
          `A value in it was changed since it was written. Restore or re-create the artifact.`,
        { file, path: `manifest.${MANIFEST_CHECKSUM_FIELD}`, details: { sha256: actual, expected: recorded } },
      );
    return;
  }
  if (recorded === undefined && json.formatVersion !== 1)
    throw new ArtifactError(
      "ARTIFACT_INTEGRITY",
      `${file} has no ${MANIFEST_CHECKSUM_FIELD}, which format version ${JSON.stringify(json.formatVersion)} requires: the file is corrupted (a changed key name) or was edited. Restore or re-create the artifact.`,
      { file, path: `manifest.${MANIFEST_CHECKSUM_FIELD}` },
    );
}

/**
 * Parses manifest.json text. Its own checksum is verified first (a mismatch, or a version-2 manifest without one
 * -> ArtifactError ARTIFACT_INTEGRITY); a wrong format name or an unreadable version -> ARTIFACT_FORMAT.
 */
export function parseManifest(text: string, file = MANIFEST_FILE): ScorerManifest {
  return manifestOf(parseArtifactJson(text, file), file, true);
}

/**
 * {@link parseManifest} of a manifest shipped inside the package (`pretrained/`): its own checksum, format name,
 * version and consistency are checked, but not its schema. The checksum binds the content to the one the test suite
 * parses (test/scorer/shipped-files.test.ts: the schema's parse returns the file's JSON unchanged), so the two paths
 * give the same manifest, and a changed or damaged manifest is still ARTIFACT_INTEGRITY, naming the file.
 */
export function parseShippedManifest(text: string, file: string): ScorerManifest {
  return manifestOf(parseArtifactJson(text, file), file, false);
}

function manifestOf(json: unknown, file: string, checked: boolean): ScorerManifest {
  if (json === null || typeof json !== "object" || Array.isArray(json))
    throw new ArtifactError(
      "ARTIFACT_FORMAT",
      `${file} does not hold a JSON object; this is not an irt-router scorer artifact.`,
      { file },
    );
  const head = json as Record<string, unknown>;
  checkManifestChecksum(head, file, "present");
  if (head.format !== ARTIFACT_FORMAT)
    throw new ArtifactError(
      "ARTIFACT_FORMAT",
      `${file}: format is ${JSON.stringify(head.format)}, expected "${ARTIFACT_FORMAT}". This is not an irt-router scorer artifact.`,
      { file },
    );
  if (!READABLE_FORMAT_VERSIONS.includes(head.formatVersion as number))
    throw new ArtifactError(
      "ARTIFACT_FORMAT",
      `${file}: formatVersion ${JSON.stringify(head.formatVersion)} is not supported (this irt-router reads versions ${READABLE_FORMAT_VERSIONS.join(" and ")}). Re-train the scorer or use the irt-router version that wrote it.`,
      { file, details: { formatVersion: head.formatVersion, supported: [...READABLE_FORMAT_VERSIONS] } },
    );
  checkManifestChecksum(head, file, "required");
  const manifest: ScorerManifest = checked
    ? parseArtifactWith(scorerManifestSchema, json, "manifest", file)
    : (json as ScorerManifest);
  const { architecture: arch, hyperparameters: hp } = manifest;
  if (manifest.encoder.dim !== arch.inDim)
    throw new ArtifactError(
      "ARTIFACT_FORMAT",
      `${file}: encoder.dim is ${manifest.encoder.dim} but architecture.inDim is ${arch.inDim}; the manifest is inconsistent.`,
      {
        file,
        path: "manifest.encoder.dim",
      },
    );
  for (const key of ["experts", "hidden", "out", "abilityDim"] as const) {
    if (hp[key] !== arch[key])
      throw new ArtifactError(
        "ARTIFACT_FORMAT",
        `${file}: hyperparameters.${key} is ${hp[key]} but architecture.${key} is ${arch[key]}; the manifest is inconsistent.`,
        { file, path: `manifest.hyperparameters.${key}` },
      );
  }
  return manifest;
}
