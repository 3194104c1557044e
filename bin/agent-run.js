#!/usr/bin/env node
import { setFlagsFromString } from "node:v8";

// Memory (issue 6). Both flags are read when used, so they can be set here, before the first
// model request; child processes (the agent's commands) do not inherit them.
// - V8 lets the old generation grow to up to 4× what survived the last full GC before collecting
//   again. agent-run's own code (SDK, zod, yargs, execa) is most of what survives, so each request
//   body (the whole conversation, a fresh string every step) piles up to several times that:
//   174 MB at 200 steps, against 15 MB live. 1.5× keeps the peak near what is live.
// - undici parses HTTP with WebAssembly; optimising that module after the first request costs
//   ~25 MB for a moment. Its baseline code is fast enough for a few replies a second.
if (!process.execArgv.some((flag) => /heap[-_]growing[-_]percent/.test(flag))) {
  setFlagsFromString("--heap-growing-percent=50");
}
if (!process.execArgv.some((flag) => /liftoff/.test(flag))) setFlagsFromString("--liftoff-only");

const { main } = await import("../dist/bundle/main.js");
process.exitCode = await main(process.argv.slice(2), { handleSignals: true });
