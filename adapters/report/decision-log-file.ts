/** A router's decision log on disk: one JSON line per settled call, the file `irt-router report --decisions` reads. */
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import type { DecisionRecord } from "../../src/core/contracts/route-decision.js";
import { parseWith } from "../../src/util/validate.js";

const pathSchema = z.string().trim().min(1, "give a file path");

/**
 * A `decisionSink` for {@link IrtRouter} that appends each decision to `path` as one JSON line (the folder is made
 * when missing). Each line is written whole, in one synchronous append, so a crash loses no earlier line.
 *
 * @example
 * ```ts
 * import { IrtRouter } from "irt-router/langchain";
 * declare const mistral: import("@langchain/core/language_models/chat_models").BaseChatModel;
 * import { decisionLogFile } from "irt-router/adapters";
 *
 * const router = new IrtRouter({ models: { "mistral-7b-chat": mistral }, decisionSink: decisionLogFile("logs/decisions.jsonl") });
 * // later: npx irt-router report --decisions logs/decisions.jsonl
 * ```
 */
export function decisionLogFile(path: string): (record: DecisionRecord) => void {
  const file = resolve(parseWith(pathSchema, path, "path"));
  mkdirSync(dirname(file), { recursive: true });
  return (record) => appendFileSync(file, `${JSON.stringify(record)}\n`);
}
