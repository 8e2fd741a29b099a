import { DatasetFormatError } from "../errors.js";
import { parsePythonStringList, type LiteralSource } from "./python-literal.js";

/**
 * Version of the text-building rules below. It is part of every dataset's `source.sha256`, so changing
 * a rule (and bumping this) invalidates cached embeddings built from the old texts.
 */
export const TEXT_RULES_VERSION = 1;

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/**
 * Characters Python's `str.strip()` removes (`str.isspace()`): unlike JavaScript's `trim()` this includes
 * U+0085 (NEL) and U+001C..U+001F and excludes U+FEFF. The rules use it so that texts match the ones the
 * reference embedding job built in Python (one MMLU-Pro question ends in U+0085).
 */
const PY_SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, "g");

/**
 * Python-compatible `str.strip()`.
 *
 * @example
 * ```ts
 * pyStrip("  question\u0085"); // "question"
 * ```
 */
export function pyStrip(text: string): string {
  return text.replace(PY_STRIP, "");
}

/**
 * Normalise line endings to `\n` (`\r\n` and a lone `\r` both become `\n`), as Python's universal-newline
 * reading does. Applied to every text of the four built-in datasets before any other rule.
 *
 * @example
 * ```ts
 * normalizeNewlines("a\r\nb\rc"); // "a\nb\nc"
 * ```
 */
export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/**
 * MMLU-Pro embedding text: the question (trimmed), then one line per option, `A. <option>`, `B. <option>`, ...
 *
 * @param question - the `question` column.
 * @param optionsJson - the `options` column: a JSON list of option strings.
 * @example
 * ```ts
 * mmluProText(" What is 2+2? ", '["3", "4"]'); // "What is 2+2?\nA. 3\nB. 4"
 * ```
 */
export function mmluProText(question: string, optionsJson: string, source: LiteralSource = {}): string {
  let options: unknown;
  try {
    options = JSON.parse(normalizeNewlines(optionsJson));
  } catch (error) {
    throw new DatasetFormatError(`${where(source)}the options column is not valid JSON: ${(error as Error).message}.`, {
      file: source.file,
      line: source.line,
      cause: error,
    });
  }
  if (!Array.isArray(options) || options.some((o) => typeof o !== "string") || options.length > LETTERS.length) {
    throw new DatasetFormatError(`${where(source)}the options column must be a JSON list of at most 26 strings.`, {
      file: source.file,
      line: source.line,
    });
  }
  const lines = [
    pyStrip(normalizeNewlines(question)),
    ...(options as string[]).map((opt, k) => `${LETTERS[k]}. ${opt}`),
  ];
  return lines.join("\n");
}

/**
 * RouterBench embedding text: the real question without the few-shot prefix and the answer instruction.
 *
 * The prompt column is a Python list literal holding one string. Rule: parse the literal (full Python
 * escape handling), join its strings, split on blank lines, keep the LAST non-empty block, drop its lines
 * that start with "Print only a single choice" and lines equal to "Answer:" (after trimming the line), then
 * trim. ARC-Challenge and Winogrande prompts carry a byte-identical few-shot prefix that this removes;
 * MBPP prompts are a single block.
 *
 * @example
 * ```ts
 * routerBenchText(String.raw`['Q1?\nA) x\nAnswer:\nA\n\nQ2?\nA) y\nPrint only a single choice from "A".\nAnswer:']`);
 * // "Q2?\nA) y"
 * ```
 */
export function routerBenchText(promptLiteral: string, source: LiteralSource = {}): string {
  const prompt = parsePythonStringList(normalizeNewlines(promptLiteral), source).join("");
  const blocks = prompt.split(/\n[ \t]*\n/).filter((block) => pyStrip(block) !== "");
  const last = blocks[blocks.length - 1] ?? "";
  const kept = last
    .split("\n")
    .filter((line) => !line.startsWith("Print only a single choice") && pyStrip(line) !== "Answer:")
    .join("\n");
  return pyStrip(kept);
}

function where(source: LiteralSource): string {
  return source.file ? `${source.file}${source.line !== undefined ? ` line ${source.line}` : ""}: ` : "";
}
