import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { findProcesses } from "../helpers/processes.js";

const DIST = resolve("dist/process");

/**
 * A stand-in for agent-run (the built modules, so it runs outside vitest): it starts two
 * commands, each leading its own process group, hands both groups to the reaper and takes the
 * second back, as the bash tool does once a command's group is killed.
 */
function startParent(first: string, second: string) {
  const script = `
    const { startCommand } = await import(${JSON.stringify(`${DIST}/run-process.js`)});
    const { trackGroup, untrackGroup } = await import(${JSON.stringify(`${DIST}/reaper.js`)});
    const env = { PATH: "/usr/bin:/bin" };
    const a = startCommand("/bin/sh", ["-c", "sleep ${first} & sleep ${first}"], { env, detached: true });
    const b = startCommand("/bin/sh", ["-c", "sleep ${second}"], { env, detached: true });
    trackGroup(a.pid);
    trackGroup(b.pid);
    untrackGroup(b.pid);
    setInterval(() => {}, 1000);
  `;
  return spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "ignore" });
}

describe.skipIf(process.platform !== "linux")("the reaper", () => {
  test("kills the groups it holds when agent-run is killed with SIGKILL, and only those", async () => {
    expect(existsSync(`${DIST}/reaper.js`), "run `npm run build` before the tests").toBe(true);
    const first = `${60 + Math.random()}`.slice(0, 10);
    const second = `${70 + Math.random()}`.slice(0, 10);
    const parent = startParent(first, second);
    try {
      await expect.poll(() => findProcesses(`sleep\0${first}`), { timeout: 5_000 }).toHaveLength(2);
      await expect
        .poll(() => findProcesses(`sleep\0${second}`), { timeout: 5_000 })
        .toHaveLength(1);

      parent.kill("SIGKILL");

      await expect.poll(() => findProcesses(`sleep\0${first}`), { timeout: 5_000 }).toEqual([]);
      // A group taken back is never killed: by then its id may belong to someone else.
      expect(await findProcesses(`sleep\0${second}`)).toHaveLength(1);
    } finally {
      parent.kill("SIGKILL");
      for (const pid of [
        ...(await findProcesses(`sleep\0${first}`)),
        ...(await findProcesses(`sleep\0${second}`)),
      ])
        process.kill(pid, "SIGKILL");
    }
  });
});
