import { join, resolve } from "node:path";
import { build } from "esbuild";

/** The fixture MCP server (the SDK's server side), as the tests start it outside the sandbox. */
export const TICKET_SERVER = resolve("fixtures/mcp/ticket-server.mjs");

/** The bundled server's file name, in the folder `bundleTicketServer` wrote it to. */
export const BUNDLED_TICKET_SERVER = "ticket-server.bundle.mjs";

/**
 * The fixture server bundled into one file in `folder` (a workspace). Under bubblewrap `/tmp` is
 * private and empty: in a checkout under /tmp, neither the fixture nor the node_modules it imports
 * would be found, while the workspace always is. Returns the bundle's path.
 */
export async function bundleTicketServer(folder: string): Promise<string> {
  const outfile = join(folder, BUNDLED_TICKET_SERVER);
  await build({
    entryPoints: [TICKET_SERVER],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "silent",
    // CommonJS dependencies in an ES module bundle still need `require` (as scripts/bundle.mjs).
    banner: {
      js: 'import { createRequire as __require } from "node:module"; const require = __require(import.meta.url);',
    },
  });
  return outfile;
}
