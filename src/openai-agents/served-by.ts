/**
 * Which of the router's children served an OpenAI Agents model response, read from what `aisdk()` passes on of the
 * router's `"irt-router"` entries: the output items' `providerData` (a message carries the decision, `chosen`; a tool
 * call the router's part tag, `model`) or, in a streamed response, the AI SDK stream parts `aisdk()` relays as `model`
 * events (the `finish` part carries the decision, the answered parts the tag). A streamed text message does not
 * carry the entry: `aisdk()` builds its `providerData` from the response id only.
 */
import type { StreamEvent } from "@openai/agents";
import { PROVIDER_KEY } from "../ai-sdk/prompt-messages.js";

/** The child named by one `"irt-router"` entry: the decision's `chosen`, else the part tag's `model`. */
function childOf(entry: unknown): string | undefined {
  const { chosen, model } = (entry ?? {}) as { chosen?: unknown; model?: unknown };
  if (typeof chosen === "string") return chosen;
  if (typeof model === "string") return model;
  return undefined;
}

/** The child that served a response, from the router's entries on its output items. */
export function servedByOutput(output: readonly unknown[] | undefined): string | undefined {
  for (const item of output ?? []) {
    const child = childOf(
      (item as { providerData?: Record<string, unknown> } | undefined)?.providerData?.[PROVIDER_KEY],
    );
    if (child !== undefined) return child;
  }
  return undefined;
}

/** The child named by a streamed response's event: a relayed AI SDK part (`model` event) with the router's entry. */
export function servedByStreamEvent(event: StreamEvent): string | undefined {
  if (event.type !== "model") return undefined;
  const part = event.event as { providerMetadata?: Record<string, unknown> } | undefined;
  return childOf(part?.providerMetadata?.[PROVIDER_KEY]);
}
