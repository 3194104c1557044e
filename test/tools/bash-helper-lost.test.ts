import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, expect, test, vi } from "vitest";
import { readPidFile, waitUntilGone } from "../helpers/processes.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

test("bash: a command whose spawn helper stops ends as stopped, with its process tree killed", async () => {
  vi.stubEnv("AGENT_RUN_SPAWN_HELPER", "1");
  vi.resetModules();
  const { sharedSpawnHelper } = await import("../../src/process/spawn-helper.js");
  const { createBashTool } = await import("../../src/tools/bash.js");
  await vi.waitFor(() => expect(sharedSpawnHelper()).toBeDefined());
  const helperPid = sharedSpawnHelper()?.pid ?? 0;
  await using ws = await tmpWorkspace({ files: {} });
  const bash = createBashTool({ timeoutMs: 10_000, env: { PATH: process.env.PATH ?? "" } });

  const running = bash.execute(
    { command: "echo started; sleep 30 & echo $! > pid.txt; wait" },
    { workspaceRoot: ws.root, signal: new AbortController().signal },
  );
  const sleeper = await readPidFile(ws.path("pid.txt"));
  await sleep(50);
  process.kill(helperPid, "SIGKILL");
  const result = await running;

  expect(result.isError).toBe(true);
  expect(result.exitCode).toBeNull();
  expect(result.content).toMatch(
    /^started\n\[stopped: lost track of the command: agent-run's spawn helper stopped; process tree killed\]$/,
  );
  expect(await waitUntilGone(sleeper)).toBe(true);
});
