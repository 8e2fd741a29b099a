/**
 * Scorer artifacts on disk: saving, reading and removing them (files), loading a scorer or the shipped
 * pretrained one (load), and the training pipeline that produces them (train-pipeline).
 */
export { saveScorer, readArtifact, removeArtifact } from "./files.js";
export {
  loadScorer,
  loadPretrained,
  pretrainedDir,
  STATIC_PRETRAINED_SUBDIR,
  type LoadScorerOptions,
  type LoadPretrainedOptions,
} from "./load.js";
export { loadPredictCalibration, PREDICT_CALIBRATION_FILE } from "./interval-calibration.js";
export { saveRunPrior, loadRunPrior, RUN_PRIOR_FILE } from "./run-prior-file.js";
