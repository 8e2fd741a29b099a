import { describe, expect, it } from "vitest";
import { SentencePieceTokenizer, WORD_MARKER, type SentencePieceVocabulary } from "../../src/encoders/sentencepiece.js";

const M = WORD_MARKER;
/** Ids 0-5 reserved, as in USE-lite. */
const reserved: SentencePieceVocabulary = [
  ["\ufffd", 0],
  ["<s>", 0],
  ["</s>", 0],
  ["x1", 0],
  ["x2", 0],
  ["x3", 0],
];
const vocab = (...pieces: [string, number | null][]): SentencePieceVocabulary => [...reserved, ...pieces];

describe("SentencePieceTokenizer", () => {
  it("normalises with NFKC, turns spaces into the word marker and prefixes one", () => {
    expect(SentencePieceTokenizer.normalize("a b")).toBe(`${M}a${M}b`);
    expect(SentencePieceTokenizer.normalize("\ufb01x")).toBe(`${M}fix`);
    expect(SentencePieceTokenizer.normalize("a\u00a0b")).toBe(`${M}a${M}b`);
    expect(SentencePieceTokenizer.normalize("a\tb")).toBe(`${M}a\tb`);
    expect(SentencePieceTokenizer.normalize("")).toBe("");
  });

  it("returns no tokens for the empty string", () => {
    expect(new SentencePieceTokenizer(vocab([`${M}a`, -1])).encode("")).toEqual([]);
  });

  it("picks the segmentation with the highest total score", () => {
    // ▁ab as one piece (-5) loses to ▁a + b (-1 + -1).
    const t = new SentencePieceTokenizer(vocab([`${M}ab`, -5], [`${M}a`, -1], ["b", -1], ["a", -3]));
    expect(t.encode("ab")).toEqual([7, 8]);
    const t2 = new SentencePieceTokenizer(vocab([`${M}ab`, -1.5], [`${M}a`, -1], ["b", -1], ["a", -9]));
    expect(t2.encode("ab")).toEqual([6]);
  });

  it("never matches reserved pieces", () => {
    const t = new SentencePieceTokenizer(vocab([M, -1], ["<", -1], ["s", -1], [">", -1]));
    expect(t.encode("<s>")).toEqual([6, 7, 8, 9]);
  });

  it("maps symbols no piece starts with to id 0 and collapses runs of them", () => {
    const t = new SentencePieceTokenizer(vocab([M, -1], ["a", -1]));
    expect(t.encode("a")).toEqual([6, 7]);
    expect(t.encode("a\u00e7\u00e7\u00e7a")).toEqual([6, 7, 0, 7]);
    expect(t.encode("a b")).toEqual([6, 7, 6, 0]);
  });

  it("treats an astral character and a lone surrogate as one unknown symbol each", () => {
    const t = new SentencePieceTokenizer(vocab([M, -1], ["a", -1]));
    expect(t.encode("a\u{1F600}a")).toEqual([6, 7, 0, 7]);
    expect(t.encode("a\ud800a")).toEqual([6, 7, 0, 7]);
    expect(t.encode("a\udc00")).toEqual([6, 7, 0]);
  });

  it("keeps the last id of a piece listed twice and counts a null score as 0", () => {
    const t = new SentencePieceTokenizer(vocab([M, -1], ["q", -2], ["q", -2], ["z", null]));
    expect(t.encode("q")).toEqual([6, 8]);
    expect(t.encode("z")).toEqual([6, 9]);
  });

  it("on equal scores, keeps the later candidate (the shorter last piece)", () => {
    // ▁ab = -2 and ▁a + b = -1 + -1 tie: the reference keeps ▁a + b.
    const t = new SentencePieceTokenizer(vocab([`${M}ab`, -2], [`${M}a`, -1], ["b", -1], ["a", -9]));
    expect(t.encode("ab")).toEqual([7, 8]);
  });

  it("scores an unknown symbol 0, so it can displace a known piece ending at the same place (reference quirk)", () => {
    // No piece starts with "a": the unknown "a" (score 0 + best[1] = 0) beats "▁a" (-1) at position 2.
    const t = new SentencePieceTokenizer(vocab([`${M}ab`, -2], [`${M}a`, -1], ["b", -1]));
    expect(t.encode("ab")).toEqual([0, 8]);
  });

  it("treats a best score of exactly 0 as unreached, like the reference", () => {
    // "▁z" scores 0 (null), so position 2's best is 0 and the later candidate "z" (-9) overwrites it.
    const t = new SentencePieceTokenizer(vocab([`${M}z`, null], [M, -1], ["z", -9]));
    expect(t.encode("z")).toEqual([7, 8]);
  });

  it("honours a custom number of reserved ids", () => {
    const t = new SentencePieceTokenizer(
      [
        ["\ufffd", 0],
        [M, -1],
        ["a", -1],
      ],
      { reservedIds: 1 },
    );
    expect(t.encode("a")).toEqual([1, 2]);
    expect(t.size).toBe(3);
  });
});
