#!/usr/bin/env node
// agent-run's command: the bundled CLI (npm run build writes it), run with the real process.
let bundle;
try {
  bundle = await import("../dist/bundle/agent-run.mjs");
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND") throw error;
  process.stderr.write("agent-run is not built: run `npm run build` in its folder first\n");
  process.exit(3);
}
const code = await bundle.main(process.argv.slice(2), { handleSignals: true });
// What is still queued for stdout and stderr (pipes are asynchronous on some systems) goes first.
await Promise.all([process.stdout, process.stderr].map((s) => new Promise((r) => s.write("", r))));
process.exit(code);
