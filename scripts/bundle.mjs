// Bundles the CLI into dist/bundle/agent-run.mjs, which bin/agent-run.js imports: one file to load
// at start-up instead of hundreds in node_modules. What the CLI imports on first use (each
// command's code, the OpenAI client with the `openai` package) goes into chunks/ files loaded
// then, so an Anthropic run neither runs nor parses them (~20 ms of start-up, measured).
import { readFile, rm } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { build } from "esbuild";

const OUT_DIR = "dist/bundle";

// `import text from "./file?raw"` (the viewer's client script and stylesheet, src/view/client/):
// the file's text, as vite gives it in the tests, so the built CLI needs no file beside it.
const rawText = {
  name: "raw-text",
  setup(builder) {
    builder.onResolve({ filter: /\?raw$/ }, (args) => ({
      path: resolve(dirname(args.importer), args.path.replace(/\?raw$/, "")),
      namespace: "raw-text",
    }));
    builder.onLoad({ filter: /.*/, namespace: "raw-text" }, async (args) => ({
      contents: await readFile(args.path, "utf8"),
      loader: "text",
    }));
  },
};

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
  plugins: [rawText],
  // CommonJS dependencies in an ES module bundle still need `require` for Node's own modules.
  banner: {
    js: 'import { createRequire as __agentRunRequire } from "node:module"; const require = __agentRunRequire(import.meta.url);',
  },
});
