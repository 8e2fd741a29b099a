/**
 * What a shared store keeps of a decision: run ids as pseudonyms under `hashRunIds`, and each failed attempt's provider
 * error text (which can echo the prompt) reduced to a typed code and a short, redacted message.
 */
import type { SharedDecision } from "../../src/core/contracts/router-store.js";

/** The longest redacted error message a store keeps, in characters. */
export const MAX_STORED_ERROR = 120;

const REDACTIONS: [RegExp, string][] = [
  [/"[^"]*"|'[^']*'|`[^`]*`|«[^»]*»|“[^”]*”/g, "[quoted]"],
  [/\b[\w.+-]+@[\w-]+(\.[\w-]+)+\b/g, "[email]"],
  [/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, "[url]"],
  [/\b(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}\b/g, "[token]"],
  [/\{[^{}]*\}|\[[^[\]]*:[^[\]]*\]/g, "[data]"],
];

/**
 * An attempt's error (`Name: message`) as a store keeps it: `Name` as the code (a word, else "Error") and the message
 * with quoted text, e-mail addresses, URLs, long tokens and inline data replaced by markers, cut to
 * {@link MAX_STORED_ERROR} characters.
 *
 * @example
 * ```ts
 * storedErrorText('BadRequestError: 400 prompt "my secret plan" too long'); // 'BadRequestError: 400 prompt [quoted] too long'
 * ```
 */
export function storedErrorText(error: string): string {
  const m = /^([A-Za-z_][A-Za-z0-9_.]{0,60}):\s?/.exec(error);
  const code = m ? m[1]! : "Error";
  let message = (m ? error.slice(m[0].length) : error).split("\n")[0]!;
  for (const [pattern, marker] of REDACTIONS) message = message.replace(pattern, marker);
  if (message.length > MAX_STORED_ERROR) message = `${message.slice(0, MAX_STORED_ERROR)}...`;
  return `${code}: ${message}`;
}

/** The entry as the store writes it: run id pseudonymised (when `hash` is given), error texts redacted. */
export function storedDecision(entry: SharedDecision, hash?: (id: string) => string): SharedDecision {
  const { decision } = entry;
  return {
    ...entry,
    decision: {
      ...decision,
      ...(hash && decision.runId !== undefined ? { runId: hash(decision.runId) } : {}),
      attempts: decision.attempts.map((a) => (a.error === undefined ? a : { ...a, error: storedErrorText(a.error) })),
    },
  };
}
