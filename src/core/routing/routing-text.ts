import type { RouteMessage } from "../contracts/route-message.js";
import type { RoutingTextOptions } from "../contracts/options.js";

export const DEFAULT_CONTEXT_CHARS = 1000;
export const DEFAULT_MAX_QUERY_CHARS = 4000;

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
 * routingText([
 *   { role: "system", text: "be brief" },
 *   { role: "user", text: "What is 2+2?" },
 * ]); // "What is 2+2?"
 * ```
 */
export function routingText(messages: readonly RouteMessage[], options: RoutingTextOptions = {}): string {
  const contextChars = options.contextChars ?? DEFAULT_CONTEXT_CHARS;
  const maxQueryChars = options.maxQueryChars ?? DEFAULT_MAX_QUERY_CHARS;
  let queryIndex = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === "user" && messages[i]!.text.trim() !== "") {
      queryIndex = i;
      break;
    }
  }
  if (queryIndex < 0) {
    for (let i = messages.length - 1; i >= 0; i--) {
      if (messages[i]!.role !== "system" && messages[i]!.text.trim() !== "") {
        queryIndex = i;
        break;
      }
    }
  }
  if (queryIndex < 0) return "";
  const query = messages[queryIndex]!.text.slice(0, maxQueryChars);
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
    if (message.role === "system") continue;
    const text = message.text.trim();
    if (text === "") continue;
    const kept = text.length <= budget ? text : text.slice(text.length - budget);
    picked.push({ index: i, text: kept });
    budget -= kept.length;
  }
  if (picked.length === 0) return query;
  picked.sort((a, b) => a.index - b.index);
  return `${query}\n\n${picked.map((p) => p.text).join("\n")}`;
}
