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
      // TypeScript compiler afresh for each file would cost more than the tests themselves.
      { test: { name: "unit", include: ["test/**/*.test.ts"], exclude: integrationFiles, isolate: false, ...shared } },
      { test: { name: "integration", include: integrationFiles, ...shared } },
    ],
  },
});
