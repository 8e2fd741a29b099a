import { z } from "zod";
import { ValidationError } from "../errors.js";
import { closestMatch } from "./edit-distance.js";

/** Schemas {@link parseWith} has parsed at least once in this process. */
const parsedBefore = new WeakSet<z.ZodType>();

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
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what: string, file?: string): z.output<S> {
  // zod compiles an object schema's fast path (new Function) on its first parse: worth it for a schema parsed on every
  // call, wasted on one parsed once per process (a manifest, the router's options; about a tenth of a fresh process's
  // first routed call). So a schema's first parse here runs without it, and later ones compile and use it. Both paths
  // validate and transform identically.
  const once = !parsedBefore.has(schema);
  if (once) parsedBefore.add(schema);
  const result = schema.safeParse(value, once ? { jitless: true } : undefined);
  if (result.success) return result.data;
  // Unknown keys first: a misspelt option usually explains the other issues (a required field "missing").
  const ordered = [...result.error.issues].sort(
    (a, b) => Number(b.code === "unrecognized_keys") - Number(a.code === "unrecognized_keys"),
  );
  const unknown: string[] = [];
  const issues: Issue[] = ordered.flatMap((issue): Issue[] => {
    const at = [what, ...issue.path.map(String)];
    if (issue.code !== "unrecognized_keys") return [{ path: at.join("."), message: issue.message }];
    const known = objectKeysAt(schema, value, issue.path);
    return issue.keys.map((key) => {
      const near = known && closestMatch(key, known);
      const hint = near ? `; did you mean "${near}"?` : known ? `; the known keys are ${known.join(", ")}` : "";
      unknown.push([...at, key].join("."));
      return { path: [...at, key].join("."), message: `unknown key "${key}"${hint}` };
    });
  });
  const first = issues[0]!;
  const text = issues.map((i) => `${i.path}: ${i.message}`).join("; ");
  throw new ValidationError(`Invalid ${what}${file ? ` in ${file}` : ""}: ${text}`, {
    path: first.path,
    file,
    details: unknown.length > 0 ? { issues, unknown } : { issues },
  });
}

/**
 * The keys of the object schema at `path` inside `schema`, if it is one: through optional, default, lazy and similar
 * wrappers, the input side of a transform (pipe), and, in a union, the object option that fits the value best
 * (its discriminator, else the most keys in common).
 */
function objectKeysAt(schema: z.ZodType, value: unknown, path: readonly PropertyKey[]): string[] | undefined {
  let node = resolve(schema, value);
  let v = value;
  for (const segment of path) {
    if (!(node instanceof z.ZodObject)) return undefined;
    v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[String(segment)] : undefined;
    node = resolve((node.shape as Record<string, z.ZodType>)[String(segment)], v);
  }
  return node instanceof z.ZodObject ? Object.keys(node.shape) : undefined;
}

function resolve(schema: z.ZodType | undefined, value: unknown): z.ZodType | undefined {
  let node = schema;
  for (let i = 0; i < 16 && node; i++) {
    const def = node._zod.def as {
      innerType?: z.ZodType;
      in?: z.ZodType;
      options?: z.ZodType[];
      discriminator?: string;
    };
    if (node instanceof z.ZodLazy) node = node.unwrap() as z.ZodType;
    else if (def.innerType) node = def.innerType;
    else if (def.in && !(node instanceof z.ZodObject)) node = def.in;
    else if (def.options) node = bestOption(def.options, def.discriminator, value);
    else break;
  }
  return node;
}

function bestOption(
  options: readonly z.ZodType[],
  discriminator: string | undefined,
  value: unknown,
): z.ZodType | undefined {
  const given = value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
  const objects = options
    .map((o) => ({ option: o, shape: resolve(o, value) }))
    .filter((o): o is { option: z.ZodType; shape: z.ZodObject } => o.shape instanceof z.ZodObject);
  if (discriminator) {
    const match = objects.find(({ shape }) => {
      const field = (shape.shape as Record<string, z.ZodType>)[discriminator];
      return field !== undefined && field.safeParse(given[discriminator]).success;
    });
    if (match) return match.shape;
  }
  let best: z.ZodObject | undefined;
  let bestCommon = -1;
  for (const { shape } of objects) {
    const common = Object.keys(given).filter((k) => k in shape.shape).length;
    if (common > bestCommon) {
      bestCommon = common;
      best = shape;
    }
  }
  return best;
}

/** A zod schema for a function-valued option; `what` completes the message "must be ...". */
export const functionSchema = <T>(what: string) =>
  z.custom<T>((v) => typeof v === "function", { message: `must be ${what}` });
