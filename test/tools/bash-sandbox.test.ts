import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { accessSync, constants, existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createBashTool } from "../../src/tools/bash.js";
import { assertSandboxAvailable, buildBwrapCommand } from "../../src/tools/sandbox.js";
import { findProcesses } from "../helpers/processes.js";
import { shouldRunSandboxTests } from "../helpers/sandbox-tests.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

function canWrite(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: homedir() };
const ctxFor = (root: string) => ({ workspaceRoot: root, signal: new AbortController().signal });

const hasBwrap = shouldRunSandboxTests();

describe.skipIf(!hasBwrap)("bash in the bwrap sandbox", () => {
  const sandboxed = createBashTool({ timeoutMs: 10_000, env, sandbox: "bwrap" });
  const server = createServer((_request, response) => response.end("reached"));
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  test("the workspace is writable, and the command starts in it", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "a" } });

    const result = await sandboxed.execute(
      { command: "pwd; echo b > b.txt; mkdir -p sub && touch sub/c; cat a.txt b.txt" },
      ctxFor(ws.root),
    );

    expect(result.content).toBe(`${ws.root}\nab\n[exit code: 0]`);
    expect(await readFile(ws.path("b.txt"), "utf8")).toBe("b\n");
    expect(existsSync(ws.path("sub/c"))).toBe(true);
  });

  test("everything outside the workspace is read-only, even for a runner started as root", async () => {
    // A root runner's commands keep CAP_DAC_OVERRIDE and CAP_FOWNER (bits 1 and 3), as another uid.
    const capabilities = process.getuid?.() === 0 ? "000000000000000a" : "0000000000000000";
    await using ws = await tmpWorkspace();
    const outside = join(homedir(), `agent-run-sandbox-${randomUUID()}`);

    try {
      const result = await sandboxed.execute(
        { command: `touch ${outside} /etc/agent-run-test; grep CapEff /proc/self/status` },
        ctxFor(ws.root),
      );

      expect(result.content).toBe(
        `touch: cannot touch '${outside}': Read-only file system\n` +
          "touch: cannot touch '/etc/agent-run-test': Read-only file system\n" +
          `CapEff:\t${capabilities}\n[exit code: 0]`,
      );
      expect(existsSync(outside)).toBe(false);
    } finally {
      await rm(outside, { force: true });
    }
  });

  // Where /run can be written (root, as in CI), a real socket there must be out of reach: a
  // read-only mount does not stop connect(), and /run/docker.sock would be root on the host.
  test.runIf(canWrite("/run"))(
    "/run is empty: no socket there (docker's, the user's D-Bus) is reachable",
    async () => {
      await using ws = await tmpWorkspace();
      const path = `/run/agent-run-test-${randomUUID()}.sock`;
      const socket = createNetServer();
      await new Promise<void>((resolve) => socket.listen(path, resolve));
      try {
        const probe = `/var/run/${path.slice("/run/".length)}`;
        const result = await sandboxed.execute(
          {
            command: `for p in ${path} ${probe}; do test -S $p && echo reachable || echo hidden; done; ls -A /run | wc -l`,
          },
          ctxFor(ws.root),
        );
        expect(existsSync(path)).toBe(true);
        expect(result.content).toBe("hidden\nhidden\n0\n[exit code: 0]");
      } finally {
        await new Promise((resolve) => socket.close(resolve));
      }
    },
  );

  test("/tmp is private: what a command writes there never reaches the real /tmp", async () => {
    await using ws = await tmpWorkspace();
    const name = `/tmp/agent-run-sandbox-${randomUUID()}`;

    const result = await sandboxed.execute(
      { command: `echo x > ${name} && cat ${name} && echo "$TMPDIR" && ls /tmp` },
      ctxFor(ws.root),
    );

    // The workspace (under /tmp here) is mounted on the empty /tmp, so it is all /tmp holds.
    expect(result.content).toBe(
      `x\n/tmp\n${name.slice(5)}\n${ws.root.split("/")[2]}\n[exit code: 0]`,
    );
    expect(existsSync(name)).toBe(false);
  });

  test("there is no network: a server on the host's 127.0.0.1 is unreachable", async () => {
    await using ws = await tmpWorkspace();
    const unsandboxed = createBashTool({ timeoutMs: 10_000, env });
    const command = `curl -sS --max-time 5 ${url} 2>&1 | sed 's/ after [0-9]* ms//'`;

    const outside = await unsandboxed.execute({ command }, ctxFor(ws.root));
    const inside = await sandboxed.execute({ command }, ctxFor(ws.root));

    expect(outside.content).toBe("reached\n[exit code: 0]");
    expect(inside.content).toMatch(/^curl: \(7\) Failed to connect to 127\.0\.0\.1 port \d+/);
  });

  test("a timeout kills everything the command started, setsid escapees included", async () => {
    await using ws = await tmpWorkspace();
    const quick = createBashTool({ timeoutMs: 2_000, env, sandbox: "bwrap" });
    const marker = `${30 + Math.random()}`.slice(0, 10);
    const started = Date.now();

    const result = await quick.execute(
      { command: `sleep ${marker} & setsid sleep ${marker} & echo started; sleep ${marker}` },
      ctxFor(ws.root),
    );

    expect(result).toMatchObject({
      content: "started\n[timed out after 2s; process tree killed]",
      timedOut: true,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect.poll(() => findProcesses(`sleep\0${marker}`), { timeout: 2_000 }).toEqual([]);
  });

  test("background processes die with the command instead of holding its output open", async () => {
    await using ws = await tmpWorkspace();
    const marker = `${40 + Math.random()}`.slice(0, 10);
    const started = Date.now();

    const result = await sandboxed.execute(
      { command: `setsid sleep ${marker} & echo started` },
      ctxFor(ws.root),
    );

    expect(result.content).toBe("started\n[exit code: 0]");
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect.poll(() => findProcesses(`sleep\0${marker}`), { timeout: 2_000 }).toEqual([]);
  });

  test("bubblewrap alone kills the whole sandbox when the process that started it is killed", async () => {
    await using ws = await tmpWorkspace();
    const marker = `${50 + Math.random()}`.slice(0, 10);
    const bwrapPath = assertSandboxAvailable("bwrap", env.PATH) ?? "";
    const { file, args } = buildBwrapCommand({
      bwrapPath,
      workspaceRoot: ws.root,
      shell: "/bin/bash",
      script: `sleep ${marker} & setsid sleep ${marker} & sleep ${marker}`,
    });
    // A parent that is not agent-run: no reaper, no process group kill, only --die-with-parent.
    const parent = spawn(
      process.execPath,
      [
        "-e",
        `require("node:child_process").spawn(${JSON.stringify(file)}, ${JSON.stringify(args)}, { stdio: "ignore" }); setInterval(() => {}, 1000);`,
      ],
      { stdio: "ignore" },
    );
    await expect.poll(() => findProcesses(`sleep\0${marker}`), { timeout: 5_000 }).toHaveLength(3);

    parent.kill("SIGKILL");

    await expect.poll(() => findProcesses(`sleep\0${marker}`), { timeout: 5_000 }).toEqual([]);
  });

  test("the command policy applies before the sandbox starts", async () => {
    await using ws = await tmpWorkspace();

    const result = await sandboxed.execute({ command: "sudo touch x" }, ctxFor(ws.root));

    expect(result).toEqual({
      content:
        'bash: refused by agent-run\'s built-in rule "sudo" (commands run without root; no setting turns it off). Nobody is there to ask: this run is unattended. Do the task another way, or say in your final reply that it needs this command',
      isError: true,
      isRefused: true,
    });
    expect(existsSync(ws.path("x"))).toBe(false);
  });
});
