/**
 * `npm run build`'s last step: saves the shipped static encoder's tokenizer tables (src/encoders/piece-tables.ts) to
 * `dist/static-tokenizer.bin`, so that `StaticEncoder.load()` restores the tokenizer instead of parsing the
 * vocabulary and building its trie in every fresh process (adapters/encoders/static-tokenizer.ts). Built from
 * `encoders/static/vocab.json` (checked against its manifest), never from an older saved file.
 */
import { rmSync, writeFileSync } from "node:fs";
import { StaticEncoder } from "../adapters/encoders/static.js";
import { prebuiltTokenizerBytes, prebuiltTokenizerFile } from "../adapters/encoders/static-tokenizer.js";
import { encodePieceTables } from "../src/encoders/piece-tables.js";
import { pieceTablesOf } from "../src/encoders/sentencepiece.js";

const file = prebuiltTokenizerFile();
rmSync(file, { force: true });
const encoder = await StaticEncoder.load();
const bytes = prebuiltTokenizerBytes(
  encodePieceTables(pieceTablesOf(encoder.tokenizer), encoder.manifest.vocabulary.sha256),
);
writeFileSync(file, bytes);
console.error(`saved the static encoder's tokenizer tables to ${file} (${bytes.byteLength} bytes)`);
