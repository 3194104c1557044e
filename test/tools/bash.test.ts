import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, test } from "vitest";
import { createBashTool } from "../../src/tools/bash.js";
import { readPidFile, waitUntilGone } from "../helpers/processes.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const bash = createBashTool({ timeoutMs: 10_000, env });
const ctxFor = (root: string, signal = new AbortController().signal) => ({
  workspaceRoot: root,
  signal,
});

/** Leaves the command's process group, keeps the output pipe open and records its pid. */
const ESCAPED_SLEEP = "setsid sh -c 'echo $$ > pid.txt; exec sleep 20'";
const STREAM_CUT_NOTE =
  "[output stream closed after the command exited; a background process still held it open]";

describe("bash", () => {
  const spawned: number[] = [];
  afterEach(() => {
    for (const pid of spawned.splice(0)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
  });

  test("runs in the workspace root and reports the exit code", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "hello" } });

    const result = await bash.execute({ command: "cat a.txt; pwd; exit 3" }, ctxFor(ws.root));

    expect(result).toEqual({
      content: `hello${ws.root}\n[exit code: 3]`,
      isError: true,
      exitCode: 3,
      timedOut: false,
    });
  });

  test("combines stdout and stderr in the order they were written", async () => {
    await using ws = await tmpWorkspace();

    const result = await bash.execute(
      { command: "echo out; echo err >&2; echo out2; ls no-such-file" },
      ctxFor(ws.root),
    );

    expect(result).toEqual({
      content:
        "out\nerr\nout2\nls: cannot access 'no-such-file': No such file or directory\n[exit code: 2]",
      isError: true,
      exitCode: 2,
      timedOut: false,
    });
  });

  test("says (no output) when there is none", async () => {
    await using ws = await tmpWorkspace();

    const result = await bash.execute({ command: "true" }, ctxFor(ws.root));

    expect(result).toMatchObject({ content: "(no output)\n[exit code: 0]", isError: false });
  });

  test("uses bash, not sh", async () => {
    await using ws = await tmpWorkspace();

    const result = await bash.execute(
      { command: 'echo "$BASH_VERSION" | cut -c1' },
      ctxFor(ws.root),
    );

    expect(result.content).toMatch(/^\d\n/);
  });

  test("timeout kills the whole process tree, grandchildren included", async () => {
    await using ws = await tmpWorkspace();
    const quick = createBashTool({ timeoutMs: 1_000, env });
    const started = Date.now();

    const result = await quick.execute(
      { command: "bash -c 'sleep 30 & echo $! > pid.txt; wait'; echo never" },
      ctxFor(ws.root),
    );

    const pid = await readPidFile(ws.path("pid.txt"));
    spawned.push(pid);
    expect(result).toEqual({
      content: "(no output)\n[timed out after 1s; process tree killed]",
      isError: true,
      exitCode: null,
      timedOut: true,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await waitUntilGone(pid)).toBe(true);
  });

  test("cancellation via the signal kills the whole process tree", async () => {
    await using ws = await tmpWorkspace();
    const controller = new AbortController();

    const running = bash.execute(
      { command: "echo started; sleep 30 & echo $! > pid.txt; wait" },
      ctxFor(ws.root, controller.signal),
    );
    const pid = await readPidFile(ws.path("pid.txt"));
    spawned.push(pid);
    controller.abort();
    const result = await running;

    expect(result).toEqual({
      content: "started\n[cancelled: the run was cancelled; process tree killed]",
      isError: true,
      exitCode: null,
      timedOut: false,
    });
    expect(await waitUntilGone(pid)).toBe(true);
  });

  test("does not run at all when already cancelled", async () => {
    await using ws = await tmpWorkspace();

    const result = await bash.execute(
      { command: "touch ran" },
      ctxFor(ws.root, AbortSignal.abort()),
    );

    expect(result.content).toBe("(not run)\n[cancelled]");
    await expect(readFile(ws.path("ran"))).rejects.toThrow(/ENOENT/);
  });

  test("background processes are killed when the command ends, and do not hold it open", async () => {
    await using ws = await tmpWorkspace();
    const started = Date.now();

    const result = await bash.execute({ command: "sleep 30 & echo $! > pid.txt" }, ctxFor(ws.root));

    const pid = await readPidFile(ws.path("pid.txt"));
    spawned.push(pid);
    expect(result.content).toBe("(no output)\n[exit code: 0]");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await waitUntilGone(pid)).toBe(true);
  });

  test("a timeout returns even when an escaped (setsid) process holds the output open", async () => {
    await using ws = await tmpWorkspace();
    const quick = createBashTool({ timeoutMs: 1000, env });
    const started = Date.now();

    const result = await quick.execute(
      { command: `${ESCAPED_SLEEP} & sleep 0.3; echo started; sleep 30` },
      ctxFor(ws.root),
    );

    spawned.push(await readPidFile(ws.path("pid.txt")));
    expect(result).toEqual({
      content: `started\n${STREAM_CUT_NOTE}\n[timed out after 1s; process tree killed]`,
      isError: true,
      exitCode: null,
      timedOut: true,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test("a command returns soon after the shell exits even when an escaped process holds the output open", async () => {
    await using ws = await tmpWorkspace();
    const started = Date.now();

    const result = await bash.execute(
      { command: `${ESCAPED_SLEEP} & sleep 0.3; echo started` },
      ctxFor(ws.root),
    );

    spawned.push(await readPidFile(ws.path("pid.txt")));
    expect(result).toEqual({
      content: `started\n${STREAM_CUT_NOTE}\n[exit code: 0]`,
      isError: false,
      exitCode: 0,
      timedOut: false,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test("the environment is exactly the one given: process.env does not leak", async () => {
    await using ws = await tmpWorkspace();
    process.env.SECRET_TEST_KEY = "leaked";
    const withVar = createBashTool({ timeoutMs: 10_000, env: { ...env, GIVEN: "yes" } });

    try {
      const result = await withVar.execute(
        { command: 'echo "[$SECRET_TEST_KEY][$GIVEN]"' },
        ctxFor(ws.root),
      );

      expect(result.content).toBe("[][yes]\n[exit code: 0]");
    } finally {
      delete process.env.SECRET_TEST_KEY;
    }
  });

  test("stdin is closed, so cat returns at once", async () => {
    await using ws = await tmpWorkspace();
    const started = Date.now();

    const result = await bash.execute({ command: "cat; echo done" }, ctxFor(ws.root));

    expect(result.content).toBe("done\n[exit code: 0]");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test("long output keeps head and tail around a marker", async () => {
    await using ws = await tmpWorkspace();
    const small = createBashTool({ timeoutMs: 10_000, env, maxOutputChars: 20 });

    const result = await small.execute(
      { command: "echo FIRST; printf 'x%.0s' $(seq 1 500); echo; echo LAST" },
      ctxFor(ws.root),
    );

    expect(result.content).toBe(
      "FIRST\nxxxx\n[... 491 characters cut ...]\nxxxxx\nLAST\n[exit code: 0]",
    );
  });

  test("a command killed by a signal says so", async () => {
    await using ws = await tmpWorkspace();

    const result = await bash.execute({ command: "kill -TERM $$" }, ctxFor(ws.root));

    expect(result).toMatchObject({
      content: "(no output)\n[killed by signal SIGTERM]",
      isError: true,
      exitCode: null,
    });
  });

  test("a command node cannot start (a NUL byte) is an error result, not a crash", async () => {
    await using ws = await tmpWorkspace();

    const result = await bash.execute({ command: "echo a\0b" }, ctxFor(ws.root));

    expect(result).toMatchObject({ isError: true, exitCode: null, timedOut: false });
    expect(result.content).toMatch(/^\(no output\)\n\[failed to start: .*null bytes/);
  });

  test("a command too long to start gives a short error, not the command back", async () => {
    await using ws = await tmpWorkspace();

    const command = `echo ${"x".repeat(200_000)}`;
    const result = await bash.execute({ command }, ctxFor(ws.root));

    expect(result).toMatchObject({ isError: true, exitCode: null });
    expect(result.content).toBe("(no output)\n[failed to start: spawn E2BIG]");
  });

  test("a workspace folder that is gone is an error result", async () => {
    await using ws = await tmpWorkspace();

    const result = await bash.execute({ command: "true" }, ctxFor(ws.path("gone")));

    expect(result).toMatchObject({ isError: true, exitCode: null, timedOut: false });
    expect(result.content).toMatch(/^\(no output\)\n\[failed to start: .*ENOENT/);
  });
});
