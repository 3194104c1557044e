import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { HOSTILE_TOOL_INPUT, stdinBytesOf } from "../helpers/hostile-tool-input.js";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { useModelServer } from "../helpers/model-server.js";
import { readTranscript } from "../helpers/outputs.js";
import { reply } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { spawnCli } from "../helpers/spawn-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

// Issue 17 §3: a task's command tools in a whole run, against the (msw-mocked) Messages API, with
// the model sending hostile input; then that run replayed offline.

const server = useModelServer();
const KEY = { ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key" };

/** Stores its input byte for byte and says how much it got: what a careless shell would not do. */
const ECHO_INPUT = `import { readFileSync, writeFileSync } from "node:fs";
const bytes = readFileSync(0);
writeFileSync("received.json", bytes);
console.log(\`received \${bytes.length} bytes: \${Object.keys(JSON.parse(bytes)).length} fields\`);
`;

const TASK = `prompt: Store the input.
workspace: ws
tools: [read_file]
command_tools:
  - name: store_input
    description: Stores its input in received.json.
    input_schema:
      type: object
      properties: { id: { type: string } }
      required: [id]
    command: node tools/echo-input.mjs
    timeout: 20s
`;

type UserLine = { type: string; tool_name?: string; exit_code?: number | null };

describe("command tools in a run, and its replay", () => {
  test("hostile input reaches the command byte for byte, runs nothing, and replays without divergence", async () => {
    await using dir = await tmpWorkspace({
      files: { "ws/tools/echo-input.mjs": ECHO_INPUT, "ws/x/keep.txt": "keep", "t.yaml": TASK },
    });
    server.queue(
      reply().toolUse("store_input", { ...HOSTILE_TOOL_INPUT }),
      reply().toolUse("store_input", { id: 42 }),
      reply().text("Stored."),
    );

    const run = await runCli([dir.path("t.yaml"), "--out", dir.path("out")], { env: KEY });

    expect(run.exitCode, run.stderr).toBe(0);
    const workspace = dir.path("out/t/workspace");
    expect(await readFile(`${workspace}/received.json`)).toEqual(stdinBytesOf(HOSTILE_TOOL_INPUT));
    expect(existsSync(`${workspace}/pwned`)).toBe(false);
    expect(existsSync(`${workspace}/x/keep.txt`)).toBe(true);
    const first = server.requests[0] as { tools: Array<{ name: string; input_schema: unknown }> };
    expect(first.tools.map((tool) => tool.name)).toEqual(["read_file", "store_input"]);
    expect(first.tools[1]?.input_schema).toEqual({
      type: "object",
      properties: { id: { type: "string" } },
      required: ["id"],
    });
    const results = (server.requests.slice(1) as Array<{ messages: Array<{ content: unknown }> }>)
      .map((request) => request.messages.at(-1)?.content)
      .map((content) => (content as Array<{ content: string; is_error?: boolean }>)[0]);
    expect(results).toEqual([
      expect.objectContaining({ content: "received 465 bytes: 7 fields\n[exit code: 0]" }),
      expect.objectContaining({
        content:
          "store_input: input/id must be string; re-send the call with input that fits the tool's input_schema.",
        is_error: true,
      }),
    ]);
    expect(stdinBytesOf(HOSTILE_TOOL_INPUT).length).toBe(465);

    const lines = await readTranscript(dir.path("out/t"));
    expect(lines[0]).toMatchObject({
      tools: ["read_file", "store_input"],
      task: {
        tools: ["read_file"],
        command_tools: [
          {
            name: "store_input",
            command: "node tools/echo-input.mjs",
            timeout_ms: 20_000,
            line: 5,
          },
        ],
      },
    });
    const toolLines = lines.filter((line): line is UserLine & typeof line => line.type === "user");
    expect(toolLines.map((line) => [line.tool_name, line.exit_code])).toEqual([
      ["store_input", 0],
      ["store_input", undefined],
    ]);

    const replay = await runCli([
      "replay",
      dir.path("out/t/transcript.jsonl"),
      "-o",
      dir.path("replayed"),
      "--strict",
    ]);

    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stderr).toMatch(/replay: no divergence/);
    expect(server.requests).toHaveLength(3);
    expect(await readFile(dir.path("replayed/t/workspace/received.json"))).toEqual(
      stdinBytesOf(HOSTILE_TOOL_INPUT),
    );
    expect(existsSync(dir.path("replayed/t/workspace/pwned"))).toBe(false);
  });

  test("the built binary (a spawned CLI, the API on 127.0.0.1) does the same, and replays it", async () => {
    await using dir = await tmpWorkspace({
      files: { "ws/tools/echo-input.mjs": ECHO_INPUT, "t.yaml": TASK },
    });
    await using api = await startMockHttpServer();
    api.queue(reply().toolUse("store_input", { ...HOSTILE_TOOL_INPUT }), reply().text("Stored."));

    const run = await spawnCli([dir.path("t.yaml"), "--out", dir.path("out")], {
      ANTHROPIC_API_KEY: "sk-test",
      ANTHROPIC_BASE_URL: api.url,
    });
    const replay = await spawnCli(
      ["replay", dir.path("out/t/transcript.jsonl"), "-o", dir.path("replayed"), "--strict"],
      {},
    );

    expect([run.code, replay.code], `${run.stderr}\n${replay.stderr}`).toEqual([0, 0]);
    expect(replay.stderr).toMatch(/replay: no divergence/);
    for (const folder of ["out", "replayed"]) {
      const workspace = dir.path(`${folder}/t/workspace`);
      expect(await readFile(`${workspace}/received.json`)).toEqual(
        stdinBytesOf(HOSTILE_TOOL_INPUT),
      );
      expect(existsSync(`${workspace}/pwned`)).toBe(false);
    }
  });
});
