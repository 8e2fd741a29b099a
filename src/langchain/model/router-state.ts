/**
 * What a router is made of besides its engine: its own LangChain settings and what `bindTools` /
 * `withStructuredOutput` derived it with, carried from a router to the routers derived from it.
 */
import type { BaseChatModelCallOptions, BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { BaseCache } from "@langchain/core/caches";
import type { IrtRouterOptions, ParsedLangChainOptions } from "../bridge/options.js";
import type { ChatEngine } from "../bridge/chat-engine.js";

export const INTERNAL = Symbol("irt-router.internal");

/** The router's own settings, shared by the routers `bindTools` and `withStructuredOutput` derive from it. */
export interface OwnSettings extends Pick<IrtRouterOptions, "callbacks" | "tags" | "metadata" | "verbose"> {
  cache?: BaseCache | boolean;
}

export interface DerivedState {
  engine: ChatEngine;
  own: OwnSettings;
  bound?: { tools: BindToolsInput[]; kwargs?: Partial<BaseChatModelCallOptions> };
  structured?: [unknown, unknown];
}

/** Why `bindTools` and `withStructuredOutput` do not combine; both say it, as LangChain's own chat models do. */
export const NOT_BOTH =
  "bindTools() and withStructuredOutput() do not combine on a router, as on LangChain's own chat models (a model with " +
  "bound tools has no withStructuredOutput, and a structured-output runnable has no bindTools). Call either one on the " +
  "plain router; for tools and a structured final answer, use createAgent({ tools, responseFormat }).";

/** The router's own settings from its parsed options. */
export function ownSettings(parsed: ParsedLangChainOptions): OwnSettings {
  const { callbacks, tags, metadata, verbose, cache } = parsed;
  return { callbacks, tags, metadata, verbose, cache };
}
