/**
 * The router's `supportedUrls`: the URLs it lets the AI SDK pass through to the model as they are (instead of
 * downloading them), from its children's. A call may fall back to any child, so the router claims only URLs that
 * every child reads itself. The rule: for each media type, the children's patterns when every child declares the same
 * patterns for it (the same sources and flags, in any order), else none for that media type (the AI SDK then
 * downloads the URL and every child gets the data). A child's `supportedUrls` may be a promise: then so is the
 * router's; a child whose `supportedUrls` cannot be read (it throws, rejects, or is no map of RegExp lists) makes the
 * router claim nothing.
 */

/** URL patterns by media type, as `LanguageModelV3.supportedUrls` (and V4's) resolves. */
export type UrlPatterns = Record<string, RegExp[]>;

/** A child as far as its URL support goes. */
export interface UrlReader {
  readonly supportedUrls: UrlPatterns | PromiseLike<UrlPatterns>;
}

/** The URL patterns every child supports (see the module comment): a promise when some child's is one. */
export function commonSupportedUrls(children: readonly UrlReader[]): UrlPatterns | PromiseLike<UrlPatterns> {
  let declared: (UrlPatterns | PromiseLike<UrlPatterns>)[];
  try {
    declared = children.map((child) => child.supportedUrls);
  } catch {
    return {};
  }
  if (!declared.some(isPromiseLike)) return common(declared as UrlPatterns[]);
  return Promise.all(declared).then(common, () => ({}));
}

/** The media types every record declares with the same patterns, with those patterns. */
function common(records: readonly unknown[]): UrlPatterns {
  if (records.length === 0 || !records.every(isPatterns)) return {};
  const [first, ...rest] = records as UrlPatterns[];
  const out: UrlPatterns = {};
  for (const [mediaType, patterns] of Object.entries(first!)) {
    const key = signature(patterns);
    if (patterns.length > 0 && rest.every((r) => Object.hasOwn(r, mediaType) && signature(r[mediaType]!) === key)) {
      out[mediaType] = [...patterns];
    }
  }
  return out;
}

/** A pattern list's identity: its distinct patterns' sources and flags, sorted. */
const signature = (patterns: readonly RegExp[]): string =>
  JSON.stringify([...new Set(patterns.map((p) => `/${p.source}/${p.flags}`))].sort());

const isPatterns = (v: unknown): v is UrlPatterns =>
  typeof v === "object" &&
  v !== null &&
  Object.values(v).every((list) => Array.isArray(list) && list.every((p) => p instanceof RegExp));

const isPromiseLike = (v: unknown): v is PromiseLike<unknown> =>
  typeof v === "object" && v !== null && typeof (v as { then?: unknown }).then === "function";
