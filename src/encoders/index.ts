export type { QueryEncoder, EncoderInfo } from "./types.js";
export { encoderInfo, assertSameEncoder, sameEncoder } from "./identity.js";
export { SentencePieceTokenizer, WORD_MARKER, UNKNOWN_ID } from "./sentencepiece.js";
export type { SentencePieceVocabulary, SentencePieceOptions } from "./sentencepiece.js";
export { LruCache } from "./lru.js";
export { checkTexts, findLoneSurrogate } from "./text.js";
export type { CheckTextsOptions, LoneSurrogatePolicy } from "./text.js";
