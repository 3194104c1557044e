import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    exclude: ["test/live/**", "node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"] } },
      {
        // The tests that run commands, again with the commands started in spawn helpers (as a
        // batch with --concurrency > 1 does; the setup waits for one to be up); the first project
        // starts them directly.
        extends: true,
        test: {
          name: "spawn-helper",
          include: [
            "test/tools/bash*.test.ts",
            "test/checks/**/*.test.ts",
            "test/workspace/**/*.test.ts",
          ],
          env: { AGENT_RUN_SPAWN_HELPER: "1" },
          setupFiles: ["test/helpers/spawn-helper-setup.ts"],
        },
      },
    ],
  },
});
