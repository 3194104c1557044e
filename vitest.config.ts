import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/live/**", "node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // The viewer's stylesheets are imported as text (`?raw`); vitest empties CSS it does not process.
    css: { include: [/src\/view\/client\/.*\.css/] },
  },
});
