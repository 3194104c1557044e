// Bundles the CLI into dist/bundle/agent-run.mjs, which bin/agent-run.js imports: one file to load
// at start-up instead of hundreds in node_modules. What the CLI imports on first use (each
// command's code, the OpenAI client with the `openai` package) goes into chunks/ files loaded
// then, so an Anthropic run neither runs nor parses them (~20 ms of start-up, measured).
import { rm } from "node:fs/promises";
import { build } from "esbuild";

const OUT_DIR = "dist/bundle";

// A previous build's files must not linger.
await rm(OUT_DIR, { recursive: true, force: true });

await build({
  entryPoints: { "agent-run": "src/cli/main.ts" },
  outdir: OUT_DIR,
  bundle: true,
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  outExtension: { ".js": ".mjs" },
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
