/**
 * The framework-neutral message the routing core reads: each adapter (LangChain, AI SDK, ...) turns its own messages
 * into these once per call. Only what routing needs is kept: the role, the text, the tool calls and tool errors (for
 * escalation and tool-error feedback) and which model wrote an assistant turn (for the prompt cache).
 */

/** Who wrote a message. */
export type RouteRole = "system" | "user" | "assistant" | "tool";

/** One tool call of an assistant turn. */
export interface RouteToolCall {
  /** The call's id, matched by the tool result's {@link RouteMessage.toolCallId}. */
  readonly id?: string;
  readonly name: string;
  /** The call's arguments (any JSON value). */
  readonly args?: unknown;
}

/**
 * One message of a routed call, as the core sees it.
 *
 * @example
 * ```ts
 * import type { RouteMessage } from "irt-router";
 *
 * const messages: RouteMessage[] = [
 *   { role: "system", text: "You are terse." },
 *   { role: "user", text: "What is the weather in Paris?" },
 *   { role: "assistant", text: "", toolCalls: [{ id: "c1", name: "weather", args: { city: "Paris" } }], model: "gpt-4o" },
 *   { role: "tool", text: "city not found", toolCallId: "c1", toolError: true },
 * ];
 * ```
 */
export interface RouteMessage {
  readonly role: RouteRole;
  /** The text parts of the message, joined by newlines (images, files and other parts carry no routing text). */
  readonly text: string;
  /** An assistant turn's tool calls. */
  readonly toolCalls?: readonly RouteToolCall[];
  /** A tool result: the id of the call it answers. */
  readonly toolCallId?: string;
  /** A tool result that is an error (the tool threw, or its arguments did not parse). */
  readonly toolError?: boolean;
  /** An assistant turn: the registered id of the model that wrote it, when known. */
  readonly model?: string;
  /** An assistant turn: the id of the router decision it answered, when it was routed by this router. */
  readonly decisionId?: string;
}
