import { sharedSpawnHelper } from "./spawn-helper.js";
import { type Subprocess, type SubprocessOptions, startDirectly } from "./subprocess.js";

/**
 * Starts a command in a spawn helper (see `helper-source.ts`) when helpers are in use and one is
 * ready (`sharedSpawnHelper`); otherwise with node's `spawn`, from this process.
 */
export function startSubprocess(options: SubprocessOptions): Subprocess {
  return sharedSpawnHelper()?.start(options) ?? startDirectly(options);
}
