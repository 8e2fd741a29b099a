import { z } from "zod";
import { ValidationError } from "../errors.js";

/**
 * Parse `value` with a zod schema; on failure throw a {@link ValidationError} whose
 * message names every bad field by its dotted path (`what.field.sub`).
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
  file?: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => {
    const path = [what, ...issue.path.map(String)].join(".");
    return { path, message: issue.message };
  });
  const first = issues[0]!;
  const text = issues.map((i) => `${i.path}: ${i.message}`).join("; ");
  throw new ValidationError(`Invalid ${what}${file ? ` in ${file}` : ""}: ${text}`, {
    path: first.path,
    file,
    details: { issues },
  });
}

/** A zod schema for a function-valued option; `what` completes the message "must be ...". */
export const functionSchema = <T>(what: string) => z.custom<T>((v) => typeof v === "function", { message: `must be ${what}` });
