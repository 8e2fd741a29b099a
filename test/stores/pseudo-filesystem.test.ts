/**
 * A folder to create under /proc (procfs): Node's recursive mkdir can spin there forever at 100% CPU. Every library
 * entry point that creates a folder refuses it at once with its own typed error (the CLI checks its flags earlier).
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FileRunOutcomeLog } from "../../adapters/stores/run-outcome-file.js";
import { FileStore } from "../../adapters/stores/file.js";
import { saveRunPrior } from "../../adapters/artifact/run-prior-file.js";
import { saveScorer } from "../../adapters/artifact/files.js";
import { ensureWritableCacheDir } from "../../adapters/data/cache-dir.js";
import { refusePseudoFilesystem } from "../../adapters/out-dir.js";
import { IrtRouterError } from "../../src/errors.js";
import { RunRouter } from "../../src/runs/index.js";

const onLinux = existsSync("/proc/self");

describe.runIf(onLinux)("a folder to create on procfs", () => {
  const dir = "/proc/irt-router-test/sub";

  it("is refused before mkdir, with ENOTSUP and what to give instead", async () => {
    await expect(refusePseudoFilesystem(dir)).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      details: { code: "ENOTSUP" },
      message: expect.stringContaining("procfs (/proc), where no folder can be created"),
    });
    await expect(refusePseudoFilesystem("/tmp/irt-router-regular/sub")).resolves.toBeUndefined();
  });

  it("makes each entry point that creates a folder fail at once with its typed error", async () => {
    const prior = new RunRouter({ models: { a: { runCost: 1 } } }).toPrior();
    const attempts: [string, () => Promise<unknown>][] = [
      ["FileStore.open", () => FileStore.open(dir)],
      ["FileRunOutcomeLog.open", () => FileRunOutcomeLog.open(dir)],
      ["saveRunPrior", () => saveRunPrior(dir, prior)],
      ["saveScorer", () => saveScorer(dir, {} as never)], // refused before the artifact is read
      ["ensureWritableCacheDir", () => ensureWritableCacheDir(dir, { what: "test", fix: "give another folder." })],
    ];
    for (const [name, attempt] of attempts) {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, name).toBeInstanceOf(IrtRouterError);
      expect(String((error as Error).message), name).toMatch(/procfs/);
    }
  });
});
