/** A run task as the run-level router keys it: its id, text and hint, and the key its outcomes are kept under. */
import { parseWith } from "../util/validate.js";
import { runTaskSchema, type RunTask } from "./options.js";
import { MAX_SHARED_KEY } from "./run-outcome-log.js";
import { fingerprint } from "./text-prior.js";

/** A task given to the router, checked: its id (the text when it has none), text and hint. */
export function taskOf(task: RunTask | string): { id: string; text: string; hint?: string } {
  const t = parseWith(runTaskSchema, task, "task");
  if (typeof t === "string") return { id: t, text: t };
  return { id: t.id ?? t.text, text: t.text, ...(t.hint !== undefined && { hint: t.hint }) };
}

/**
 * The key a task's outcomes are kept (and shared) under: its id; for a task without an id of its own (the id is its
 * text), an id longer than 1000 characters, or "__proto__", `#` and the id's fingerprint (length
 * and two 32-bit hashes), so that neither the router's memory nor a shared log holds the text.
 */
export function taskKey(t: { readonly id: string; readonly text: string }): string {
  const long = t.id === t.text || t.id.length > MAX_SHARED_KEY || t.id === "__proto__";
  return long ? `#${fingerprint(t.id)}` : t.id;
}
