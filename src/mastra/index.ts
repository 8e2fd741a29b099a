/**
 * `irt-router/mastra`: irt-router as a Mastra processor ({@link IrtRouterProcessor}). Needs `@mastra/core` (an
 * optional peer; Node 22).
 */
export {
  IrtRouterProcessor,
  MASTRA_RUN_ID_KEY,
  type IrtRouterProcessorOptions,
  type MastraRoutedModel,
  type MastraStepModel,
} from "./processor.js";
