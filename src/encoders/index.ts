/**
 * The QueryEncoder interface and the pure parts of encoders: identity checks, the SentencePiece tokenizer,
 * the LRU embedding cache and vector helpers (encoders that load weights or call services are in adapters/encoders).
 */
export type { QueryEncoder, EncoderInfo } from "./types.js";
export { encoderInfo, assertSameEncoder, sameEncoder } from "./identity.js";
export { SentencePieceTokenizer, WORD_MARKER, UNKNOWN_ID } from "./sentencepiece.js";
export type { SentencePieceVocabulary, SentencePieceOptions } from "./sentencepiece.js";
export { LruCache } from "./lru.js";
export { checkTexts, findLoneSurrogate } from "./text.js";
export type { CheckTextsOptions, LoneSurrogatePolicy } from "./text.js";
export { EncoderInputError, CacheError, MissingDependencyError } from "../errors.js";
