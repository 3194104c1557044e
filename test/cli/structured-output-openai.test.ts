import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import {
  callDelta,
  chunk,
  OPENAI_TEST_BASE_URL,
  textReply,
  useOpenAIServer,
} from "../helpers/openai-chunks.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

// Issue 18 §3 over OpenAI-format chat completions (msw in-process): the final reply's JSON arrives
// in streamed content deltas; an invalid one goes back as a user message.

const server = useOpenAIServer();

const TASK = `prompt: Read issue.md and classify it.
workspace: ws
model: gpt-test
provider: { name: openai-compatible, base_url: ${OPENAI_TEST_BASE_URL} }
output_schema:
  $schema: https://json-schema.org/draft/2020-12/schema
  type: object
  properties:
    label: { enum: [bug, feature, question] }
    tags: { type: array, prefixItems: [{ type: string }], items: false }
  required: [label]
  additionalProperties: false
checks:
  - output_equals: { pointer: /tags/0, value: crash }
`;

describe("a task with output_schema on an OpenAI-format provider", () => {
  test("the streamed JSON is judged whole: the invalid reply's problems go back, the valid one is recorded", async () => {
    await using dir = await tmpWorkspace({
      files: { "ws/issue.md": "Crashes on Save.\n", "t.yaml": TASK },
    });
    server.queue(
      [
        chunk(
          callDelta({ index: 0, id: "call_1", name: "read_file", args: '{"path":"issue.md"}' }),
        ),
        chunk({}, "tool_calls"),
      ],
      textReply('{"label": "bug", "tags": ["crash", "save"]}'),
      [
        chunk({ role: "assistant", content: '{"label": ' }),
        chunk({ content: '"bug", "tags": ["cr' }),
        chunk({ content: 'ash"]}' }),
        chunk({}, "stop"),
      ],
    );

    const run = await runCli([dir.path("t.yaml"), "--out", dir.path("out")], {
      env: { OPENAI_API_KEY: "sk-test-not-a-real-key" },
    });

    expect(run.exitCode, run.stderr).toBe(0);
    const messages = server.requests[2]?.messages as Array<{ role: string; content: unknown }>;
    expect(messages.at(-1)).toEqual({
      role: "user",
      content: expect.stringContaining(
        "it does not match output_schema: /tags: must NOT have more than 1 items",
      ),
    });
    const system = JSON.stringify(server.requests[0]?.messages);
    expect(system).toContain("# Final reply: a JSON object");
    const lines = await readTranscript(dir.path("out/t"));
    expect(lines.at(-1)).toMatchObject({
      status: "completed",
      structured_output: { label: "bug", tags: ["crash"] },
    });
    expect(await readSummary(dir.path("out/t"))).toMatchObject({
      passed: true,
      structured_output: { label: "bug", tags: ["crash"] },
      checks: [{ kind: "output_equals", passed: true }],
    });
    expect(JSON.parse(await readFile(dir.path("out/t/output.json"), "utf8"))).toEqual({
      label: "bug",
      tags: ["crash"],
    });

    const replay = await runCli(["replay", "--strict", dir.path("out/t"), "-o", dir.path("re")]);
    expect([replay.exitCode, server.requests.length]).toEqual([0, 3]);
    expect(replay.stderr).toContain("[t] replay: no divergence (1 step compared)");
    expect(await readSummary(dir.path("re/t"))).toMatchObject({
      status: "completed",
      structured_output: { label: "bug", tags: ["crash"] },
    });
  });
});
