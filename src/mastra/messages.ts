/**
 * AI SDK model messages (what Mastra's message list gives as `get.all.aiV5.model()`, and the shape of a
 * LanguageModelV3/V4 prompt) as the routing core's {@link RouteMessage}s: role, text, tool calls and tool errors.
 */
import type { RouteMessage, RouteToolCall } from "../core/contracts/route-message.js";

/** One part of an AI SDK message's content, as far as routing reads it. */
interface ContentPart {
  readonly type: string;
  readonly text?: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly input?: unknown;
  readonly output?: { readonly type?: string; readonly value?: unknown };
}

/** An AI SDK message (ModelMessage, or a LanguageModelV3/V4 prompt message). */
export interface AiSdkMessage {
  readonly role: string;
  readonly content: string | readonly ContentPart[];
}

const ROLES = new Set(["system", "user", "assistant", "tool"]);

function outputText(output: ContentPart["output"]): string {
  const value = output?.value;
  return typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value);
}

/** One message as the core reads it; a tool message may answer several calls, so it gives one per result. */
function convert(message: AiSdkMessage): RouteMessage[] {
  const role = ROLES.has(message.role) ? (message.role as RouteMessage["role"]) : "user";
  if (typeof message.content === "string") return [{ role, text: message.content }];
  const parts = message.content;
  if (role === "tool") {
    return parts
      .filter((p) => p.type === "tool-result")
      .map((p) => ({
        role: "tool",
        text: outputText(p.output),
        ...(p.toolCallId !== undefined ? { toolCallId: p.toolCallId } : {}),
        ...(p.output?.type?.startsWith("error") ? { toolError: true } : {}),
      }));
  }
  const text = parts
    .filter((p) => p.type === "text" && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n");
  const toolCalls: RouteToolCall[] = parts
    .filter((p) => p.type === "tool-call" && typeof p.toolName === "string")
    .map((p) => ({ name: p.toolName!, args: p.input, ...(p.toolCallId !== undefined ? { id: p.toolCallId } : {}) }));
  return [{ role, text, ...(toolCalls.length > 0 ? { toolCalls } : {}) }];
}

/** AI SDK messages as route messages, in order. */
export function routeMessagesOf(messages: readonly AiSdkMessage[]): RouteMessage[] {
  return messages.flatMap(convert);
}
