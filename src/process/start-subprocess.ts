import { sharedSpawnHelper } from "./spawn-helper.js";
import { type Subprocess, type SubprocessOptions, startDirectly } from "./subprocess.js";

/**
 * Starts a command through the spawn helper (see `helper-source.ts`) once it is up; with node's
 * `spawn` from this process until then, when it is switched off (`AGENT_RUN_SPAWN_HELPER=0`), or
 * after it failed.
 */
export function startSubprocess(options: SubprocessOptions): Subprocess {
  return sharedSpawnHelper()?.start(options) ?? startDirectly(options);
}
