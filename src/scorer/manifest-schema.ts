/** The schema of a scorer artifact's `manifest.json` (the format is described in serialize.ts). */
import { z } from "zod";
import { ARTIFACT_FORMAT } from "./artifact-names.js";
import { irtMoeConfigSchema } from "./config.js";

const tensorSchema = () =>
  z.object({
    name: z.string(),
    shape: z.array(z.number().int().nonnegative()),
    offset: z.number().int().nonnegative(),
  });
const fileSchema = () =>
  z.object({
    file: z.string(),
    byteLength: z.number().int().nonnegative(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  });
const metricsSchema = () => z.record(z.string(), z.record(z.string(), z.union([z.number(), z.null()])));

/**
 * manifest.json, validated on load; built on its first parse (z.lazy): the shipped artifacts' manifests are checked
 * by the test suite, not at load, so a router's first call never builds it.
 */
export const scorerManifestSchema = z.lazy(() =>
  z.object({
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
    metrics: z.record(z.string(), metricsSchema()),
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
    weights: fileSchema().extend({
      dtype: z.literal("float32"),
      endianness: z.literal("little"),
      tensors: z.array(tensorSchema()),
    }),
    catalog: fileSchema(),
  }),
);
export type ScorerManifest = z.infer<typeof scorerManifestSchema>;
export type TensorEntry = z.infer<ReturnType<typeof tensorSchema>>;
