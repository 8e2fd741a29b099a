/** Telling "this optional package is not installed" from a failure inside an installed one. Pure. */

/**
 * Whether an import/resolve error says that `name` itself is not installed (not a failure inside it).
 *
 * @example
 * ```ts
 * const mod = await import("langchain").catch((e) => (isMissingPackage(e, "langchain") ? undefined : Promise.reject(e)));
 * ```
 */
export function isMissingPackage(error: unknown, name: string): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  const message = typeof e?.message === "string" ? e.message : "";
  return (
    ["ERR_MODULE_NOT_FOUND", "MODULE_NOT_FOUND"].includes(code) &&
    [`'${name}'`, `"${name}"`, `'${name}/`, `"${name}/`].some((quoted) => message.includes(quoted))
  );
}
