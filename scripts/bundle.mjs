// Bundles the CLI into one file, dist/bundle/agent-run.mjs, that bin/agent-run.js imports: one
// file to load at start-up instead of hundreds in node_modules. Each command's code (run, replay,
// report) is imported on first use, so it only runs when that command does.
import { rm } from "node:fs/promises";
import { build } from "esbuild";

const OUT_DIR = "dist/bundle";

// A previous build's files must not linger.
await rm(OUT_DIR, { recursive: true, force: true });

await build({
  entryPoints: ["src/cli/main.ts"],
  outfile: `${OUT_DIR}/agent-run.mjs`,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  minify: true,
  sourcemap: true,
  legalComments: "linked",
  logLevel: "warning",
  // CommonJS dependencies in an ES module bundle still need `require` for Node's own modules.
  banner: {
    js: 'import { createRequire as __agentRunRequire } from "node:module"; const require = __agentRunRequire(import.meta.url);',
  },
});
