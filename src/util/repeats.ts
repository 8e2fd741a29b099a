/**
 * The first value of `values` that repeats an earlier one: the index of its first occurrence and of the repeat.
 *
 * @example
 * firstRepeat(["a", "b", "a"]); // { first: 0, at: 2, value: "a" }
 */
export function firstRepeat<T>(values: Iterable<T>): { first: number; at: number; value: T } | undefined {
  const seen = new Map<T, number>();
  let at = 0;
  for (const value of values) {
    const first = seen.get(value);
    if (first !== undefined) return { first, at, value };
    seen.set(value, at++);
  }
  return undefined;
}
