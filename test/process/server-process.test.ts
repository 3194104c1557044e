import { once } from "node:events";
import { describe, expect, test } from "vitest";
import { startServerProcess } from "../../src/process/server-process.js";
import { findProcesses, waitUntilGone } from "../helpers/processes.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

describe("startServerProcess", () => {
  test("talks over stdin and stdout, with exactly the environment given, in the folder given", async () => {
    const server = startServerProcess("sh", ["-c", 'read line; echo "$line $PWD home=$HOME"'], {
      cwd: "/",
      env,
      maxStderrChars: 100,
    });
    server.stdout?.setEncoding("utf8");
    const answer = once(server.stdout ?? process.stdin, "data");

    server.stdin?.write("hello\n");

    expect((await answer)[0]).toBe("hello / home=\n");
    expect(await server.exited).toEqual({ exitCode: 0, signal: null });
    await server.stop();
  });

  test("keeps only the end of stderr", async () => {
    const server = startServerProcess(
      "sh",
      ["-c", "i=0; while [ $i -lt 200 ]; do echo line$i >&2; i=$((i+1)); done"],
      { cwd: "/", env, maxStderrChars: 20 },
    );

    await server.ended;

    expect(server.stderrTail()).toBe("197\nline198\nline199\n");
  });

  test("stop kills its whole process group, and may be called again", async () => {
    const marker = `${90 + Math.random()}`.slice(0, 10);
    const server = startServerProcess("sh", ["-c", `sleep ${marker} & sleep ${marker}`], {
      cwd: "/",
      env,
      maxStderrChars: 100,
    });
    await expect.poll(() => findProcesses(`sleep\0${marker}`), { timeout: 5_000 }).toHaveLength(2);
    const pids = await findProcesses(`sleep\0${marker}`);

    await server.stop();
    await server.stop();

    for (const pid of pids) expect(await waitUntilGone(pid)).toBe(true);
    expect((await server.exited).signal).toBe("SIGKILL");
  });

  test("a program that does not exist ends at once with why", async () => {
    const server = startServerProcess("agent-run-no-such-server", [], {
      cwd: "/",
      env,
      maxStderrChars: 100,
    });

    expect(server.pid).toBeUndefined();
    expect((await server.exited).startError).toMatch(/ENOENT/);
    await server.stop();
  });
});
