/**
 * Grading free-text answers to multiple-choice probes: pull the chosen option letter out of a
 * model's reply. Rules, strongest first (the LAST match of the strongest rule wins, because chain of
 * thought often mentions other options before concluding):
 *
 * 1. "answer is (C)", "answer is C", "Answer: C", "final answer: **C**", "answer would be C";
 * 2. `\boxed{C}`;
 * 3. a line that is only the letter: "C", "(C)", "C.", "C)", "**C**";
 * 4. "option C" / "choice (C)" / a parenthesised "(C)".
 *
 * A bare capital letter inside prose ("I think", "A company") is never taken as an answer.
 * When nothing matches, the reply counts as unanswered (the grader scores it 0, like MMLU-Pro's
 * strict rule).
 */

const ALL_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

function lastMatch(text: string, re: RegExp): string | null {
  let found: string | null = null;
  for (const m of text.matchAll(re)) {
    const g = m.slice(1).find((x) => x !== undefined);
    if (g) found = g.toUpperCase();
  }
  return found;
}

/**
 * The option letter a reply chose, or null.
 *
 * @param nOptions how many options the question has (letters A.. beyond it are ignored; default 10, A-J)
 * @example
 * ```ts
 * extractChoiceLetter("Let's think... so the answer is (B)."); // "B"
 * extractChoiceLetter("I am not sure."); // null
 * ```
 */
export function extractChoiceLetter(reply: string, nOptions = 10): string | null {
  if (typeof reply !== "string" || reply.length === 0) return null;
  const n = Math.max(1, Math.min(26, Math.floor(nOptions)));
  const L = `[${ALL_LETTERS.slice(0, n)}${ALL_LETTERS.slice(0, n).toLowerCase()}]`;
  const U = `[${ALL_LETTERS.slice(0, n)}]`;
  const lower = `[${ALL_LETTERS.slice(0, n).toLowerCase()}]`;
  const text = reply.replace(/\r/g, "");
  const rules: RegExp[] = [
    new RegExp(
      `(?:[Aa]nswer|ANSWER)(?:\\s+(?:is|would be|should be|will be|must be))?\\s*[:=]?\\s*(?:[Oo]ption|[Cc]hoice)?\\s*[*_]*\\s*` +
        `(?:\\((${L})\\)|(${U})(?![A-Za-z])|(${lower})(?=[.)]?[*_]*\\s*$))`,
      "gm",
    ),
    new RegExp(`\\\\boxed\\{\\s*\\(?(${U})\\)?\\s*\\}`, "g"),
    new RegExp(`^\\s*[*_]*\\(?(${U})[).:]?[*_]*\\s*$`, "gm"),
    new RegExp(`(?:[Oo]ption|[Cc]hoice)\\s*\\(?(${U})\\)?(?![A-Za-z])`, "g"),
    new RegExp(`\\((${U})\\)`, "g"),
  ];
  for (const re of rules) {
    const m = lastMatch(text, re);
    if (m && ALL_LETTERS.slice(0, n).includes(m)) return m;
  }
  return null;
}

/** Scores a reply against the key: 1 when the extracted letter equals it, else 0. */
export type Grader = (reply: string, key: string) => number;

/**
 * The default multiple-choice grader.
 *
 * @example
 * ```ts
 * gradeMultipleChoice("Answer: c", "C"); // 1
 * ```
 */
export const gradeMultipleChoice: Grader = (reply, key) => {
  const got = extractChoiceLetter(reply, 26);
  return got !== null && got === key.trim().toUpperCase() ? 1 : 0;
};
