/**
 * How much of a provider's error text a decision keeps. Provider errors can echo the prompt (a 400 quoting the
 * request, a content-filter message), and `decision.attempts[].error` is logged, returned on every reply and kept in
 * the router's decision log, so it is cut to a bounded length.
 */

/** The longest error text kept on `decision.attempts[].error`, in characters (the cut is marked with its length). */
export const MAX_ERROR_TEXT = 200;

/**
 * `text` cut to {@link MAX_ERROR_TEXT} characters (or `max`), ending in `... [cut N chars]` when it was longer.
 * For example, a 1,013-character "Error (400): xxx..." is kept as its first 200 characters and `... [cut 813 chars]`.
 */
export function capErrorText(text: string, max = MAX_ERROR_TEXT): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}... [cut ${text.length - max} chars]`;
}

/** `Name: first line of message`, for the attempt record. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const status = (error as { status?: unknown }).status;
    return `${error.name}${typeof status === "number" ? ` (${status})` : ""}: ${error.message.split("\n")[0]}`;
  }
  return String(error);
}
