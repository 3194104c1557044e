// Bundles the CLI into dist/bundle/ (ESM, minified, split so commands load on first use):
// starting from one file instead of hundreds of node_modules files is most of agent-run's start-up.
import { rm } from "node:fs/promises";
import { build } from "esbuild";

// Chunk names carry content hashes: clear out the previous build's.
await rm("dist/bundle", { recursive: true, force: true });

await build({
  entryPoints: { main: "src/cli/main.ts" },
  outdir: "dist/bundle",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  minify: true,
  sourcemap: true,
  legalComments: "linked",
  logLevel: "warning",
  banner: {
    js: "import { createRequire as __agentRunRequire } from 'node:module'; const require = __agentRunRequire(import.meta.url);",
  },
});
