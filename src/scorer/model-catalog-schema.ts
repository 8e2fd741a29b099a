/** The schema of the model catalog's data (src/scorer/model-catalog-data.ts, built by scripts/build-model-catalog.ts). */
import { z } from "zod";

const priceSchema = z.object({
  inputPer1M: z.number().nonnegative(),
  cachedInputPer1M: z.number().nonnegative().optional(),
  outputPer1M: z.number().nonnegative(),
  status: z.enum(["list", "approx"]),
});

const priorSchema = z.object({
  method: z.enum(["published", "terminal-bench", "family-tier"]),
  mmluEquivalent: z.number().gt(0).lt(100),
  logitSd: z.number().positive(),
  source: z.string().min(1),
});

const modelSchema = z.object({
  id: z.string().min(1),
  provider: z.string().min(1),
  family: z.string().min(1),
  aliases: z.array(z.string().min(1)),
  price: priceSchema,
  retired: z.boolean().optional(),
  prior: priorSchema,
});

const scaleSchema = z.object({
  encoderId: z.string().min(1),
  nModels: z.number().int().positive(),
  meanTheta: z.array(z.number()),
  direction: z.array(z.number()),
  meanStrength: z.number(),
  intercept: z.number(),
  slope: z.number().positive(),
  anchorSd: z.number().nonnegative(),
  datasetOffsets: z.record(z.string(), z.number()),
  placementDataset: z.string().min(1),
  placementOffset: z.number(),
  anchors: z.array(z.object({ row: z.string(), mmlu: z.number(), strength: z.number(), residual: z.number() })),
});

/** Schema of the generated catalog data (checked when the catalog is first used). */
export const modelCatalogDataSchema = z.object({
  formatVersion: z.literal(1),
  generatedBy: z.string(),
  blendedPrice: z.string(),
  rule: z.object({
    intercept: z.number(),
    slopePerLog10Price: z.number(),
    slopePerYear: z.number(),
    unknownReleased: z.string(),
    unknownYears: z.number(),
    providerOffsets: z.record(z.string(), z.number()),
    familyOffsets: z.record(z.string(), z.number()),
    logitSd: z.number().positive(),
    fittedOn: z.number().int().positive(),
    sdMethod: z.string(),
  }),
  terminalBenchLink: z.object({
    intercept: z.number(),
    slope: z.number(),
    residual: z.number(),
    assumptionSd: z.number().nonnegative(),
    pairs: z.array(z.object({ column: z.string(), predecessor: z.string() })),
  }),
  publishedLogitSd: z.number().positive(),
  scales: z.array(scaleSchema),
  models: z.array(modelSchema),
});

export type ModelCatalogData = z.input<typeof modelCatalogDataSchema>;
export type CatalogModelData = ModelCatalogData["models"][number];
export type CatalogScaleData = ModelCatalogData["scales"][number];
/** The catalog data once checked by {@link parseModelCatalogData}. */
export type ParsedModelCatalogData = z.output<typeof modelCatalogDataSchema>;
