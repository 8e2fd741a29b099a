/**
 * AI SDK messages as the core's {@link RouteMessage}s: a model call's prompt (`LanguageModelV3Prompt`) or a step's
 * `ModelMessage`s (the same shapes, where a content may also be a plain string). Each part this router answered
 * carries `providerOptions["irt-router"]` (the model that wrote it and the decision), which the AI SDK copies from
 * the reply's `providerMetadata` into the next step's messages.
 */
import type { JSONObject, LanguageModelV3Content, SharedV3ProviderMetadata } from "@ai-sdk/provider";
import type { RouteMessage, RouteToolCall } from "../core/contracts/route-message.js";

/** The key of the router's entries in `providerOptions` and `providerMetadata`. */
export const PROVIDER_KEY = "irt-router";

/** A message of an AI SDK prompt or step, as far as routing reads it. */
export interface AiMessage {
  readonly role: string;
  readonly content: unknown;
  readonly providerOptions?: Record<string, unknown>;
}

interface Part {
  readonly type?: unknown;
  readonly text?: unknown;
  readonly toolCallId?: unknown;
  readonly toolName?: unknown;
  readonly input?: unknown;
  readonly output?: { readonly type?: unknown; readonly value?: unknown; readonly reason?: unknown };
  readonly providerOptions?: Record<string, unknown>;
}

/** The router's tag of an answered part: the registered model that wrote it and the decision. */
function tagOf(options: Record<string, unknown> | undefined): { model?: string; decisionId?: string } {
  const tag = options?.[PROVIDER_KEY] as { model?: unknown; decisionId?: unknown } | undefined;
  return {
    ...(typeof tag?.model === "string" ? { model: tag.model } : {}),
    ...(typeof tag?.decisionId === "string" ? { decisionId: tag.decisionId } : {}),
  };
}

const partsOf = (content: unknown): Part[] =>
  typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? (content as Part[]) : [];

const textOf = (parts: readonly Part[]): string =>
  parts
    .filter((p) => p.type === "text" && typeof p.text === "string")
    .map((p) => p.text as string)
    .join("\n");

/** A tool result's text, and whether it is an error (`error-text`, `error-json`, a denied execution). */
function toolOutput(output: Part["output"]): { text: string; error: boolean } {
  const type = typeof output?.type === "string" ? output.type : "";
  const value = output?.value;
  const text =
    typeof value === "string"
      ? value
      : type === "content" && Array.isArray(value)
        ? textOf(value as Part[])
        : type === "execution-denied"
          ? String(output?.reason ?? "execution denied")
          : value === undefined
            ? ""
            : JSON.stringify(value);
  return { text, error: type.startsWith("error") || type === "execution-denied" };
}

/** An AI SDK prompt (or a step's messages) as {@link RouteMessage}s: one per message, one per tool result. */
export function toRouteMessages(messages: readonly AiMessage[]): RouteMessage[] {
  const out: RouteMessage[] = [];
  for (const message of messages) {
    const parts = partsOf(message.content);
    if (message.role === "system") {
      out.push({ role: "system", text: typeof message.content === "string" ? message.content : textOf(parts) });
    } else if (message.role === "user") {
      out.push({ role: "user", text: textOf(parts) });
    } else if (message.role === "assistant") {
      const toolCalls: RouteToolCall[] = parts
        .filter((p) => p.type === "tool-call")
        .map((p) => ({ id: String(p.toolCallId), name: String(p.toolName), args: p.input }));
      const tagged = [message.providerOptions, ...parts.map((p) => p.providerOptions)].map(tagOf);
      const tag = tagged.find((t) => t.decisionId !== undefined || t.model !== undefined) ?? {};
      out.push({ role: "assistant", text: textOf(parts), ...(toolCalls.length > 0 ? { toolCalls } : {}), ...tag });
    } else if (message.role === "tool") {
      for (const part of parts.filter((p) => p.type === "tool-result")) {
        const { text, error } = toolOutput(part.output);
        out.push({ role: "tool", text, toolCallId: String(part.toolCallId), ...(error ? { toolError: true } : {}) });
      }
    }
  }
  return out;
}

/** The router's tag for the parts of a reply: which registered model wrote it, under which decision. */
export function partTag(model: string, decisionId: string): JSONObject {
  return { model, decisionId };
}

/** A reply part with the router's tag added to its `providerMetadata` (text, reasoning and tool-call parts). */
export function tagged<P extends { type: string; providerMetadata?: SharedV3ProviderMetadata }>(
  part: P,
  tag: JSONObject,
): P {
  if (!TAGGED_PARTS.has(part.type)) return part;
  return { ...part, providerMetadata: { ...part.providerMetadata, [PROVIDER_KEY]: tag } };
}

const TAGGED_PARTS = new Set<string>([
  "text",
  "reasoning",
  "tool-call",
  "text-start",
  "text-end",
  "reasoning-start",
  "reasoning-end",
] satisfies (LanguageModelV3Content["type"] | string)[]);
