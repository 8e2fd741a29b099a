import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { defaultStaticDir } from "../../adapters/encoders/static.js";
import { prebuiltTokenizerBytes, readPrebuiltTokenizer } from "../../adapters/encoders/static-tokenizer.js";
import { decodePieceTables, encodePieceTables } from "../../src/encoders/piece-tables.js";
import {
  pieceTablesOf,
  SentencePieceTokenizer,
  tokenizerFromTables,
  type SentencePieceVocabulary,
} from "../../src/encoders/sentencepiece.js";
import { parityTexts } from "./fixtures/parity-texts.js";

const vocabFile = join(defaultStaticDir(), "vocab.json");
const vocabBytes = readFileSync(vocabFile);
const vocabSha = createHash("sha256").update(vocabBytes).digest("hex");
const vocabulary = JSON.parse(vocabBytes.toString("utf8")) as SentencePieceVocabulary;
const built = new SentencePieceTokenizer(vocabulary);
const tablesBytes = encodePieceTables(pieceTablesOf(built), vocabSha);
const texts = [...parityTexts, "", " ", "\ud800 lone", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ✓ 漢字 😀", "x".repeat(3000)];

const dir = mkdtempSync(join(tmpdir(), "irt-piece-tables-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const save = (name: string, bytes: Uint8Array) => {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  return file;
};

describe("piece tables", () => {
  it("restore a tokenizer that gives the built one's ids on varied texts", () => {
    // a fresh copy, 8-byte aligned, as the file reader hands it over
    const { vocabSha256, tables } = decodePieceTables(new Uint8Array(tablesBytes));
    expect(vocabSha256).toBe(vocabSha);
    const restored = tokenizerFromTables(tables);
    expect(restored).toBeInstanceOf(SentencePieceTokenizer);
    expect(restored.size).toBe(built.size);
    for (const text of texts) expect(restored.encode(text), text.slice(0, 40)).toEqual(built.encode(text));
  });

  it("are smaller than the trie the constructor allocates (the edge table re-hashed for its nodes)", () => {
    const { trie } = pieceTablesOf(built);
    const { tables } = decodePieceTables(new Uint8Array(tablesBytes));
    expect(tables.trie.edgeParent.length).toBeLessThan(trie.edgeParent.length);
    expect(tables.trie.idOf.length).toBeLessThan(trie.idOf.length);
  });

  it("refuse bytes that are not tables: another version, truncated, misaligned", () => {
    const other = new Uint8Array(tablesBytes);
    new DataView(other.buffer).setInt32(64, 2, true);
    expect(() => decodePieceTables(other)).toThrow(/format 2/);
    expect(() => decodePieceTables(new Uint8Array(tablesBytes.slice(0, tablesBytes.length - 4)))).toThrow(/truncated/);
    const shifted = new Uint8Array(tablesBytes.length + 4);
    shifted.set(tablesBytes, 4);
    expect(() => decodePieceTables(shifted.subarray(4))).toThrow(/aligned/);
  });
});

describe("readPrebuiltTokenizer", () => {
  const file = save("ok.bin", prebuiltTokenizerBytes(tablesBytes));

  it("restores the saved tokenizer and its longest piece for the vocabulary it was built from", async () => {
    const got = await readPrebuiltTokenizer(vocabSha, vocabulary.length, file);
    expect(got).toBeDefined();
    expect(got!.longest).toBe(Math.max(...vocabulary.map(([piece]) => piece.length)));
    for (const text of texts.slice(0, 40)) expect(got!.tokenizer.encode(text)).toEqual(built.encode(text));
  });

  it("gives nothing (the caller builds from the vocabulary) for another vocabulary, size, a truncated or no file", async () => {
    expect(await readPrebuiltTokenizer("0".repeat(64), vocabulary.length, file)).toBeUndefined();
    expect(await readPrebuiltTokenizer(vocabSha, vocabulary.length + 1, file)).toBeUndefined();
    const truncated = new Uint8Array(readFileSync(file)).subarray(0, -8);
    expect(await readPrebuiltTokenizer(vocabSha, vocabulary.length, save("truncated.bin", truncated))).toBeUndefined();
    expect(
      await readPrebuiltTokenizer(vocabSha, vocabulary.length, save("junk.bin", new Uint8Array(10))),
    ).toBeUndefined();
    expect(await readPrebuiltTokenizer(vocabSha, vocabulary.length, join(dir, "missing.bin"))).toBeUndefined();
  });
});
