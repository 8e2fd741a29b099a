/**
 * Whether a Mastra step that reached `processOutputStep` failed: Mastra still runs output processors after the model
 * call was rejected (when no error processor retried it), and records the terminal error as an `error` part on the
 * step's assistant message (`{ type: "error", error: { name, message } }`). That part is the sign read here.
 */
import type { ProcessOutputStepArgs } from "@mastra/core/processors";

interface ErrorPart {
  readonly type: "error";
  readonly error?: { readonly name?: unknown; readonly message?: unknown };
}

function isErrorPart(part: unknown): part is ErrorPart {
  return typeof part === "object" && part !== null && (part as { type?: unknown }).type === "error";
}

/**
 * The error the step ended with (rebuilt from the name and message Mastra recorded), or undefined when the step
 * ended without one: the last response message's last part is the step's last output.
 */
export function stepErrorOf(args: Pick<ProcessOutputStepArgs, "messageList">): Error | undefined {
  const last = args.messageList.get.response.db().at(-1);
  if (last?.role !== "assistant") return undefined;
  const part: unknown = last.content.parts.at(-1);
  if (!isErrorPart(part)) return undefined;
  const message = typeof part.error?.message === "string" ? part.error.message : "the model call failed";
  const error = new Error(message);
  if (typeof part.error?.name === "string") error.name = part.error.name;
  return error;
}
