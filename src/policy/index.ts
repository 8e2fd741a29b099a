export type { PolicyConfig, Candidate, RankedCandidate, PolicyContext } from "./types.js";
