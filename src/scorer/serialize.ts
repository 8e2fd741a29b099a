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
import { z } from "zod";
import { ArtifactError } from "../errors.js";
import { firstRepeat } from "../util/repeats.js";
import { parseWith } from "../util/validate.js";
import { irtMoeConfigSchema } from "./config.js";
import type { CatalogEntry } from "./types.js";
import type { DenseWeights, ExpertWeights, IrtMoeWeights } from "./weights.js";

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

const tensorSchema = z.object({
  name: z.string(),
  shape: z.array(z.number().int().nonnegative()),
  offset: z.number().int().nonnegative(),
});
const fileSchema = z.object({
  file: z.string(),
  byteLength: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
const metricsSchema = z.record(z.string(), z.record(z.string(), z.union([z.number(), z.null()])));

/** manifest.json, validated on load. */
export const manifestSchema = z.object({
  format: z.literal(ARTIFACT_FORMAT),
  formatVersion: z.number().int(),
  /** sha256 of the manifest's canonical content without this field ({@link manifestChecksum}); absent in version 1. */
  manifestSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  createdAt: z.string(),
  encoder: z.object({ id: z.string().min(1), dim: z.number().int().positive() }),
  architecture: z.object({
    inDim: z.number().int().positive(),
    experts: z.number().int().positive(),
    hidden: z.number().int().positive(),
    out: z.number().int().positive(),
    abilityDim: z.number().int().positive(),
    nModels: z.number().int().positive(),
  }),
  /** Options added after format version 1 was first written are optional here (absent: their default). */
  hyperparameters: irtMoeConfigSchema.partial({ emaDecay: true, rankWeight: true }),
  temperature: z.number().positive(),
  calibration: z.object({ applied: z.boolean(), fitted: z.number(), eceBefore: z.number(), eceAfter: z.number() }),
  training: z.object({
    datasets: z.array(
      z.object({
        name: z.string(),
        sha256: z.string().optional(),
        labels: z.string().optional(),
        counts: z.object({ train: z.number().int(), val: z.number().int(), test: z.number().int() }),
        models: z.array(z.string()),
      }),
    ),
    splitRule: z.string(),
    /** Whether a model in several datasets shared one ability row (absent in older manifests: true). */
    shareAbilities: z.boolean().optional(),
    seed: z.number().int(),
    bestEpoch: z.number().int(),
    epochs: z.number().int(),
    trainSeconds: z.number(),
  }),
  /** Per dataset, per split ("test", "val"), metric name -> value. */
  metrics: z.record(z.string(), metricsSchema),
  interpretability: z.record(z.string(), z.unknown()).optional(),
  /** Known-model prior fitted on the training labels (src/learning/known-prior.ts); absent in older manifests. */
  knownPrior: z
    .object({
      scale: z.number().positive(),
      shrinkage: z.number().min(0).max(1),
      method: z.string(),
      groups: z.number().int().nonnegative(),
      labels: z.number().int().nonnegative(),
      atBoundary: z.boolean(),
      curve: z.array(z.object({ scale: z.number().positive(), logEvidence: z.number() })),
      unconverged: z.number().int().nonnegative().optional(),
      byDataset: z
        .record(
          z.string(),
          z.object({
            scale: z.number().positive(),
            atBoundary: z.boolean(),
            groups: z.number().int().nonnegative(),
            labels: z.number().int().nonnegative(),
          }),
        )
        .optional(),
    })
    .optional(),
  weights: fileSchema.extend({
    dtype: z.literal("float32"),
    endianness: z.literal("little"),
    tensors: z.array(tensorSchema),
  }),
  catalog: fileSchema,
});
export type ScorerManifest = z.infer<typeof manifestSchema>;
export type TensorEntry = z.infer<typeof tensorSchema>;

/** Names and shapes of every tensor, in file order. */
export function tensorLayout(w: IrtMoeWeights): { name: string; shape: number[]; data: Float32Array }[] {
  const out: { name: string; shape: number[]; data: Float32Array }[] = [];
  const dense = (prefix: string, d: DenseWeights) => {
    out.push(
      { name: `${prefix}.W`, shape: [d.inDim, d.outDim], data: d.W },
      { name: `${prefix}.b`, shape: [d.outDim], data: d.b },
    );
  };
  const expert = (prefix: string, e: ExpertWeights) => {
    dense(`${prefix}.l1`, e.l1);
    dense(`${prefix}.l2`, e.l2);
  };
  w.experts.forEach((e, k) => expert(`experts.${k}`, e));
  expert("shared", w.shared);
  dense("gate", w.gate);
  dense("alpha", w.alpha);
  dense("beta", w.beta);
  out.push({ name: "theta", shape: [w.models.length, w.alpha.outDim], data: w.theta });
  return out;
}

/** sha256 hex of bytes. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Encodes the weights as little-endian float32 with a tensor table. */
export function encodeWeights(w: IrtMoeWeights): { bytes: Uint8Array; tensors: TensorEntry[] } {
  const layout = tensorLayout(w);
  const total = layout.reduce((s, t) => s + t.data.length * 4, 0);
  const bytes = new Uint8Array(total);
  const view = new DataView(bytes.buffer);
  const tensors: TensorEntry[] = [];
  let offset = 0;
  for (const t of layout) {
    tensors.push({ name: t.name, shape: t.shape, offset });
    for (let i = 0; i < t.data.length; i++) view.setFloat32(offset + i * 4, t.data[i]!, true);
    offset += t.data.length * 4;
  }
  return { bytes, tensors };
}

/**
 * Decodes `weights.bin` with the manifest's tensor table and architecture. Throws ArtifactError
 * (ARTIFACT_FORMAT) naming the file and the tensor when a tensor is missing, misshapen, out of bounds
 * or not finite.
 */
export function decodeWeights(
  bytes: Uint8Array,
  manifest: ScorerManifest,
  models: readonly string[],
  file = WEIGHTS_FILE,
): IrtMoeWeights {
  const { inDim, experts, hidden, out, abilityDim, nModels } = manifest.architecture;
  const table = new Map<string, TensorEntry>();
  for (const [k, t] of manifest.weights.tensors.entries()) {
    if (table.has(t.name))
      throw new ArtifactError(
        "ARTIFACT_FORMAT",
        `${file}: tensor "${t.name}" is listed twice in the manifest's tensor table.`,
        { file, path: `manifest.weights.tensors.${k}.name` },
      );
    table.set(t.name, t);
  }
  const used = new Set<string>();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const read = (name: string, shape: number[]): Float32Array => {
    const t = table.get(name);
    if (!t)
      throw new ArtifactError(
        "ARTIFACT_FORMAT",
        `${file}: tensor "${name}" is missing from the manifest's tensor table.`,
        { file },
      );
    used.add(name);
    if (t.shape.length !== shape.length || t.shape.some((s, i) => s !== shape[i]))
      throw new ArtifactError(
        "ARTIFACT_FORMAT",
        `${file}: tensor "${name}" has shape [${t.shape}] but the architecture needs [${shape}].`,
        { file },
      );
    const n = shape.reduce((a, b) => a * b, 1);
    if (t.offset % 4 !== 0 || t.offset + n * 4 > bytes.byteLength)
      throw new ArtifactError(
        "ARTIFACT_FORMAT",
        `${file}: tensor "${name}" (offset ${t.offset}, ${n * 4} bytes) lies outside the file (${bytes.byteLength} bytes).`,
        { file },
      );
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const v = view.getFloat32(t.offset + i * 4, true);
      if (!Number.isFinite(v))
        throw new ArtifactError(
          "ARTIFACT_FORMAT",
          `${file}: tensor "${name}" holds a non-finite value at index ${i}.`,
          { file },
        );
      a[i] = v;
    }
    return a;
  };
  const dense = (prefix: string, i: number, o: number): DenseWeights => ({
    inDim: i,
    outDim: o,
    W: read(`${prefix}.W`, [i, o]),
    b: read(`${prefix}.b`, [o]),
  });
  const expert = (prefix: string): ExpertWeights => ({
    l1: dense(`${prefix}.l1`, inDim, hidden),
    l2: dense(`${prefix}.l2`, hidden, out),
  });
  if (models.length !== nModels)
    throw new ArtifactError(
      "ARTIFACT_FORMAT",
      `catalog has ${models.length} models but the manifest's architecture says ${nModels}.`,
      { file: CATALOG_FILE },
    );
  const weights: IrtMoeWeights = {
    inDim,
    experts: Array.from({ length: experts }, (_, k) => expert(`experts.${k}`)),
    shared: expert("shared"),
    gate: dense("gate", inDim, experts),
    alpha: dense("alpha", out, abilityDim),
    beta: dense("beta", out, 1),
    models: [...models],
    theta: read("theta", [nModels, abilityDim]),
  };
  const unused = [...table.keys()].filter((name) => !used.has(name));
  if (unused.length > 0)
    throw new ArtifactError(
      "ARTIFACT_FORMAT",
      `${file}: the manifest's tensor table lists ${unused.map((n) => `"${n}"`).join(", ")}, which the architecture (${experts} experts) has no place for; the manifest does not match the weights.`,
      {
        file,
        path: `manifest.weights.tensors.${manifest.weights.tensors.findIndex((t) => t.name === unused[0])}.name`,
        details: { unused },
      },
    );
  return weights;
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
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ArtifactError(
      "ARTIFACT_FORMAT",
      `${file} is not valid JSON (${(error as Error).message}); the artifact is corrupted or truncated.`,
      { file, cause: error },
    );
  }
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
  let manifest: ScorerManifest;
  try {
    manifest = parseWith(manifestSchema, json, "manifest", file);
  } catch (error) {
    throw new ArtifactError("ARTIFACT_FORMAT", `${file}: ${(error as Error).message}`, {
      file,
      path: (error as { path?: string }).path,
      cause: error,
    });
  }
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

const catalogSchema = z.object({
  formatVersion: z.literal(CATALOG_FORMAT_VERSION),
  models: z.array(
    z.object({
      id: z.string().min(1),
      aliases: z.array(z.string()),
      provider: z.string().optional(),
      sources: z.array(z.string()),
      ability: z.array(z.number()),
      nLabels: z.number().int().nonnegative(),
      accuracy: z.number(),
      price: z
        .object({
          inputPer1M: z.number().nonnegative(),
          outputPer1M: z.number().nonnegative(),
          cachedInputPer1M: z.number().nonnegative().optional(),
        })
        .optional(),
    }),
  ),
});

/** catalog.json text of a catalog. */
export function serializeCatalog(catalog: readonly CatalogEntry[]): string {
  return `${JSON.stringify({ formatVersion: CATALOG_FORMAT_VERSION, models: catalog.map((e) => ({ ...e, ability: Array.from(e.ability) })) }, null, 1)}\n`;
}

/** Parses catalog.json and checks each ability vector against theta. */
export function parseCatalog(
  text: string,
  theta: Float32Array | undefined,
  abilityDim: number,
  file = CATALOG_FILE,
): CatalogEntry[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ArtifactError(
      "ARTIFACT_FORMAT",
      `${file} is not valid JSON (${(error as Error).message}); the artifact is corrupted or truncated.`,
      { file, cause: error },
    );
  }
  let parsed;
  try {
    parsed = parseWith(catalogSchema, json, "catalog", file);
  } catch (error) {
    throw new ArtifactError("ARTIFACT_FORMAT", `${file}: ${(error as Error).message}`, {
      file,
      path: (error as { path?: string }).path,
      cause: error,
    });
  }
  const twice = firstRepeat(parsed.models.map((e) => e.id));
  if (twice)
    throw new ArtifactError(
      "ARTIFACT_FORMAT",
      `${file}: model id "${twice.value}" appears twice (models ${twice.first} and ${twice.at}); each row of theta needs its own id.`,
      {
        file,
        path: `catalog.models.${twice.at}.id`,
      },
    );
  return parsed.models.map((e, m) => {
    if (e.ability.length !== abilityDim)
      throw new ArtifactError(
        "ARTIFACT_FORMAT",
        `${file}: model "${e.id}" has an ability vector of length ${e.ability.length}, expected ${abilityDim}.`,
        { file },
      );
    const ability = Float32Array.from(e.ability);
    if (theta) {
      for (let k = 0; k < abilityDim; k++) {
        if (ability[k] !== theta[m * abilityDim + k])
          throw new ArtifactError(
            "ARTIFACT_FORMAT",
            `${file}: model "${e.id}"'s ability vector differs from row ${m} of theta in ${WEIGHTS_FILE}.`,
            { file },
          );
      }
    }
    return { ...e, ability };
  });
}
