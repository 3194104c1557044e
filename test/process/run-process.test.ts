import { describe, expect, it } from "vitest";
import { ProcessError, runProcess, startCommand } from "../../src/process/run-process.js";

const env = { PATH: process.env.PATH ?? "" };

describe("runProcess", () => {
  it("passes the input on stdin and returns stdout as bytes", async () => {
    const stdout = await runProcess("cat", [], {
      env,
      input: Buffer.from([0, 1, 255]),
      maxOutputBytes: 100,
    });

    expect([...stdout]).toEqual([0, 1, 255]);
  });

  it("fails with the exit code and what the command printed on stderr", async () => {
    const result = runProcess("sh", ["-c", "echo partial; echo oops >&2; exit 3"], {
      env,
      maxOutputBytes: 100,
    });

    await expect(result).rejects.toThrow(ProcessError);
    await expect(result).rejects.toMatchObject({
      message: "exit code 3",
      stderr: Buffer.from("oops\n"),
      code: undefined,
    });
  });

  it("fails with ENOENT for a command that is not on PATH", async () => {
    const result = runProcess("agent-run-no-such-command", [], { env, maxOutputBytes: 100 });

    await expect(result).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("stops a command whose output grows past the limit", async () => {
    const result = runProcess("sh", ["-c", "while :; do echo yes; done"], {
      env,
      maxOutputBytes: 64 * 1024,
    });

    await expect(result).rejects.toThrow(/output larger than 65536 bytes/);
  });

  it("runs in the given folder", async () => {
    const stdout = await runProcess("pwd", [], { env, cwd: "/", maxOutputBytes: 100 });

    expect(stdout.toString()).toBe("/\n");
  });
});

describe("startCommand", () => {
  it("writes the input on stdin and fd3's bytes on descriptor 3, both at once", async () => {
    const started = startCommand("sh", ["-c", "cat; echo; cat <&3"], {
      env,
      detached: false,
      input: '{"a":"$(x)"}',
      fd3: Buffer.from("from fd3\n"),
    });
    const chunks: Buffer[] = [];
    started.output[0]?.on("data", (chunk: Buffer) => chunks.push(chunk));

    const end = await started.ended;

    expect(end).toEqual({ exitCode: 0, signal: null });
    expect(Buffer.concat(chunks).toString()).toBe('{"a":"$(x)"}\nfrom fd3\n');
  });

  it("reports the exit code of a command that leaves a large input unread", async () => {
    const started = startCommand("sh", ["-c", "exit 3"], {
      env,
      detached: false,
      input: new Uint8Array(4_000_000),
    });

    expect(await started.ended).toEqual({ exitCode: 3, signal: null });
  });
});
