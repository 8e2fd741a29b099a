/**
 * The router's `cache` on the paths BaseChatModel leaves without one: `stream` (BaseChatModel 1.4 streams uncached)
 * and `generate` of several prompts (BaseChatModel 1.4 files a cached reply at its index among the cache hits, not
 * among all prompts, so a missed prompt before a cached one overwrote it).
 */
import type { BaseChatModel, BaseChatModelCallOptions } from "@langchain/core/language_models/chat_models";
import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type LLMResult } from "@langchain/core/outputs";

/**
 * Call options that LangGraph (1.7) hands every model call of an agent and that differ on every call (checkpoint ids,
 * the run's writer and signal): in the cache key they would make every agent step a miss.
 */
const PER_RUN_OPTIONS = ["executionInfo", "control", "interrupt", "writer", "signal", "store", "context"];

/** The call options without the per-run ones (see {@link PER_RUN_OPTIONS}), for the cache key. */
export function cacheKeyOptions<T extends Record<string, unknown>>(options: T): T {
  const out = { ...options };
  for (const key of PER_RUN_OPTIONS) delete out[key];
  return out;
}

type CacheKeyParts = {
  _separateRunnableConfigFromCallOptionsCompat(options: unknown): [unknown, Record<string, unknown>];
  _getSerializedCacheKeyParametersForCall(options: Record<string, unknown>): string;
};

/** The cache's prompt and model keys for these messages and call options, as BaseChatModel.generate computes them. */
function keys(
  model: BaseChatModel,
  messages: BaseMessage[],
  options: Partial<BaseChatModelCallOptions>,
): [string, string] {
  const parts = model as unknown as CacheKeyParts;
  const [, callOptions] = parts._separateRunnableConfigFromCallOptionsCompat(options);
  const prompt = (
    model.constructor as unknown as { _convertInputToPromptValue(m: BaseMessage[]): { toString(): string } }
  )
    ._convertInputToPromptValue(messages)
    .toString();
  return [prompt, parts._getSerializedCacheKeyParametersForCall(callOptions)];
}

/** True when the model's cache holds a reply for this call. */
export async function cacheLookup(
  model: BaseChatModel,
  messages: BaseMessage[],
  options: Partial<BaseChatModelCallOptions>,
): Promise<boolean> {
  if (!model.cache) return false;
  const [prompt, llmKey] = keys(model, messages, options);
  const hit = await model.cache.lookup(prompt, llmKey);
  return hit !== null && hit !== undefined && hit.length > 0;
}

/** Stores a streamed reply (the chunks concatenated) as `generate` would store it. */
export async function cacheStore(
  model: BaseChatModel,
  messages: BaseMessage[],
  options: Partial<BaseChatModelCallOptions>,
  reply: AIMessageChunk | undefined,
): Promise<void> {
  if (!model.cache || !reply) return;
  const [prompt, llmKey] = keys(model, messages, options);
  await model.cache.update(prompt, llmKey, [new ChatGenerationChunk({ message: reply, text: reply.text })]);
}

/** A reply as one stream chunk (a cached reply on the stream path). */
export function asChunk(message: BaseMessage): AIMessageChunk {
  if (AIMessageChunk.isInstance(message)) return message;
  const m = message as BaseMessage & { tool_calls?: unknown; usage_metadata?: unknown };
  return new AIMessageChunk({
    content: message.content,
    id: message.id,
    name: message.name,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
    tool_calls: m.tool_calls as never,
    usage_metadata: m.usage_metadata as never,
  });
}

/** The results of one-prompt `generate` calls as the result of one call over all their prompts, in order. */
export function mergeResults(results: readonly LLMResult[]): LLMResult {
  return { generations: results.flatMap((r) => r.generations), llmOutput: results[0]?.llmOutput ?? {} };
}
