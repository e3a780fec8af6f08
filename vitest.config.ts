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
      { test: { name: "unit", include: ["test/**/*.test.ts"], exclude: integrationFiles, ...shared } },
      { test: { name: "integration", include: integrationFiles, ...shared } },
    ],
  },
});
