import { z } from "zod";
import { ValidationError } from "../errors.js";
import { closestMatch } from "./edit-distance.js";

interface Issue {
  readonly path: string;
  readonly message: string;
}

/**
 * Parse `value` with a zod schema; on failure throw a {@link ValidationError} whose
 * message names every bad field by its dotted path (`what.field.sub`).
 *
 * An unknown key of a strict object is reported at its own path (`what.snapshotEvry`, not `what`), with the
 * closest known key when one is near ("did you mean snapshotEvery?") and the known keys otherwise.
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
  file?: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues: Issue[] = result.error.issues.flatMap((issue): Issue[] => {
    const at = [what, ...issue.path.map(String)];
    if (issue.code !== "unrecognized_keys") return [{ path: at.join("."), message: issue.message }];
    const known = objectKeysAt(schema, issue.path);
    return issue.keys.map((key) => {
      const near = known && closestMatch(key, known);
      const hint = near ? `; did you mean "${near}"?` : known ? `; the known keys are ${known.join(", ")}` : "";
      return { path: [...at, key].join("."), message: `unknown key "${key}"${hint}` };
    });
  });
  const first = issues[0]!;
  const text = issues.map((i) => `${i.path}: ${i.message}`).join("; ");
  throw new ValidationError(`Invalid ${what}${file ? ` in ${file}` : ""}: ${text}`, {
    path: first.path,
    file,
    details: { issues },
  });
}

/** The keys of the object schema at `path` inside `schema` (through optional, default and similar wrappers), if it is one. */
function objectKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let node: z.ZodType | undefined = unwrap(schema);
  for (const segment of path) {
    if (!(node instanceof z.ZodObject)) return undefined;
    node = unwrap((node.shape as Record<string, z.ZodType>)[String(segment)]);
  }
  return node instanceof z.ZodObject ? Object.keys(node.shape) : undefined;
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let node = schema;
  for (let i = 0; i < 8 && node; i++) {
    const inner = (node._zod.def as { innerType?: z.ZodType }).innerType;
    if (!inner) break;
    node = inner;
  }
  return node;
}

/** A zod schema for a function-valued option; `what` completes the message "must be ...". */
export const functionSchema = <T>(what: string) => z.custom<T>((v) => typeof v === "function", { message: `must be ${what}` });
