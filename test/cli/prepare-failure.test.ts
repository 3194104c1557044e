import { execFileSync } from "node:child_process";
import { describe, expect, test } from "vitest";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

describe("a workspace that cannot be copied", () => {
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
});
