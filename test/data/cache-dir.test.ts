import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultCacheRoot, installedAsDependency } from "../../adapters/data/cache-dir.js";
import { packageRoot } from "../../adapters/data/data-root.js";
import { embeddingCacheDir } from "../../adapters/data/embedding-cache.js";

describe("default cache location", () => {
  it("a source checkout keeps its caches in <package>/.cache", () => {
    expect(installedAsDependency()).toBe(false);
    expect(defaultCacheRoot({})).toBe(join(packageRoot(), ".cache"));
    expect(embeddingCacheDir(undefined, {})).toBe(join(packageRoot(), ".cache", "embeddings"));
  });

  it("an installed package never writes into its own folder: the per-user cache", () => {
    for (const root of [
      "/app/node_modules/irt-router",
      "/app/node_modules/.pnpm/irt-router@0.1.0/node_modules/irt-router",
    ]) {
      expect(installedAsDependency(root)).toBe(true);
      expect(defaultCacheRoot({ XDG_CACHE_HOME: "/var/cache/me" }, root)).toBe(join("/var/cache/me", "irt-router"));
      // a relative XDG_CACHE_HOME is invalid (XDG spec) and ignored
      if (process.platform !== "win32") {
        expect(defaultCacheRoot({ XDG_CACHE_HOME: "rel" }, root)).toBe(join(homedir(), ".cache", "irt-router"));
        expect(defaultCacheRoot({}, root)).toBe(join(homedir(), ".cache", "irt-router"));
      }
    }
    expect(installedAsDependency("/src/irt-router")).toBe(false);
    expect(installedAsDependency("/src/node_modules_backup/irt-router")).toBe(false);
  });
});
