import { describe, expect, it } from "vitest";
import { extractChoiceLetter, gradeMultipleChoice } from "../../src/learning/index.js";

describe("extractChoiceLetter", () => {
  const cases: [string, string | null][] = [
    ["Let's think step by step. Option A is wrong because ... so the answer is (C).", "C"],
    ["The answer is B", "B"],
    ["Answer: D", "D"],
    ["Final answer: **J**", "J"],
    ["A is tempting, and (B) is plausible, but the answer is (E).", "E"],
    ["I think the correct choice is clear.\n\nAnswer: (h)", "H"],
    ["answer: c", "C"],
    ["Reasoning...\n\n**F**", "F"],
    ["Reasoning...\nG.\n", "G"],
    ["So we get \\boxed{I}.", "I"],
    ["Among the options, option G matches the definition.", "G"],
    ["I am not sure about this one.", null],
    ["A company should always disclose this.", null],
    ["The answer is a bit tricky without more context.", null],
    ["", null],
    ["The answer is (K).", null], // outside A-J for a 10-option question
  ];
  for (const [reply, want] of cases) {
    it(`${JSON.stringify(reply.slice(0, 50))} -> ${want}`, () => {
      expect(extractChoiceLetter(reply)).toBe(want);
    });
  }

  it("the last conclusion wins over an earlier one", () => {
    expect(extractChoiceLetter("At first the answer is A. Wait, recheck: the answer is (D).")).toBe("D");
  });
});

describe("gradeMultipleChoice", () => {
  it("scores 1 for the key, 0 otherwise and for no answer", () => {
    expect(gradeMultipleChoice("the answer is (c)", "C")).toBe(1);
    expect(gradeMultipleChoice("the answer is (B)", "C")).toBe(0);
    expect(gradeMultipleChoice("no idea", "C")).toBe(0);
  });
});
