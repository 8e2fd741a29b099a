/**
 * Fields a run prior and a shared run outcome both check (a module of their own, so that the prior's schema may hold
 * shared outcomes: its sync checkpoint's pending ones).
 */
import { z } from "zod";
import { TEXT_DIM } from "./text-prior.js";

/**
 * A task's hint, which a run prior keeps as a key of a plain object: "__proto__" is refused, since as a key it sets the
 * object's prototype instead (toPrior() lost that hint's offsets).
 */
export const hintName = z
  .string()
  .min(1)
  .refine((k) => k !== "__proto__", { message: '"__proto__" cannot name a hint' });
/** One entry of a task's hashed word vector (see textVector): an index below TEXT_DIM and a value in [-1, 1]. */
export const vectorPairSchema = z.tuple([z.number().int().nonnegative().lt(TEXT_DIM), z.number().min(-1).max(1)]);
