export { saveScorer, readArtifact, removeArtifact } from "./files.js";
export { loadScorer, loadPretrained, pretrainedDir, type LoadScorerOptions } from "./load.js";
