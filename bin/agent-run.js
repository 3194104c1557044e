#!/usr/bin/env node
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { loadBundle } from "../dist/launcher/load-bundle.js";

// Memory and CPU (issue 6), set when the first API request is created: a V8 flag changed any
// earlier makes Node refuse the code cache of every built-in module loaded after it (~20 ms of
// start-up). The flags are read when used; flags given to node (on the command line or in
// NODE_OPTIONS) win; offline runs make no request and keep V8's defaults; the agent's commands
// (child processes) do not inherit them.
// - V8 lets the old generation grow to up to 4× what survived the last full GC before collecting
//   again. agent-run's own code (SDK, zod, yargs) is most of what survives, so each request
//   body (the whole conversation, a fresh string every step) piles up to several times that:
//   174 MB at 200 steps, against 15 MB live. 1.5× keeps the peak near what is live.
// - undici (the global fetch, used when a proxy is configured for it) parses HTTP with
//   WebAssembly; optimising that module after the first reply costs ~25 MB for a moment. Its
//   baseline (Liftoff) code only frames a few replies a second.
// - The young generation keeps the size start-up gave it (about 8 MB) instead of growing to 32 MB
//   (`--semi-space-growth-factor=1`): a single task's commands and git calls fork this process
//   (a parallel batch's start in spawn helpers), and fork copies its page tables. A 100-task
//   batch peaks at ~90 MB instead of ~110 MB, and the 200-step session got slightly faster
//   (1.39 → 1.36 s); short-lived garbage is all it holds.
// - --no-opt: the optimising compiler (TurboFan) spends ~10 ms of CPU per short task compiling
//   code that runs a few hundred times; between model calls agent-run mostly waits, and the
//   baseline compilers are enough. In a 100-task batch on 2 cores: 11.5 → 9.2 s, 121 → 109 MB.
// Requests go through node:http (src/model/http-fetch.ts) or, with a proxy, undici.
const REQUEST_CHANNELS = ["http.client.request.start", "undici:request:create"];
function tuneMemory() {
  for (const channel of REQUEST_CHANNELS) unsubscribe(channel, tuneMemory);
  // A code cache is valid only for the flags it was made with: keep what start-up compiled first.
  bundle.saveCodeCache();
  const given = `${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`;
  if (!/heap[-_]growing[-_]percent/.test(given)) setFlagsFromString("--heap-growing-percent=50");
  if (!/liftoff/.test(given)) setFlagsFromString("--liftoff-only");
  if (!/(--no-opt|--turbofan|--opt)\b/.test(given)) setFlagsFromString("--no-opt");
  if (!/semi[-_]space/.test(given)) setFlagsFromString("--semi-space-growth-factor=1");
}

const bundle = loadBundle({
  bundleDir: fileURLToPath(new URL("../dist/bundle/", import.meta.url)),
  cacheSetting: process.env.AGENT_RUN_CODE_CACHE,
});
for (const channel of REQUEST_CHANNELS) subscribe(channel, tuneMemory);
const code = await bundle.exports.main(process.argv.slice(2), { handleSignals: true });
bundle.saveCodeCache();
// Everything is written. Exiting here skips Node's teardown of the JavaScript heap (a few ms);
// what is still queued for stdout and stderr (pipes are asynchronous on some systems) goes first.
await Promise.all([process.stdout, process.stderr].map((s) => new Promise((r) => s.write("", r))));
process.exit(code);
