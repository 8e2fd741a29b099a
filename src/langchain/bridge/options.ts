/**
 * The options of the LangChain face ({@link IrtRouter}, {@link irtRouterMiddleware}): the shared routing options, the
 * models as LangChain chat models, and LangChain's own settings (callbacks, tags, metadata, verbose, cache, the
 * children's retries).
 */
import { z } from "zod";
import type { BaseChatModel, BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import type { BaseCache } from "@langchain/core/caches";
import type { ModelPrice } from "../../data/types.js";
import { modelPriceSchema } from "../../policy/price-schema.js";
import { modelIdSchema, routingOptionsShape, type RoutingOptions } from "../../core/contracts/options.js";

/** One model the router may call. */
export interface RoutedModelConfig {
  /** The LangChain chat model (ChatOpenAI, ChatAnthropic, any BaseChatModel). */
  readonly model: BaseChatModel;
  /** List price; default: the scorer catalog's price, else the current-models catalog's, else the RouterBench list price (`listPrice`), else unknown (cost 0, warned once). */
  readonly price?: ModelPrice;
  /** Input context window in tokens; default: the model's `profile.maxInputTokens`, else unlimited. */
  readonly contextWindow?: number;
  /** Output tokens expected per call, for the cost estimate (default: the router's `expectedOutputTokens`). */
  readonly expectedOutputTokens?: number;
}

/** Options of {@link IrtRouter} (and of {@link irtRouterMiddleware}). */
export interface IrtRouterOptions
  extends RoutingOptions, Pick<BaseChatModelParams, "callbacks" | "tags" | "metadata" | "verbose"> {
  /**
   * The models to route between, keyed by scorer catalog id or alias (e.g. `gpt-4-1106-preview`) or a model of the
   * catalog of current models (`gpt-4o`, `claude-sonnet-4-5`; docs/catalog.md), which starts from its prior. Any other
   * key is allowed: it starts from the family and price-tier rule (the population average without a price), reported
   * once through `logger` as an `UnknownModelWarning`. A bare chat model is short for `{ model }`.
   */
  readonly models: Readonly<Record<string, RoutedModelConfig | BaseChatModel>>;
  /**
   * A LangChain cache for the router's replies (as any chat model's `cache`: a `BaseCache`, or `true` for the global
   * in-memory one). Read and written by `invoke`, `stream`, `batch` and `generate`; a cached reply keeps the decision
   * it was routed with.
   */
  readonly cache?: BaseCache | boolean;
  /**
   * Retries a child may make on its own before the router falls back to the next model (default 1; `false` leaves
   * the children as they are). LangChain chat models retry a failed request up to 6 times with exponential backoff
   * (`maxRetries`, about 1.5 minutes against a server answering 500), all before the router sees the error; so the
   * router lowers the `maxRetries` of each child left at LangChain's default of 6 (it sets `model.caller.maxRetries`,
   * on the instance you registered) to this number. A child built with another `maxRetries` is left as it is. With the
   * default a failing provider falls back within seconds (test/langchain/calls/child-retries.test.ts).
   */
  readonly childMaxRetries?: number | false;
}

const isChatModel = (v: unknown): v is BaseChatModel =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as { invoke?: unknown }).invoke === "function" &&
  "_streamResponseChunks" in v;

const chatModel = z.custom<BaseChatModel>(isChatModel, {
  message: "must be a LangChain chat model (an instance of BaseChatModel, e.g. new ChatOpenAI(...))",
});
const modelEntry = z.preprocess(
  (v) => (isChatModel(v) ? { model: v } : v),
  z.strictObject({
    model: chatModel,
    price: modelPriceSchema.optional(),
    contextWindow: z.number().int().positive().optional(),
    expectedOutputTokens: z.number().finite().nonnegative().optional(),
  }),
);

/** Zod schema of {@link IrtRouterOptions}; unknown keys are errors so a typo is never ignored. */
export const irtRouterOptionsSchema = z.strictObject({
  models: z
    .record(modelIdSchema, modelEntry)
    .refine((m) => Object.keys(m).length > 0, { message: "give at least one model: { models: { id: { model } } }" }),
  ...routingOptionsShape,
  callbacks: z.any().optional(),
  tags: z.array(z.string()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  verbose: z.boolean().optional(),
  cache: z
    .union([
      z.boolean(),
      z.custom<BaseCache>(
        (v) => ["lookup", "update"].every((k) => typeof (v as Record<string, unknown> | null)?.[k] === "function"),
        {
          message:
            "must be a LangChain cache (a BaseCache with lookup and update, e.g. new InMemoryCache()) or a boolean",
        },
      ),
    ])
    .optional(),
  childMaxRetries: z.union([z.number().int().min(0).max(100), z.literal(false)]).optional(),
});

export type ParsedLangChainOptions = z.output<typeof irtRouterOptionsSchema>;
