/**
 * Everything that touches the outside world: embedding providers, dataset loaders,
 * artifact files and stores. The library in `src/` stays free of network and disk I/O.
 */
export { getTf, TF_PACKAGES } from "./tf.js";
export type { TfPackage } from "./tf.js";
export * from "./data/index.js";
export { HuggingFaceEncoder, parseRetryAfter } from "./encoders/huggingface.js";
export type {
  HuggingFaceEncoderOptions,
  HuggingFaceEncoderProbeOptions,
  HuggingFaceRetryInfo,
} from "./encoders/huggingface.js";
export { LangChainEncoder, defaultLangChainEncoderId } from "./encoders/langchain.js";
export type { LangChainEncoderOptions, LangChainEncoderCreateOptions } from "./encoders/langchain.js";
export { UseLiteEncoder, USE_LITE_PACKAGE, USE_LITE_DIM, USE_LITE_MAX_TOKENS } from "./encoders/use-lite.js";
export type { UseLiteOptions, EmbedDetail, DetailedEmbeddings, TruncationInfo } from "./encoders/use-lite.js";
export {
  StaticEncoder,
  STATIC_FORMAT,
  STATIC_NOTICE,
  defaultStaticDir,
  defaultStaticInfo,
  isStaticId,
  staticEncoderId,
} from "./encoders/static.js";
export type { StaticEncoderOptions, StaticManifest } from "./encoders/static.js";
export { ENCODER_NAMES, encoderByName } from "./encoders/choice.js";
export type { EncoderName } from "./encoders/choice.js";
export { graphModelFileHandler, loadGraphModelFromFiles } from "./encoders/graph-model-files.js";
export * from "./stores/index.js";
export * from "./artifact/index.js";
export { readRouterBenchPrompts } from "./policy/full-prompts.js";
export { buildProbeBank, sampleItems } from "./learning/probe-bank.js";
export type { ProbeBankOptions } from "./learning/probe-bank.js";
export {
  multipleChoiceProbes,
  multipleChoicePrompt,
  answerKeys,
  MULTIPLE_CHOICE_INSTRUCTION,
  DEFAULT_PROBE_DATASET,
} from "./learning/multiple-choice.js";
export type { MultipleChoiceProbes, MultipleChoiceProbesOptions } from "./learning/multiple-choice.js";
export { decisionLogFile } from "./report/decision-log-file.js";
/** Raised by `irt-router report` (and anything else needing an optional peer dependency) when it is not installed. */
export { MissingDependencyError } from "../src/errors.js";
