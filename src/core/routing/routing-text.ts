import type { BaseMessage } from "@langchain/core/messages";
import type { RoutingTextOptions } from "../contracts/options.js";

export const DEFAULT_CONTEXT_CHARS = 1000;
export const DEFAULT_MAX_QUERY_CHARS = 4000;

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

/**
 * The text the router scores for one call.
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
 * import { routingText } from "irt-router";
 *
 * routingText([new SystemMessage("be brief"), new HumanMessage("What is 2+2?")]); // "What is 2+2?"
 * ```
 */
export function routingText(messages: readonly BaseMessage[], options: RoutingTextOptions = {}): string {
  const contextChars = options.contextChars ?? DEFAULT_CONTEXT_CHARS;
  const maxQueryChars = options.maxQueryChars ?? DEFAULT_MAX_QUERY_CHARS;
  let queryIndex = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.getType() === "human" && messageText(messages[i]!).trim() !== "") {
      queryIndex = i;
      break;
    }
  }
  if (queryIndex < 0) {
    for (let i = messages.length - 1; i >= 0; i--) {
      if (messages[i]!.getType() !== "system" && messageText(messages[i]!).trim() !== "") {
        queryIndex = i;
        break;
      }
    }
  }
  if (queryIndex < 0) return "";
  const query = messageText(messages[queryIndex]!).slice(0, maxQueryChars);
  if (contextChars <= 0) return query;
  // Other turns, nearest the end first: those after the query, then those before it.
  const order: number[] = [];
  for (let i = messages.length - 1; i > queryIndex; i--) order.push(i);
  for (let i = queryIndex - 1; i >= 0; i--) order.push(i);
  const picked: { index: number; text: string }[] = [];
  let budget = contextChars;
  for (const i of order) {
    if (budget <= 0) break;
    const message = messages[i]!;
    if (message.getType() === "system") continue;
    const text = messageText(message).trim();
    if (text === "") continue;
    const kept = text.length <= budget ? text : text.slice(text.length - budget);
    picked.push({ index: i, text: kept });
    budget -= kept.length;
  }
  if (picked.length === 0) return query;
  picked.sort((a, b) => a.index - b.index);
  return `${query}\n\n${picked.map((p) => p.text).join("\n")}`;
}
