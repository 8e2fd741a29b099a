/**
 * The Vercel AI SDK face, `irt-router/ai-sdk` (ai 6, `LanguageModelV3`; ai 7, `LanguageModelV4`): a router model for any AI SDK call
 * (`createIrtRouterModel`), per-step routing of a tool loop (`irtPrepareStep`) and feedback from a finished run
 * (`irtFeedback`, `irtOnFinish`), over the framework-neutral core (`irt-router`). Loads no `ai` or `@ai-sdk/*`
 * module at run time (their types only).
 */
export { IrtRouterModel, type IrtRouterModelOptions, type AiSdkModelConfig } from "./router-model.js";
export { RUN_ID_HEADER, type IrtRouterCallOptions } from "./call-options.js";
export {
  createIrtRouterModel,
  IrtRouterModelV4,
  type IrtRouterModelV4Options,
  type AiSdkModelConfigV4,
  type LanguageModelV4Like,
} from "./model-v4.js";
export {
  irtPrepareStep,
  irtFeedback,
  irtOnFinish,
  type IrtPrepareStepOptions,
  type RoutingModel,
  type PrepareStepInput,
} from "./prepare-step.js";
export { routedRunOf, type RoutedResult, type RoutedStep, type StreamedRoutedResult } from "./routed-result.js";
export { toRouteMessages, PROVIDER_KEY, type AiMessage } from "./prompt-messages.js";
export { decisionMetadata, tokenUsage } from "./route-metadata.js";
