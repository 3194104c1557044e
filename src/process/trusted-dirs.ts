import { delimiter, isAbsolute } from "node:path";
import { isSameOrInside } from "../fs/real-path.js";

/**
 * The folders of a search list (`PATH`, `LD_LIBRARY_PATH`) that agent-run may take its own
 * programs and libraries from: absolute ones outside every folder in `untrusted` (the workspace,
 * where the agent writes). An empty or relative entry (`:$PATH`, `node_modules/.bin`) is looked up
 * from the current folder, so a program the agent planted there would run outside the sandbox.
 */
export function trustedDirs(list: string | undefined, untrusted: readonly string[]): string[] {
  return (list ?? "")
    .split(delimiter)
    .filter((dir) => isAbsolute(dir) && !untrusted.some((folder) => isSameOrInside(dir, folder)));
}
