import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { PROTOCOL_ERROR_TOOL } from "../../src/model/protocol-error.js";
import { useModelServer } from "../helpers/model-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { type ReplyBuilder, reply } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const server = useModelServer();
const KEY = { ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key" };

/** A reply as `withTextProtocol` hands it to the loop: the kept text, then the parsed call. */
function textCall(line: string, name: string, input: Record<string, unknown>): ReplyBuilder {
  return reply().text(line).toolUse(name, input);
}

function malformed(line: string, error: string): ReplyBuilder {
  return textCall(line, PROTOCOL_ERROR_TOOL, { error, malformed: true });
}

async function record(root: string, ...replies: ReplyBuilder[]) {
  server.queue(...replies);
  await writeFile(join(root, "task.yaml"), "prompt: Make notes.\nworkspace: ws\n");
  const run = await runCli([join(root, "task.yaml"), "--out", join(root, "runs")], { env: KEY });
  return { run, transcript: join(root, "runs", "task", "transcript.jsonl") };
}

describe("replaying a text-protocol run (its tool_use blocks beside the raw text)", () => {
  test("bash, write_file, answer: recorded, then replayed offline with no divergence", async () => {
    await using dir = await tmpWorkspace({ files: { "ws/a.txt": "a\n" } });
    const { run, transcript } = await record(
      dir.root,
      textCall('Looking.\ntool: bash({"command":"cat a.txt"})', "bash", { command: "cat a.txt" }),
      textCall('tool: write_file({"path":"notes.txt","content":"n\\n"})', "write_file", {
        path: "notes.txt",
        content: "n\n",
      }),
      reply().text("Wrote notes.txt."),
    );
    expect(run.exitCode).toBe(0);
    const requestsBefore = server.requests.length;

    const replay = await runCli(["replay", transcript, "--out", dir.path("replays")], { env: {} });

    expect(replay.exitCode).toBe(0);
    expect(server.requests.length).toBe(requestsBefore);
    expect(replay.stderr).toContain("[task] replay: no divergence (2 steps compared)");
    expect(await readFile(dir.path("replays/task/workspace/notes.txt"), "utf8")).toBe("n\n");
    const assistant = (await readTranscript(dir.path("replays/task"))).find(
      (line) => line.type === "assistant",
    );
    expect(assistant).toMatchObject({
      message: {
        content: [
          { type: "text", text: 'Looking.\ntool: bash({"command":"cat a.txt"})' },
          { type: "tool_use", name: "bash", input: { command: "cat a.txt" } },
        ],
      },
    });
  });

  test("3 malformed calls end with protocol_error (exit 1), recorded and replayed alike", async () => {
    await using dir = await tmpWorkspace({ files: { "ws/a.txt": "a\n" } });
    const { run, transcript } = await record(
      dir.root,
      malformed("tool: bash(ls)", "no JSON object"),
      malformed("tool: bsh({})", "unknown tool bsh; did you mean bash?"),
      malformed('tool: bash({"command":', "never closed"),
      reply().text("never served"),
    );
    expect(run.exitCode).toBe(1);
    expect(await readSummary(dir.path("runs/task"))).toMatchObject({
      status: "protocol_error",
      steps: 3,
    });
    const lines = await readTranscript(dir.path("runs/task"));
    expect(lines.at(-1)).toMatchObject({
      type: "result",
      status: "protocol_error",
      terminal_reason: "malformed_tool_use_exhausted",
    });
    const results = lines.filter((line) => line.type === "user");
    expect(results.map((line) => line.tool_name)).toEqual([
      PROTOCOL_ERROR_TOOL,
      PROTOCOL_ERROR_TOOL,
      PROTOCOL_ERROR_TOOL,
    ]);
    expect(JSON.stringify(results[1])).toContain("did you mean bash?");

    const replay = await runCli(["replay", transcript, "--out", dir.path("replays")], { env: {} });

    expect(replay.stderr).toContain("[task] replay: no divergence (3 steps compared)");
    expect(await readSummary(dir.path("replays/task"))).toMatchObject({
      status: "protocol_error",
      steps: 3,
    });
  });
});
