/**
 * `batch()` with a `timeout` per attempt: LangChain's Runnable.batch turns a config's `timeout` into one aborting
 * signal for that input's whole call (a cancellation, which no fallback survives); the router keeps it as it is.
 */

/**
 * The per-input configs `base` makes from `options` with their timeouts taken out, each given back its own timeout,
 * so `router.batch(inputs, { timeout })` bounds each attempt, as `router.invoke(input, { timeout })` does.
 */
export function keepTimeouts<O extends { timeout?: number }>(
  options: Partial<O> | Partial<O>[],
  base: (untimed: Partial<O>) => Partial<O>[],
): Partial<O>[] {
  const timeoutOf = (i: number) => (Array.isArray(options) ? options[i] : options)?.timeout;
  const untimed = (o: Partial<O> | undefined) => (o?.timeout === undefined ? o : { ...o, timeout: undefined });
  const configs = base((Array.isArray(options) ? options.map(untimed) : untimed(options)) as Partial<O>);
  return configs.map((config, i) => (timeoutOf(i) === undefined ? config : { ...config, timeout: timeoutOf(i) }));
}
