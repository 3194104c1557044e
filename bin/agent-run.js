#!/usr/bin/env node
import { fileURLToPath } from "node:url";
import { loadBundle } from "../dist/launcher/load-bundle.js";

const bundle = loadBundle({
  bundleDir: fileURLToPath(new URL("../dist/bundle/", import.meta.url)),
  cacheSetting: process.env.AGENT_RUN_CODE_CACHE,
});
process.exitCode = await bundle.exports.main(process.argv.slice(2), { handleSignals: true });
bundle.saveCodeCache();
