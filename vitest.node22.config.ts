import { defineConfig } from "vitest/config";

/**
 * The Node 22 test files (`*.node22.test.ts`: AI SDK 7, Mastra), run under the pinned Node 22 binary by
 * `npm run test:node22` (scripts/node22.ts), the second half of `npm test`. The Node 20 run (vitest.config.ts)
 * excludes them.
 */
export default defineConfig({
  test: {
    include: ["test/**/*.node22.test.ts"],
    exclude: ["node_modules/**"],
    globalSetup: ["test/node22-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
  },
});
