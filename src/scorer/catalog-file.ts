/**
 * `catalog.json` of a scorer artifact: one entry per row of theta (canonical id, aliases, provider, sources,
 * ability, label count, accuracy, price), checked against theta when read.
 */
import { z } from "zod";
import { ArtifactError } from "../errors.js";
import { parseArtifactJson, parseArtifactWith } from "./artifact-json.js";
import { firstRepeat } from "../util/repeats.js";
import { CATALOG_FILE, CATALOG_FORMAT_VERSION, WEIGHTS_FILE } from "./artifact-names.js";
import type { CatalogEntry } from "./types.js";

/** The schema of catalog.json (built on its first parse, z.lazy: shipped catalogs are checked by the test suite). */
export const catalogSchema = z.lazy(() =>
  z.object({
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
  }),
);

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
  const json = parseArtifactJson(text, file);
  return catalogOf(parseArtifactWith(catalogSchema, json, "catalog", file), theta, abilityDim, file);
}

/**
 * {@link parseCatalog} of a catalog shipped inside the package (`pretrained/`), without its schema, which the test
 * suite checks instead (test/scorer/shipped-files.test.ts: the schema's parse returns the file's JSON unchanged); its
 * ids and ability lengths are still checked.
 */
export function parseShippedCatalog(text: string, abilityDim: number, file: string): CatalogEntry[] {
  return catalogOf(parseArtifactJson(text, file) as CatalogJson, undefined, abilityDim, file);
}

type CatalogJson = z.output<typeof catalogSchema>;

function catalogOf(
  parsed: CatalogJson,
  theta: Float32Array | undefined,
  abilityDim: number,
  file: string,
): CatalogEntry[] {
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
  const entries = parsed.models.map((e) => {
    if (e.ability.length !== abilityDim)
      throw new ArtifactError(
        "ARTIFACT_FORMAT",
        `${file}: model "${e.id}" has an ability vector of length ${e.ability.length}, expected ${abilityDim}.`,
        { file },
      );
    return { ...e, ability: Float32Array.from(e.ability) };
  });
  if (theta) checkCatalogAbilities(entries, theta, abilityDim, file);
  return entries;
}

/**
 * Checks each catalog entry's ability vector against its row of theta (the weights file's), bit for bit; an
 * ArtifactError ARTIFACT_FORMAT naming the model otherwise.
 *
 * @example
 * ```ts
 * checkCatalogAbilities(parseCatalog(text, undefined, dim), weights.theta, dim);
 * ```
 */
export function checkCatalogAbilities(
  catalog: readonly CatalogEntry[],
  theta: Float32Array,
  abilityDim: number,
  file = CATALOG_FILE,
): void {
  catalog.forEach((e, m) => {
    for (let k = 0; k < abilityDim; k++) {
      if (e.ability[k] !== theta[m * abilityDim + k])
        throw new ArtifactError(
          "ARTIFACT_FORMAT",
          `${file}: model "${e.id}"'s ability vector differs from row ${m} of theta in ${WEIGHTS_FILE}.`,
          { file },
        );
    }
  });
}
