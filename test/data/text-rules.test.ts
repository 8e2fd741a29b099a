import { describe, expect, it } from "vitest";
import { DatasetFormatError } from "../../src/errors.js";
import { parsePythonString, parsePythonStringList } from "../../src/data/python-literal.js";
import { mmluProText, normalizeNewlines, pyStrip, routerBenchText } from "../../src/data/text-rules.js";

describe("parsePythonStringList", () => {
  it("unescapes every Python escape", () => {
    const lit = String.raw`['a\nb\tc\\d\'e\"f\x41\u00e9\U0001F600\101\0\a\b\f\v\r', "it's"]`;
    expect(parsePythonStringList(lit)).toEqual(["a\nb\tc\\d'e\"fAé😀A\0\x07\b\f\v\r", "it's"]);
  });

  it("keeps unknown escapes with their backslash, as Python does", () => {
    expect(parsePythonString(String.raw`'\d+\('`)).toBe("\\d+\\(");
  });

  it("handles raw strings, adjacent literals, triple quotes, empty lists and a trailing comma", () => {
    expect(parsePythonStringList(String.raw`[r'\n' 'x', """a"b""",]`)).toEqual(["\\nx", 'a"b']);
    expect(parsePythonStringList("[ ]")).toEqual([]);
  });

  it("rejects malformed literals with a typed error", () => {
    for (const bad of ["'no list'", "['unterminated]", "['a' 'b'", "['a'] tail", String.raw`['\x4']`, "[1]"]) {
      expect(() => parsePythonStringList(bad, { file: "p.csv", line: 7 }), bad).toThrow(DatasetFormatError);
    }
    try {
      parsePythonStringList("['x", { file: "p.csv", line: 7 });
    } catch (error) {
      expect((error as DatasetFormatError).file).toBe("p.csv");
      expect((error as DatasetFormatError).line).toBe(7);
    }
  });
});

describe("text rules", () => {
  it("MMLU-Pro: stripped question then lettered options", () => {
    expect(mmluProText("  What is 2+2?\u0085", '["3", "4", "five, or \\"5\\""]')).toBe(
      'What is 2+2?\nA. 3\nB. 4\nC. five, or "5"',
    );
    expect(() => mmluProText("q", "not json")).toThrow(DatasetFormatError);
    expect(() => mmluProText("q", '{"a":1}')).toThrow(DatasetFormatError);
  });

  it("RouterBench: last blank-line block without the instruction and Answer: lines", () => {
    const prompt = String.raw`['Q1?\nA) x\nPrint only a single choice  from ""A"".\nAnswer:\nA\n\nWho\'s right?\nA) me\nB) you\nPrint only a single choice  from "A" or "B" without explanation.\nAnswer:']`;
    expect(routerBenchText(prompt)).toBe("Who's right?\nA) me\nB) you");
    // Winogrande: instruction and "Answer:" share a line, dropped as a whole.
    const wino = String.raw`['Ex _ .\nA) a\nB) b\nPrint only a single choice  from "A" or "B" without explanation. Answer:\nB\n\nSarah beat Maria so _ won.\nA) Maria\nB) Sarah\nPrint only a single choice  from "A" or "B" without explanation. Answer:']`;
    expect(routerBenchText(wino)).toBe("Sarah beat Maria so _ won.\nA) Maria\nB) Sarah");
    // MBPP: a single block, kept whole; trailing blank blocks ignored.
    expect(routerBenchText(String.raw`['Write a function.\n\n  \n']`)).toBe("Write a function.");
  });

  it("pyStrip follows Python's str.strip and normalizeNewlines follows universal newlines", () => {
    expect(pyStrip("\u0085\x1c a \u3000\t")).toBe("a");
    expect(pyStrip("\ufeffa")).toBe("\ufeffa");
    expect(normalizeNewlines("a\r\nb\rc\n")).toBe("a\nb\nc\n");
  });
});
