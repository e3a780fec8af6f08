import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts", "test/store/postgres-global.ts"],
    setupFiles: ["test/fast-check-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
