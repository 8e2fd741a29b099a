/**
 * Dataset loaders and the data root, the your-own-data folder format (reading and writing it), and the embedding
 * cache (embedDataset and its files).
 */
export { loadDataset, resolveDataset, BUILTIN_DATASET_NAMES } from "./load-dataset.js";
export type { LoadDatasetOptions, ResolvedDataset } from "./load-dataset.js";
export { dataRootCandidates, packageRoot, DATA_ROOT_ENV } from "./data-root.js";
export type { DataRootCandidate } from "./data-root.js";
export { loadOwnDataFolder, writeOwnDataFolder, isOwnDataFolder } from "./own-data.js";
export type { OwnDataFormat, WriteOwnDataOptions } from "./own-data.js";
export { loadRunTable } from "./run-dataset.js";
export { BUILTIN_DATASETS } from "./builtin.js";
export type { BuiltinDataset, BuiltinLoadOptions, LabelChoice } from "./builtin.js";
export {
  embedDataset,
  peekCachedEmbeddings,
  embeddingCacheDir,
  ensureEmbeddingCacheDir,
  embeddingCacheFile,
  datasetTextHash,
  readEmbeddingCacheFile,
  writeEmbeddingCacheFile,
  CACHE_DIR_ENV,
} from "./embedding-cache.js";
export type {
  EmbedDatasetOptions,
  EmbedProgress,
  EmbedAbort,
  DatasetEmbeddings,
  EmbeddingCacheHeader,
  CacheExpectation,
  CacheReadResult,
} from "./embedding-cache.js";
export { defaultCacheRoot, installedAsDependency } from "./cache-dir.js";
export { getDatasetEmbeddings, predictedDefaultEncoder } from "./dataset-embeddings.js";
export type { GetDatasetEmbeddingsOptions, EmbeddedDataset } from "./dataset-embeddings.js";
