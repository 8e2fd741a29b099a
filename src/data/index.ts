export type { CorrectnessDataset, DatasetItem, ModelPrice, Split } from "./types.js";
export { splitOf, splitIndices } from "./split.js";
