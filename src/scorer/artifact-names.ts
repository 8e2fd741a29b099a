/** The scorer artifact's format name and versions, and its three files' names. */
export const ARTIFACT_FORMAT = "irt-router/irt-moe-scorer";
/** The format version this irt-router writes. Version 2 added `manifestSha256` (the manifest's own checksum). */
export const ARTIFACT_FORMAT_VERSION = 2;
/**
 * Versions this irt-router reads. Version 1 is version 2 without `manifestSha256`: its weights and catalog are
 * checked, its manifest cannot be (re-save the artifact to upgrade it).
 */
export const READABLE_FORMAT_VERSIONS: readonly number[] = [1, 2];
/** Version of catalog.json's own layout (unchanged since format version 1). */
export const CATALOG_FORMAT_VERSION = 1;
/** The manifest field holding the manifest's own checksum. */
export const MANIFEST_CHECKSUM_FIELD = "manifestSha256";
export const MANIFEST_FILE = "manifest.json";
export const WEIGHTS_FILE = "weights.bin";
export const CATALOG_FILE = "catalog.json";
