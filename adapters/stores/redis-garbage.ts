/** Reporting a value under a store's Redis keys that the store did not write ({@link StoreGarbageError}). */
import { StoreGarbageError } from "../../src/errors.js";

/** A StoreGarbageError naming `key` and what belongs there (the value is described by its length, not repeated). */
export function garbage(key: string, expected: string, value: unknown): StoreGarbageError {
  const what = typeof value === "string" ? `${value.length} characters that are not ${expected}` : typeof value;
  return new StoreGarbageError(
    `Redis key "${key}" holds ${what}: something other than irt-router wrote under this store's prefix. ` +
      `Give the store a prefix of its own, or delete the key (redis-cli DEL "${key}") to let the store rebuild it.`,
    { path: "prefix", details: { key, expected } },
  );
}
