export type { QueryEncoder, EncoderInfo } from "./types.js";
export { encoderInfo, assertSameEncoder, sameEncoder } from "./identity.js";
