/**
 * The validation of both AI SDK faces' options as far as the faces read them: an options object whose `models` are
 * children of the face's AI SDK version (`LanguageModelV3` for {@link IrtRouterModel}, `LanguageModelV4` for
 * {@link IrtRouterModelV4}), bare or in a config `{ model, id?, ... }`, keyed by id or listed. A bad child is a
 * ValidationError at its own path that says what was given and what to give instead (a model id string, a model of
 * another AI SDK version, an object that is no model). The routing options and the configs' other fields are the
 * core's to validate.
 */
import { z } from "zod";
import { parseWith } from "../util/validate.js";

/** The AI SDK model versions the faces take. */
export type SpecVersion = "v3" | "v4";

const SPECS: Readonly<Record<string, { readonly name: string; readonly ai: string }>> = {
  v1: { name: "LanguageModelV1", ai: "ai 4" },
  v2: { name: "LanguageModelV2", ai: "ai 5" },
  v3: { name: "LanguageModelV3", ai: "ai 6" },
  v4: { name: "LanguageModelV4", ai: "ai 7" },
};

const specOf = (v: unknown): unknown =>
  typeof v === "object" && v !== null ? (v as { specificationVersion?: unknown }).specificationVersion : undefined;

/** Whether `v` is an AI SDK language model of `version` (its tag, ids and call methods). */
export function isModelOf<M>(version: SpecVersion): (v: unknown) => v is M {
  return (v): v is M => {
    const m = v as Record<string, unknown>;
    return (
      specOf(v) === version &&
      typeof m.provider === "string" &&
      typeof m.modelId === "string" &&
      typeof m.doGenerate === "function" &&
      typeof m.doStream === "function"
    );
  };
}

/** What is wrong with a child that is no model of `version`, and what to give instead. */
function notAModel(v: unknown, version: SpecVersion): string {
  const want = SPECS[version]!;
  const must =
    `must be an AI SDK ${want.name} (a model of an ${want.ai} provider package, e.g. openai.chat("gpt-4o"); ` +
    `specificationVersion "${version}") or a config { model, id?, price?, capabilities? } holding one`;
  if (typeof v === "string") {
    return `${must}, not the string "${v}": the router calls model objects, so give the provider's model for this id`;
  }
  const spec = specOf(v);
  if (spec === version) return `${must}: this one has specificationVersion "${version}" but lacks a ${missing(v)}`;
  const other = typeof spec === "string" ? SPECS[spec] : undefined;
  if (other && (spec === "v3" || spec === "v4")) {
    return (
      `${must}, not a ${other.name} (${other.ai}): createIrtRouterModel makes the ${other.name} router for ` +
      `${other.name} children, and children of one version go together`
    );
  }
  if (other) return `${must}, not a ${other.name} (${other.ai}): use the provider package made for ${want.ai}`;
  if (spec !== undefined) return `${must}, not a model of specificationVersion ${JSON.stringify(spec)}`;
  return `${must}; got ${kind(v)}`;
}

/** The first member a model of the right tag lacks. */
function missing(v: unknown): string {
  const m = v as Record<string, unknown>;
  if (typeof m.provider !== "string") return "string provider";
  if (typeof m.modelId !== "string") return "string modelId";
  return typeof m.doGenerate !== "function" ? "doGenerate method" : "doStream method";
}

const kind = (v: unknown): string =>
  v === null
    ? "null"
    : Array.isArray(v)
      ? "an array"
      : typeof v === "object"
        ? `an object with keys ${Object.keys(v).join(", ") || "(none)"}`
        : `${typeof v} ${String(v)}`;

/** A child: a model of `version`, or a config whose `model` is one (and whose `id`, when given, is a string). */
function childSchema(version: SpecVersion): z.ZodType {
  const isModel = isModelOf(version);
  return z.unknown().superRefine((v, ctx) => {
    if (isModel(v)) return;
    const isConfig = typeof v === "object" && v !== null && specOf(v) === undefined && "model" in v;
    if (!isConfig) return void ctx.addIssue({ code: "custom", message: notAModel(v, version) });
    const { model, id } = v as { model?: unknown; id?: unknown };
    if (!isModel(model)) ctx.addIssue({ code: "custom", path: ["model"], message: notAModel(model, version) });
    if (id !== undefined && typeof id !== "string") {
      ctx.addIssue({
        code: "custom",
        path: ["id"],
        message: `must be a string (the child's model id); got ${kind(id)}`,
      });
    }
  });
}

const MODELS_SHAPE =
  "the child models, keyed by id ({ 'gpt-4o': openai.chat('gpt-4o'), ... }) or listed ([openai.chat('gpt-4o'), ...])";

/** The options schema of the face of `version`, by the form of the given `models` (a list or a record). */
function optionsSchema(version: SpecVersion, models: unknown): z.ZodType {
  const child = childSchema(version);
  const list = z.array(child).min(1, { error: `must list at least one child: ${MODELS_SHAPE}` });
  const record = z
    .record(z.string(), child, { error: `must be ${MODELS_SHAPE}` })
    .refine((r) => Object.keys(r).length > 0, { error: `must hold at least one child: ${MODELS_SHAPE}` });
  return z.object(
    { models: Array.isArray(models) ? list : record },
    { error: "must be an object: { models: { 'gpt-4o': openai.chat('gpt-4o'), ... }, ...routing options }" },
  );
}

/**
 * Throws a ValidationError (path `options`, `options.models`, `options.models.<key>` or `.model`) unless `options`
 * is an object whose `models` are children of `version` (see the module comment).
 */
export function checkChildren(options: unknown, version: SpecVersion): void {
  const models = typeof options === "object" && options !== null ? (options as { models?: unknown }).models : undefined;
  parseWith(optionsSchema(version, models), options, "options");
}
