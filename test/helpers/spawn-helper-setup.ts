import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll } from "vitest";
import { sharedSpawnHelper } from "../../src/process/spawn-helper.js";

// Setup of the "spawn-helper" project (vitest.config.ts, AGENT_RUN_SPAWN_HELPER=1): a helper is
// up before the tests run, so that their commands start in it rather than directly.
beforeAll(async () => {
  const deadline = Date.now() + 10_000;
  while (sharedSpawnHelper() === undefined) {
    if (Date.now() > deadline) throw new Error("no spawn helper became ready in 10 s");
    await sleep(5);
  }
});
