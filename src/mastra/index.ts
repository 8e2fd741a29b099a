/**
 * `irt-router/mastra`: irt-router as a Mastra processor ({@link IrtRouterProcessor}). Needs `@mastra/core` (an
 * optional peer; Node 22).
 */
export {
  IrtRouterProcessor,
  type IrtRouterProcessorOptions,
  type MastraRoutedModel,
  type MastraStepModel,
} from "./processor.js";
export { MASTRA_RUN_ID_KEY } from "./run-id.js";
