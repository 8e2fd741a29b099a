/**
 * LangChain messages as the core's {@link RouteMessage}s, converted once per message object (agents resend the same
 * objects every step), and the routing text of a LangChain conversation.
 */
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { RouteMessage, RouteRole } from "../../core/contracts/route-message.js";
import type { RoutingTextOptions } from "../../core/contracts/options.js";
import { routingText as coreRoutingText } from "../../core/routing/routing-text.js";

/**
 * Text of a message's content: a string content as is, or the `text` parts of a content array
 * joined by newlines. Other parts (images, files, audio) carry no routing text and are skipped
 * here; the chosen model still receives the original messages, parts and all.
 */
export function messageText(message: BaseMessage): string {
  const content = message.content as unknown;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const part of content) {
    if (typeof part === "string") parts.push(part);
    else if (part && typeof part === "object" && (part as { type?: unknown }).type === "text") {
      const text = (part as { text?: unknown }).text;
      if (typeof text === "string") parts.push(text);
    }
  }
  return parts.join("\n");
}

const ROLES: Readonly<Record<string, RouteRole>> = {
  human: "user",
  user: "user",
  ai: "assistant",
  assistant: "assistant",
  system: "system",
  developer: "system",
  tool: "tool",
  function: "tool",
};

/** The role of a LangChain message (a `ChatMessage` by its own `role`; an unknown one counts as a user turn). */
function roleOf(message: BaseMessage): RouteRole {
  const type = message.getType();
  if (type === "generic") return ROLES[String((message as { role?: unknown }).role)] ?? "user";
  return ROLES[type] ?? "user";
}

/** The decision this router attached to an AI message (`response_metadata.irtRouter`), as the core reads it. */
function decisionOf(message: BaseMessage): { model?: string; decisionId?: string } {
  const decision = (message.response_metadata as Record<string, unknown> | undefined)?.irtRouter as
    { chosen?: unknown; decisionId?: unknown } | undefined;
  return {
    ...(typeof decision?.chosen === "string" ? { model: decision.chosen } : {}),
    ...(typeof decision?.decisionId === "string" ? { decisionId: decision.decisionId } : {}),
  };
}

const CONVERTED = new WeakMap<BaseMessage, RouteMessage>();

/** One LangChain message as a {@link RouteMessage} (memoised per message object). */
export function toRouteMessage(message: BaseMessage): RouteMessage {
  const known = CONVERTED.get(message);
  if (known) return known;
  const role = roleOf(message);
  const text = messageText(message);
  let out: RouteMessage = { role, text };
  if (AIMessage.isInstance(message)) {
    const calls = message.tool_calls ?? [];
    out = {
      role: "assistant",
      text,
      ...(calls.length > 0 ? { toolCalls: calls.map((c) => ({ id: c.id, name: c.name, args: c.args })) } : {}),
      ...decisionOf(message),
    };
  } else if (ToolMessage.isInstance(message)) {
    out = {
      role: "tool",
      text,
      toolCallId: message.tool_call_id,
      ...(message.status === "error" ? { toolError: true } : {}),
    };
  }
  CONVERTED.set(message, out);
  return out;
}

/** A LangChain conversation as {@link RouteMessage}s. */
export function toRouteMessages(messages: readonly BaseMessage[]): RouteMessage[] {
  return messages.map(toRouteMessage);
}

/**
 * The text the router scores for one call of a LangChain conversation.
 *
 * Rule: the latest human message (its text parts, cut to `maxQueryChars`), followed by up to
 * `contextChars` characters of the other turns nearest the end of the conversation (assistant turns,
 * tool results, earlier human turns; system messages are never included), taken newest first and
 * printed in chronological order. A turn that does not fit whole is cut, keeping its end.
 * With no human message, the latest message that has text stands in for it.
 *
 * @example
 * ```ts
 * import { HumanMessage, SystemMessage } from "@langchain/core/messages";
 * import { routingText } from "irt-router/langchain";
 *
 * routingText([new SystemMessage("be brief"), new HumanMessage("What is 2+2?")]); // "What is 2+2?"
 * ```
 */
export function routingText(messages: readonly BaseMessage[], options: RoutingTextOptions = {}): string {
  return coreRoutingText(toRouteMessages(messages), options);
}
