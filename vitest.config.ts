import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { integrationFiles } from "./test/projects.js";

// What both projects share; the global setup is the root's, run once for the whole run.
const shared = {
  setupFiles: ["test/fast-check-setup.ts"],
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    globalSetup: ["test/global-setup.ts", "test/store/postgres-global.ts"],
    projects: [
      // Unit files share their worker's module cache: most import the analyzer, and loading the
      // TypeScript compiler afresh for each file would cost more than the tests themselves. They
      // run first and take every core (vitest leaves one free by default): nothing else of the
      // run is busy then; the integration files, which start processes and servers, run after.
      {
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: integrationFiles,
          isolate: false,
          maxWorkers: availableParallelism(),
          sequence: { groupOrder: 0 },
          ...shared,
        },
      },
      { test: { name: "integration", include: integrationFiles, sequence: { groupOrder: 1 }, ...shared } },
    ],
  },
});
