/**
 * Building and verifying the bytes of a scorer artifact (pure; reading and writing files is in
 * adapters/artifact). See serialize.ts for the layout.
 */
import type { EncoderInfo } from "../encoders/types.js";
import { ArtifactError } from "../errors.js";
import type { CalibrationReport } from "./temperature-scaling.js";
import type { IrtMoeConfig } from "./config.js";
import {
  ARTIFACT_FORMAT,
  ARTIFACT_FORMAT_VERSION,
  CATALOG_FILE,
  decodeWeights,
  encodeWeights,
  MANIFEST_CHECKSUM_FIELD,
  MANIFEST_FILE,
  manifestChecksum,
  checkCatalogAbilities,
  parseCatalog,
  parseManifest,
  parseShippedCatalog,
  parseShippedManifest,
  serializeCatalog,
  sha256Hex,
  WEIGHTS_FILE,
  type ScorerManifest,
} from "./serialize.js";
import type { KnownPriorRecord } from "../learning/known-prior.js";
import type { CatalogEntry } from "./types.js";
import { shapeOf, type IrtMoeWeights } from "./weights.js";

/** Everything that goes into an artifact. */
export interface ScorerArtifact {
  readonly weights: IrtMoeWeights;
  readonly catalog: readonly CatalogEntry[];
  readonly encoder: EncoderInfo;
  readonly config: IrtMoeConfig;
  readonly temperature: number;
  readonly calibration: Pick<CalibrationReport, "applied" | "fitted" | "eceBefore" | "eceAfter">;
  readonly training: ScorerManifest["training"];
  readonly metrics: ScorerManifest["metrics"];
  readonly interpretability?: Record<string, unknown>;
  /** Known-model prior fitted on the training labels (what `OnlineLearner.forScorer` starts catalogued models at). */
  readonly knownPrior?: KnownPriorRecord;
  /** ISO timestamp (default: now). */
  readonly createdAt?: string;
}

/** The three files of an artifact, as bytes. */
export interface ArtifactFiles {
  readonly [MANIFEST_FILE]: Uint8Array;
  readonly [WEIGHTS_FILE]: Uint8Array;
  readonly [CATALOG_FILE]: Uint8Array;
}

/** Serialises an artifact into its files. */
export function artifactFiles(a: ScorerArtifact): ArtifactFiles {
  const { bytes, tensors } = encodeWeights(a.weights);
  const catalogBytes = new TextEncoder().encode(serializeCatalog(a.catalog));
  const body: Omit<ScorerManifest, typeof MANIFEST_CHECKSUM_FIELD> = {
    format: ARTIFACT_FORMAT,
    formatVersion: ARTIFACT_FORMAT_VERSION,
    createdAt: a.createdAt ?? new Date().toISOString(),
    encoder: { id: a.encoder.id, dim: a.encoder.dim },
    architecture: shapeOf(a.weights),
    hyperparameters: a.config,
    temperature: a.temperature,
    calibration: {
      applied: a.calibration.applied,
      fitted: a.calibration.fitted,
      eceBefore: a.calibration.eceBefore,
      eceAfter: a.calibration.eceAfter,
    },
    training: a.training,
    metrics: a.metrics,
    ...(a.interpretability ? { interpretability: a.interpretability } : {}),
    ...(a.knownPrior
      ? {
          knownPrior: {
            ...a.knownPrior,
            curve: a.knownPrior.curve.map((c) => ({ ...c })),
            ...(a.knownPrior.byDataset ? { byDataset: { ...a.knownPrior.byDataset } } : {}),
          },
        }
      : {}),
    weights: {
      file: WEIGHTS_FILE,
      byteLength: bytes.byteLength,
      sha256: sha256Hex(bytes),
      dtype: "float32",
      endianness: "little",
      tensors,
    },
    catalog: { file: CATALOG_FILE, byteLength: catalogBytes.byteLength, sha256: sha256Hex(catalogBytes) },
  };
  // The checksum is taken over the manifest as it will parse back from its file (JSON round trip), and placed
  // right after the format version; the reader verifies it before anything else.
  const { format, formatVersion, ...rest } = body;
  const manifest: ScorerManifest = {
    format,
    formatVersion,
    [MANIFEST_CHECKSUM_FIELD]: manifestChecksum(JSON.parse(JSON.stringify(body)) as object),
    ...rest,
  };
  return {
    [MANIFEST_FILE]: new TextEncoder().encode(`${JSON.stringify(manifest, null, 1)}\n`),
    [WEIGHTS_FILE]: bytes,
    [CATALOG_FILE]: catalogBytes,
  };
}

function checkFile(
  bytes: Uint8Array,
  entry: { byteLength: number; sha256: string },
  file: string,
  checksum: boolean,
): void {
  if (bytes.byteLength !== entry.byteLength)
    throw new ArtifactError(
      "ARTIFACT_INTEGRITY",
      `${file} is ${bytes.byteLength} bytes but ${MANIFEST_FILE} records ${entry.byteLength}: the file is ${bytes.byteLength < entry.byteLength ? "truncated" : "longer than written"}. Restore or re-create the artifact.`,
      { file, details: { byteLength: bytes.byteLength, expected: entry.byteLength } },
    );
  if (!checksum) return;
  const sha = sha256Hex(bytes);
  if (sha !== entry.sha256)
    throw new ArtifactError(
      "ARTIFACT_INTEGRITY",
      `${file} is corrupted: its sha256 is ${sha} but ${MANIFEST_FILE} records ${entry.sha256}. Restore or re-create the artifact.`,
      {
        file,
        details: { sha256: sha, expected: entry.sha256 },
      },
    );
}

/** A verified, decoded artifact. */
export interface DecodedArtifact {
  readonly manifest: ScorerManifest;
  readonly weights: IrtMoeWeights;
  readonly catalog: CatalogEntry[];
}

/**
 * Verifies and decodes the files of an artifact: the manifest's own checksum (format version 2 on), format and
 * version, byte lengths and sha256 of weights.bin and catalog.json, tensor table against the architecture, abilities against theta.
 * `where(file)` names files in error messages (e.g. the full path).
 */
export function decodeArtifact(
  files: { manifest: Uint8Array; weights: Uint8Array; catalog: Uint8Array },
  where: (file: string) => string = (f) => f,
): DecodedArtifact {
  return decodeArtifactFiles(files, where, true);
}

/**
 * {@link decodeArtifact} of an artifact shipped inside the package (`pretrained/`), whose files are as much part of
 * the install as its code: every check but the sha256 of weights.bin (4 MB), the schemas of manifest.json and
 * catalog.json, and the scan of the weights for non-finite values, which the test suite covers by checking the sha256
 * against the manifests and parsing both files instead (test/scorer/shipped-files.test.ts). The manifest's own
 * checksum and the catalog's sha256 are checked (they bind both files to the content the tests parse). A truncated
 * or longer weights.bin still fails on its byte length (ARTIFACT_INTEGRITY), a manifest that is not JSON or of another
 * format on those. The weights are views of `files.weights` (not copied): pass bytes that nothing else holds.
 */
export function decodeShippedArtifact(
  files: { manifest: Uint8Array; weights: Uint8Array; catalog: Uint8Array },
  where: (file: string) => string,
): DecodedArtifact {
  return decodeArtifactFiles(files, where, false);
}

function decodeArtifactFiles(
  files: { manifest: Uint8Array; weights: Uint8Array; catalog: Uint8Array },
  where: (file: string) => string,
  checksums: boolean,
): DecodedArtifact {
  const manifestText = new TextDecoder().decode(files.manifest);
  const manifest = checksums
    ? parseManifest(manifestText, where(MANIFEST_FILE))
    : parseShippedManifest(manifestText, where(MANIFEST_FILE));
  checkFile(files.weights, manifest.weights, where(WEIGHTS_FILE), checksums);
  // the catalog's sha256 is checked on both paths (52 KB): it binds the shipped catalog to the content the test
  // suite parses with its schema, which the shipped path then skips
  checkFile(files.catalog, manifest.catalog, where(CATALOG_FILE), true);
  const dim = manifest.architecture.abilityDim;
  const catalogText = new TextDecoder().decode(files.catalog);
  const catalog = checksums
    ? parseCatalog(catalogText, undefined, dim, where(CATALOG_FILE))
    : parseShippedCatalog(catalogText, dim, where(CATALOG_FILE));
  const weights = decodeWeights(
    files.weights,
    manifest,
    catalog.map((e) => e.id),
    where(WEIGHTS_FILE),
    !checksums,
  );
  checkCatalogAbilities(catalog, weights.theta, dim, where(CATALOG_FILE));
  return { manifest, weights, catalog };
}
