import { defineConfig } from "vitest/config";

// Two projects: pure unit tests beside the source, and suites under test/ that need
// DynamoDB Local (started once by the global setup, in memory).
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    projects: [
      { extends: true, test: { name: "unit", include: ["packages/*/src/**/*.test.ts"] } },
      {
        extends: true,
        test: { name: "integration", include: ["test/**/*.test.ts"], globalSetup: ["test/global-setup.ts"] },
      },
    ],
  },
});
