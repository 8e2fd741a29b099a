import type { RouterLogger } from "./options.js";

/** Warnings a router gives once per key (a missing price, an unknown model, a budget without run ids). */
export class OnceWarnings {
  private readonly given = new Set<string>();

  constructor(readonly logger: RouterLogger) {}

  /** Logs `message` the first time `key` is seen; later calls with the same key are silent. */
  warn(key: string, message: string): void {
    if (this.given.has(key)) return;
    this.given.add(key);
    this.logger.warn(message);
  }
}
