import { z } from "zod";
import { IrtRouterError, UnknownModelError, ValidationError } from "../../errors.js";
import { functionSchema, parseWith } from "../../util/validate.js";
import {
  calibrateModel,
  probeBankSchema,
  type CalibrateArgs,
  type CalibrationResult,
  type Probe,
} from "../../learning/new-model-calibration.js";
import { OnlineLearner } from "../../learning/learner.js";
import { messageText } from "../bridge/route-messages.js";
import type { ChatEngine } from "../bridge/chat-engine.js";

/**
 * Options of `router.calibrate()`: the probe bank, how to pose and grade a probe (`multipleChoiceProbes(scorer)` from
 * `irt-router/adapters` gives all three for MMLU-Pro), and the stopping rule.
 */
export interface RouterCalibrateOptions extends Omit<CalibrateArgs, "learner" | "modelId" | "ask" | "onEvent"> {
  /** The question text of a probe (the bank holds only ids and item parameters, never texts). */
  readonly prompt: (probe: Probe) => string | Promise<string>;
  /** Grades the model's reply in [0, 1], e.g. with `gradeMultipleChoice(reply, key)`. */
  readonly grade: (reply: string, probe: Probe) => number | Promise<number>;
}

/** The parts of the options only this wrapper uses; `calibrateModel` validates the rest (budget, strategy, ...). */
const wrapperOptionsSchema = z
  .object({
    probes: probeBankSchema,
    prompt: functionSchema<RouterCalibrateOptions["prompt"]>("a function (probe) => question text"),
    grade: functionSchema<RouterCalibrateOptions["grade"]>("a function (reply, probe) => grade in [0, 1]"),
  })
  .loose();

/**
 * Calibrates one of the router's models: asks it probe questions chosen by maximum Fisher information under the
 * router's learner, grades the replies, writes each outcome to the router's feedback sink before the learner
 * applies it, and stops at the budget or when the estimate is certain enough. Needs the router's learner to be an
 * `OnlineLearner`: the `learner` option, or (with neither `learner` nor `store`) the router's in-memory learner.
 */
export async function calibrateRoutedModel(
  engine: ChatEngine,
  modelId: string,
  options: RouterCalibrateOptions,
): Promise<CalibrationResult> {
  assertProbeSet(options);
  parseWith(wrapperOptionsSchema, options, "options");
  const slot = engine.slots.find((s) => s.id === modelId);
  if (!slot)
    throw new UnknownModelError(
      modelId,
      engine.slots.map((s) => s.id),
    );
  const learner = await engine.learnerForOutcomes();
  if (!(learner instanceof OnlineLearner)) {
    throw new IrtRouterError(
      "INVALID_CONFIG",
      "router.calibrate() needs the router's `learner` option set to an OnlineLearner (OnlineLearner.forScorer(scorer)).",
      { path: "options.learner" },
    );
  }
  const { catalogIds, starts } = await engine.scoring();
  const id = catalogIds[slot.id] ?? slot.id;
  // Calibration starts from the model's catalog prior (or family and price-tier prior), as routing would add it.
  if (!learner.has(id) && !learner.isRemoved(id)) learner.addModel(id, starts.get(id));
  const { prompt, grade, ...rest } = options;
  return calibrateModel({
    ...rest,
    learner,
    modelId: id,
    ask: async (probe) => grade(messageText(await slot.model.invoke(await prompt(probe))), probe),
    // Stored and applied in turn with feedback() (so the router's snapshots stay exact); the learner then finds the
    // event already applied when calibrateModel observes it. calibrateModel has just checked it (learner.check).
    onEvent: (event) => engine.record([event], { checked: true }),
  });
}

/**
 * The probe set (`probes`, `prompt`, `grade`) is required: the library reads no dataset itself. A missing part is a
 * ValidationError naming it and the ready-made set in the adapters.
 */
function assertProbeSet(options: unknown): void {
  const given = typeof options === "object" && options !== null ? (options as Record<string, unknown>) : {};
  const missing = (["probes", "prompt", "grade"] as const).filter((k) => given[k] === undefined);
  if (missing.length === 0) return;
  throw new ValidationError(
    `router.calibrate() needs a probe set: probes, prompt and grade (missing: ${missing.join(", ")}). For MMLU-Pro from the data root, spread in ` +
      `the ready one: router.calibrate(id, { budget: 40, ...(await multipleChoiceProbes(scorer)) }) with multipleChoiceProbes from ` +
      `"irt-router/adapters". Or give your own: probes from buildProbeBank(scorer, dataset), prompt (probe) => question text, ` +
      `grade (reply, probe) => a number in [0, 1].`,
    { path: `options.${missing[0]}`, details: { missing } },
  );
}
