export { saveScorer, readArtifact, removeArtifact } from "./files.js";
export { loadScorer, loadPretrained, pretrainedDir, STATIC_PRETRAINED_SUBDIR, type LoadScorerOptions, type LoadPretrainedOptions } from "./load.js";
