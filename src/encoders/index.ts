export type { QueryEncoder, EncoderInfo } from "./types.js";
