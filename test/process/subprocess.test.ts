import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SpawnHelper } from "../../src/process/spawn-helper.js";
import {
  type Subprocess,
  type SubprocessOptions,
  startDirectly,
} from "../../src/process/subprocess.js";
import { isRunning, readPidFile } from "../helpers/processes.js";

const env = { PATH: process.env.PATH ?? "" };

let helper: SpawnHelper;
let dir: string;

beforeAll(async () => {
  const launched = SpawnHelper.launch();
  if (launched === undefined) throw new Error("the spawn helper did not launch");
  helper = launched;
  expect(await helper.whenReady()).toBe(true);
  dir = await mkdtemp(join(tmpdir(), "agent-run-subprocess-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function collect(stream: Readable): () => Buffer {
  const chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  return () => Buffer.concat(chunks);
}

function startInHelper(options: SubprocessOptions): Subprocess {
  const subprocess = helper.start(options);
  if (subprocess === undefined) throw new Error("the helper declined");
  return subprocess;
}

const ways: [string, (options: SubprocessOptions) => Subprocess][] = [
  ["through the spawn helper", startInHelper],
  ["directly", startDirectly],
];

describe.each(ways)("a subprocess started %s", (_, start) => {
  it("gives its stdout and stderr as exact bytes, and its exit code", async () => {
    const subprocess = start({
      file: "sh",
      args: ["-c", "printf 'a\\000\\377'; printf oops >&2; exit 3"],
      env,
    });
    const stdout = collect(subprocess.stdout);
    const stderr = collect(subprocess.stderr);

    expect(await subprocess.started).toBeGreaterThan(0);
    expect(await subprocess.closed).toEqual({ exitCode: 3, signal: null });
    expect([...stdout()]).toEqual([97, 0, 255]);
    expect(stderr().toString()).toBe("oops");
  });

  it("passes the input on stdin, and runs in the given folder with only the given environment", async () => {
    const subprocess = start({
      file: "sh",
      args: ["-c", "cat; pwd; env"],
      cwd: dir,
      env: { ...env, ONLY_THIS: "1" },
      input: Buffer.from([0, 1, 255, 10]),
    });
    const stdout = collect(subprocess.stdout);
    await subprocess.closed;

    const lines = stdout().subarray(4).toString().trim().split("\n");
    expect([...stdout().subarray(0, 4)]).toEqual([0, 1, 255, 10]);
    expect(lines[0]).toBe(dir);
    expect(lines.slice(1).sort()).toEqual(
      expect.arrayContaining(["ONLY_THIS=1", `PATH=${env.PATH}`]),
    );
    expect(lines.some((line) => line.startsWith("ANTHROPIC_") || line.startsWith("NODE_"))).toBe(
      false,
    );
  });

  it("keeps long output whole and in order", async () => {
    const subprocess = start({ file: "seq", args: ["1", "100000"], env });
    const stdout = collect(subprocess.stdout);
    await subprocess.closed;

    const numbers = stdout().toString().trim().split("\n");
    expect(numbers).toHaveLength(100_000);
    expect(numbers.every((line, index) => line === String(index + 1))).toBe(true);
  });

  it("rejects `started` with ENOENT for a missing command or folder", async () => {
    const missingCommand = start({ file: "agent-run-no-such-command", args: [], env });
    const missingFolder = start({ file: "sh", args: ["-c", "true"], cwd: join(dir, "no"), env });

    await expect(missingCommand.started).rejects.toMatchObject({ code: "ENOENT" });
    await expect(missingFolder.started).rejects.toMatchObject({ code: "ENOENT" });
    expect((await missingCommand.closed).error?.message).toMatch(/ENOENT/);
  });

  it("reports a failed start for arguments node refuses", async () => {
    const subprocess = start({ file: "sh", args: ["-c", "echo a\0b"], env });

    await expect(subprocess.started).rejects.toThrow(/null bytes/);
    expect((await subprocess.exited).error).toBeInstanceOf(Error);
  });

  it("kill() signals the process", async () => {
    const subprocess = start({ file: "sleep", args: ["30"], env });
    await subprocess.started;

    subprocess.kill("SIGKILL");

    expect(await subprocess.closed).toEqual({ exitCode: null, signal: "SIGKILL" });
  });

  it("detached: leads a new process group, which one kill ends", async () => {
    const pidFile = join(dir, `group-${start === startDirectly ? "d" : "h"}.pid`);
    const subprocess = start({
      file: "sh",
      args: ["-c", `sleep 30 & echo $! > ${pidFile}; wait`],
      env,
      detached: true,
    });
    const pid = await subprocess.started;
    const background = await readPidFile(pidFile);

    process.kill(-pid, "SIGKILL");

    expect((await subprocess.closed).signal).toBe("SIGKILL");
    await vi.waitFor(async () => expect(await isRunning(background)).toBe(false));
  });

  it("passes on output that comes after the shell exited, from a process it left behind", async () => {
    const pidFile = join(dir, `late-${start === startDirectly ? "d" : "h"}.pid`);
    const subprocess = start({
      file: "sh",
      args: [
        "-c",
        `setsid sh -c 'sleep 0.1; echo late; sleep 30' & echo $! > ${pidFile}; echo first`,
      ],
      env,
      detached: true,
    });
    const stdout = collect(subprocess.stdout);
    await subprocess.started;
    await subprocess.exited;
    const holder = await readPidFile(pidFile);

    await vi.waitFor(() => expect(stdout().toString()).toBe("first\nlate\n"));
    subprocess.stdout.destroy();
    subprocess.stderr.destroy();
    expect(await subprocess.closed).toEqual({ exitCode: 0, signal: null });
    process.kill(holder, "SIGKILL");
  });

  it("exits before its output closes while a background process holds it; destroying the output closes it", async () => {
    const pidFile = join(dir, `holder-${start === startDirectly ? "d" : "h"}.pid`);
    const subprocess = start({
      file: "sh",
      args: ["-c", `(echo late; sleep 30) & echo $! > ${pidFile}; echo first`],
      env,
      detached: true,
    });
    const stdout = collect(subprocess.stdout);
    const pid = await subprocess.started;

    expect(await subprocess.exited).toEqual({ exitCode: 0, signal: null });
    subprocess.stdout.destroy();
    subprocess.stderr.destroy();

    expect(await subprocess.closed).toEqual({ exitCode: 0, signal: null });
    expect(stdout().toString()).toContain("first");
    process.kill(-pid, "SIGKILL");
  });
});

describe("SpawnHelper", () => {
  it("once it is gone, kills what it ran, ends it with an error, and declines new commands", async () => {
    const own = SpawnHelper.launch();
    if (own === undefined) throw new Error("the spawn helper did not launch");
    expect(await own.whenReady()).toBe(true);
    const pidFile = join(dir, "lost.pid");
    const subprocess = own.start({
      file: "sh",
      args: ["-c", `echo $$ > ${pidFile}; sleep 30`],
      env,
      detached: true,
    });
    if (subprocess === undefined) throw new Error("the helper declined");
    await subprocess.started;
    const pid = await readPidFile(pidFile);
    const helperPid = await findHelperPid(pid);

    process.kill(helperPid, "SIGKILL");

    expect((await subprocess.closed).error?.message).toMatch(/spawn helper stopped/);
    await vi.waitFor(async () => expect(await isRunning(pid)).toBe(false));
    expect(own.isReady).toBe(false);
    expect(own.start({ file: "true", args: [], env })).toBeUndefined();
  });

  it("ignores the signals a terminal sends to the whole process group", async () => {
    const pid = helper.pid ?? 0;
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.kill(pid, signal);
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(helper.isReady).toBe(true);
    const subprocess = startInHelper({ file: "echo", args: ["still here"], env });
    const stdout = collect(subprocess.stdout);
    expect(await subprocess.closed).toEqual({ exitCode: 0, signal: null });
    expect(stdout().toString()).toBe("still here\n");
  });

  it("passes a flood of output on whole", async () => {
    const subprocess = startInHelper({ file: "head", args: ["-c", "20000000", "/dev/zero"], env });
    let bytes = 0;
    subprocess.stdout.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });

    expect(await subprocess.closed).toEqual({ exitCode: 0, signal: null });
    expect(bytes).toBe(20_000_000);
  });

  it("sharedSpawnHelper launches one, and another while every ready one is busy starting commands", async () => {
    vi.resetModules();
    const { sharedSpawnHelper, useSpawnHelpers } = await import(
      "../../src/process/spawn-helper.js"
    );
    const before = await countHelpers();

    expect(sharedSpawnHelper()).toBeUndefined();
    expect(await countHelpers()).toBe(before);
    useSpawnHelpers();
    expect(sharedSpawnHelper()).toBeUndefined();
    const first = await vi.waitFor(() => {
      const ready = sharedSpawnHelper();
      if (ready === undefined) throw new Error("not ready yet");
      return ready;
    });
    expect(await countHelpers()).toBe(before + 1);
    const subprocess = first.start({ file: "true", args: [], env });
    expect(first.startingCount).toBe(1);

    expect(sharedSpawnHelper()).toBe(first);
    expect(await countHelpers()).toBe(before + (availableParallelism() >= 2 ? 2 : 1));
    await subprocess?.closed;
    expect(first.startingCount).toBe(0);
  });

  it("is not used when AGENT_RUN_SPAWN_HELPER=0, even when asked for", async () => {
    vi.stubEnv("AGENT_RUN_SPAWN_HELPER", "0");
    vi.resetModules();
    try {
      const { sharedSpawnHelper, useSpawnHelpers } = await import(
        "../../src/process/spawn-helper.js"
      );
      const before = await countHelpers();
      useSpawnHelpers();
      expect(sharedSpawnHelper()).toBeUndefined();
      expect(await countHelpers()).toBe(before);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("is used without being asked for when AGENT_RUN_SPAWN_HELPER=1", async () => {
    vi.stubEnv("AGENT_RUN_SPAWN_HELPER", "1");
    vi.resetModules();
    try {
      const { sharedSpawnHelper } = await import("../../src/process/spawn-helper.js");
      sharedSpawnHelper();
      await vi.waitFor(() => expect(sharedSpawnHelper()).toBeDefined());
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

/** How many spawn helpers this process has (children running `node -e`). */
async function countHelpers(): Promise<number> {
  const { readFile } = await import("node:fs/promises");
  const children = (await readFile(`/proc/${process.pid}/task/${process.pid}/children`, "utf8"))
    .trim()
    .split(" ")
    .filter(Boolean);
  let count = 0;
  for (const child of children) {
    const argv = (await readFile(`/proc/${child}/cmdline`, "utf8").catch(() => "")).split("\0");
    if (argv[0] === process.execPath && argv.includes("-e")) count += 1;
  }
  return count;
}

/** The parent of `pid`: the helper that started it. */
async function findHelperPid(pid: number): Promise<number> {
  const { readFile } = await import("node:fs/promises");
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (in parentheses): state, ppid, ...
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[1]);
}
