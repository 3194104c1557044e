import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync, symlinkSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { reply } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

describe("a workspace that cannot be copied", () => {
  const isRoot = process.getuid?.() === 0;
  test.each([
    { kind: "a FIFO", inPlace: false },
    { kind: "a FIFO", inPlace: true },
    { kind: "a socket", inPlace: true },
    ...(isRoot ? [] : [{ kind: "an unreadable file", inPlace: false }]),
  ])(
    "with $kind (in place: $inPlace) costs no model call and names the file",
    async ({ kind, inPlace }) => {
      await using server = await startMockHttpServer();
      server.queue(reply().text("should never be asked"));
      await using dir = await tmpWorkspace({
        files: { "ws/a.txt": "a\n", "t.yaml": "prompt: Go.\nworkspace: ws\n" },
      });
      if (kind === "a FIFO") execFileSync("mkfifo", [dir.path("ws/odd")]);
      if (kind === "a socket") {
        execFileSync("python3", [
          "-c",
          `import socket; socket.socket(socket.AF_UNIX).bind("${dir.path("ws/odd")}")`,
        ]);
      }
      if (kind === "an unreadable file") {
        execFileSync("touch", [dir.path("ws/odd")]);
        chmodSync(dir.path("ws/odd"), 0);
      }
      const argv = [dir.path("t.yaml"), "--out", dir.path("out")];
      const run = await runCli(inPlace ? [...argv, "--in-place"] : argv, {
        env: { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: server.url },
      });

      expect(server.requests).toHaveLength(0);
      expect(run.exitCode).toBe(1);
      const summary = await readSummary(dir.path("out/t"));
      expect(summary.error).toMatch(/could not prepare the workspace: .*ws\/odd/);
    },
  );

  test("ends the task with status error and a complete transcript; no tool runs", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml":
          "- content: [{ type: tool_use, name: write_file, input: { path: b.txt, content: x } }]\n- content: [{ type: text, text: done }]\n",
        "t.yaml": "prompt: Go.\nworkspace: ws\nreplies: r.yaml\n",
      },
    });
    execFileSync("mkfifo", [dir.path("ws/pipe")]);
    const run = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("out")]);

    expect(run.exitCode).toBe(1);
    const summary = await readSummary(dir.path("out/t"));
    expect(summary).toMatchObject({
      status: "error",
      error: expect.stringMatching(/could not prepare the workspace/),
    });
    const lines = await readTranscript(dir.path("out/t"));
    expect(lines[0]).toMatchObject({ type: "system", subtype: "init" });
    expect(lines.at(-1)).toMatchObject({ type: "result", status: "error" });
    expect(lines.some((line) => line.type === "user")).toBe(false);
  });

  test("a snapshot that fails (no git on PATH) ends the task as error, runs no check and leaves no folder behind", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "tmp/.keep": "",
        "r.yaml": "- content: [{ type: text, text: Nothing to do. }]\n",
        "t.yaml":
          "prompt: Go.\nworkspace: ws\nreplies: r.yaml\nchecks:\n  - run: touch ../../check-ran\n",
      },
    });
    // A PATH that holds node and nothing else: agent-run starts, its git does not.
    symlinkSync(process.execPath, dir.path("node"));
    const run = spawnSync(
      dir.path("node"),
      [resolve("bin/agent-run.js"), "--offline", dir.path("t.yaml"), "--out", dir.path("out")],
      { env: { PATH: dir.root, HOME: dir.root, TMPDIR: dir.path("tmp") }, encoding: "utf8" },
    );

    expect(run.stderr).not.toMatch(/internal error|Unhandled|at .*\.mjs/);
    expect(run.status).toBe(1);
    const summary = await readSummary(dir.path("out/t"));
    expect(summary).toMatchObject({
      status: "error",
      error: expect.stringMatching(/could not prepare the workspace: git was not found on PATH/),
      checks: [],
    });
    expect(existsSync(dir.path("check-ran"))).toBe(false);
    expect(existsSync(dir.path("out/report.json"))).toBe(true);
    expect(readdirSync(dir.path("tmp"))).toEqual([".keep"]);
    const lines = await readTranscript(dir.path("out/t"));
    expect(lines.at(-1)).toMatchObject({ type: "result", status: "error" });
  });
});
