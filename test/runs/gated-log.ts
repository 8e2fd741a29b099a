import type { RunOutcomeLog } from "../../src/runs/index.js";

/**
 * `inner` behind appends that wait until `release()` is called (reads go straight through): a sync caught with its
 * batch in flight, the append not yet stored or answered.
 */
export function gatedLog(inner: RunOutcomeLog): { log: RunOutcomeLog; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const log: RunOutcomeLog = {
    append: async (o) => {
      await gate;
      await inner.append(o);
    },
    read: (c) => inner.read(c),
    close: async () => {},
  };
  return { log, release };
}
