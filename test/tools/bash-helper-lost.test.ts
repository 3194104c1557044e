import { afterEach, expect, test, vi } from "vitest";
import { readPidFile, waitUntilGone } from "../helpers/processes.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

test("bash: a command whose spawn helper stops ends as stopped, keeping the output that came, with its process tree killed", async () => {
  vi.stubEnv("AGENT_RUN_SPAWN_HELPER", "1");
  vi.resetModules();
  const { sharedSpawnHelper } = await import("../../src/process/spawn-helper.js");
  const { createBashTool } = await import("../../src/tools/bash.js");
  await vi.waitFor(() => expect(sharedSpawnHelper()).toBeDefined());
  const helper = sharedSpawnHelper();
  if (helper === undefined) throw new Error("no spawn helper");
  const helperPid = helper.pid ?? 0;
  // Listens beside the bash tool, to know when the output has reached agent-run: the helper
  // gathers output for up to 50 ms, and what it has not sent yet goes with it.
  let received = "";
  const start = helper.start.bind(helper);
  vi.spyOn(helper, "start").mockImplementation((options) => {
    const subprocess = start(options);
    subprocess?.stdout.on("data", (chunk: string | Buffer) => {
      received += String(chunk);
    });
    return subprocess;
  });
  await using ws = await tmpWorkspace({ files: {} });
  const bash = createBashTool({ timeoutMs: 10_000, env: { PATH: process.env.PATH ?? "" } });

  const running = bash.execute(
    { command: "echo started; sleep 30 & echo $! > pid.txt; wait" },
    { workspaceRoot: ws.root, signal: new AbortController().signal },
  );
  const sleeper = await readPidFile(ws.path("pid.txt"));
  await vi.waitFor(() => expect(received).toBe("started\n"), { timeout: 5_000 });
  process.kill(helperPid, "SIGKILL");
  const result = await running;

  expect(result.isError).toBe(true);
  expect(result.exitCode).toBeNull();
  expect(result.content).toMatch(
    /^started\n\[stopped: lost track of the command: agent-run's spawn helper stopped; process tree killed\]$/,
  );
  expect(await waitUntilGone(sleeper)).toBe(true);
});
