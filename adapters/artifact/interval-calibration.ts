/**
 * Reading a scorer's accuracy-prediction calibration (`predict-calibration.json` beside its manifest; the shipped
 * scorer's is fitted by `npm run bench:predict`). The rules that apply it are in src/learning/predict-calibration.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ArtifactError } from "../../src/errors.js";
import { predictCalibrationSchema, type PredictCalibration } from "../../src/learning/interval-calibration.js";
import { pretrainedDir } from "./load.js";

/** File name of the calibration inside an artifact directory. */
export const PREDICT_CALIBRATION_FILE = "predict-calibration.json";

/**
 * The accuracy-prediction calibration of the scorer in `dir` (default: the shipped pretrained scorer), or undefined
 * when the directory has none. A file that is not valid JSON or not a calibration is an `ArtifactError` naming it.
 *
 * @example
 * ```ts
 * const calibration = loadPredictCalibration();
 * const [p] = predictAccuracy({ scorer, items, models: ["gpt-4o"], ...(calibration ? { calibration } : {}) });
 * ```
 */
export function loadPredictCalibration(dir: string = pretrainedDir()): PredictCalibration | undefined {
  const file = join(dir, PREDICT_CALIBRATION_FILE);
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ArtifactError("ARTIFACT_FORMAT", `${file} is not valid JSON (${(error as Error).message}).`, {
      cause: error,
    });
  }
  const parsed = predictCalibrationSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ArtifactError(
      "ARTIFACT_FORMAT",
      `${file} is not an accuracy-prediction calibration: ${issue.path.join(".") || "(root)"} ${issue.message}. ` +
        "Regenerate it with npm run bench:predict, or delete it to predict uncalibrated.",
      { path: issue.path.join(".") },
    );
  }
  return parsed.data;
}
