export type { Scorer, ItemParams, CatalogEntry, ModelScore } from "./types.js";
