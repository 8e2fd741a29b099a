import type { RouterLogger } from "./options.js";

/** Warnings a router gives once per key (a missing price, an unknown model, a budget without run ids). */
export class OnceWarnings {
  private readonly given = new Set<string>();

  constructor(readonly logger: RouterLogger) {}

  /**
   * Logs `message` the first time `key` is seen; later calls with the same key are silent. A typed warning object, when
   * given, is passed to the logger as the second argument.
   */
  warn(key: string, message: string, warning?: Error): void {
    if (this.given.has(key)) return;
    this.given.add(key);
    if (warning) this.logger.warn(message, warning);
    else this.logger.warn(message);
  }
}
