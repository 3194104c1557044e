import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runnerOutputs } from "../helpers/github-runner.js";
import { useModelServer } from "../helpers/model-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { reply } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

// Issue 18 §3, as a user meets it: a task with output_schema run by the CLI against the (msw-mocked)
// Messages API; the first final reply is invalid and goes back with its problems, the second lands
// in the result line, summary.json, output.json and the GitHub step outputs; or the retries run
// out (invalid_output). Then each run replayed offline, ending the same way.

const server = useModelServer();

/** A summary with every character a step output or a JSON file could trip on. */
const HOSTILE_SUMMARY =
  'Crashes on Save.\nline 2 <<EOF =x ::error::pwned %0A \u2028 "quoted" \\ back\r\nEOF';

/** A valid reply's JSON, with a `__proto__` member that must stay a member. */
const VALID_JSON = `{"__proto__": {"polluted": true}, "label": "bug", "summary": ${JSON.stringify(HOSTILE_SUMMARY)}}`;

const TASK = `name: classify
prompt: Read issue.md and classify it.
workspace: ws
output_schema:
  type: object
  properties:
    label: { enum: [bug, feature, question] }
    summary: { type: string }
  required: [label, summary]
output_retries: 1
checks:
  - output_equals: { pointer: /label, value: bug }
`;

let dir: TmpWorkspace;
beforeEach(async () => {
  dir = await tmpWorkspace({
    files: {
      "ws/issue.md": "The app crashes when I click Save.\n",
      "classify.yaml": TASK,
      "github-output.txt": "",
    },
  });
});
afterEach(async () => {
  await dir[Symbol.asyncDispose]();
});

/** Runs the task under GitHub Actions' variables against the queued replies. */
async function run(task = TASK) {
  await writeFile(dir.path("classify.yaml"), task);
  return runCli([dir.path("classify.yaml"), "--out", dir.path("out")], {
    env: {
      ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key",
      GITHUB_ACTIONS: "true",
      GITHUB_OUTPUT: dir.path("github-output.txt"),
    },
  });
}

/** Replays the run offline; the replayed summary and the divergence line. */
async function replay() {
  const replayed = await runCli([
    "replay",
    "--strict",
    dir.path("out/classify"),
    "--out",
    dir.path("replays"),
  ]);
  return {
    exitCode: replayed.exitCode,
    divergence: replayed.stderr.split("\n").find((line) => line.startsWith("[classify] replay:")),
    summary: await readSummary(dir.path("replays/classify")),
  };
}

/** The request's messages, as the model got them. */
function messagesOf(index: number): Array<{ role: string; content: unknown }> {
  return (server.requests[index]?.messages ?? []) as Array<{ role: string; content: unknown }>;
}

describe("a task with output_schema (Messages API)", () => {
  test("an invalid final reply goes back with its problems; the valid one is recorded everywhere, and replays", async () => {
    server.queue(
      reply().text("Reading it.").toolUse("read_file", { path: "issue.md" }),
      reply().text('{"label": "crash", "summary": 3}'),
      reply().text(`Here it is:\n\`\`\`json\n${VALID_JSON}\n\`\`\``),
    );

    const result = await run();

    expect(result.exitCode, result.stderr).toBe(0);
    const value: unknown = JSON.parse(VALID_JSON);
    // The model was told the schema, then the problems of its reply.
    expect(JSON.stringify(server.requests[0]?.system)).toContain(
      '{\\"type\\":\\"object\\",\\"properties\\":{\\"label\\":{\\"enum\\":[\\"bug\\",\\"feature\\",\\"question\\"]}',
    );
    const retry = JSON.stringify(messagesOf(2).at(-1));
    expect(retry).toContain(
      'it does not match output_schema: /label: must be equal to one of the allowed values (\\"bug\\", \\"feature\\", \\"question\\"); /summary: must be string',
    );
    const lines = await readTranscript(dir.path("out/classify"));
    const result_ = lines.at(-1);
    expect(result_).toMatchObject({ type: "result", subtype: "success", status: "completed" });
    expect(result_?.structured_output).toEqual(value);
    expect(
      lines.filter((line) => line.type === "user" && line.tool_name === undefined),
    ).toHaveLength(1);
    const summary = await readSummary(dir.path("out/classify"));
    expect(summary).toMatchObject({ status: "completed", passed: true, steps: 3 });
    expect(summary.structured_output).toEqual(value);
    expect(Object.keys(summary.structured_output ?? {})).toEqual(["__proto__", "label", "summary"]);
    expect(summary.checks).toMatchObject([
      { kind: "output_equals", passed: true, message: `the output's /label is "bug"` },
    ]);
    const file = await readFile(dir.path("out/classify/output.json"), "utf8");
    expect(file).toBe(`${JSON.stringify(value, null, 2)}\n`);
    expect(Object.keys(JSON.parse(file))).toEqual(["__proto__", "label", "summary"]);
    const outputs = runnerOutputs(await readFile(dir.path("github-output.txt"), "utf8"));
    expect(JSON.parse(outputs.get("structured_output") ?? "")).toEqual({ classify: value });
    expect(outputs.get("passed")).toBe("1");

    const replayed = await replay();
    expect(replayed.exitCode).toBe(0);
    expect(replayed.divergence).toBe("[classify] replay: no divergence (1 step compared)");
    expect(replayed.summary).toMatchObject({ status: "completed", steps: 3 });
    expect(replayed.summary.structured_output).toEqual(value);
    expect(existsSync(dir.path("replays/classify/output.json"))).toBe(true);
  });

  test("past output_retries the run ends invalid_output (exit 1), with no output anywhere, and replays so", async () => {
    server.queue(reply().text("It is a bug."), reply().text('{"label": "bug"}'));

    const result = await run();

    expect(result.exitCode).toBe(1);
    const lines = await readTranscript(dir.path("out/classify"));
    expect(lines.at(-1)).toMatchObject({
      subtype: "error_max_structured_output_retries",
      status: "invalid_output",
      is_error: true,
      terminal_reason: "structured_output_retry_exhausted",
      errors: [
        "the final reply is not valid against output_schema after 1 retry (output_retries): it does not match output_schema: (the object): must have required property 'summary'",
      ],
    });
    expect(lines.at(-1)).not.toHaveProperty("structured_output");
    const retry = JSON.stringify(messagesOf(1).at(-1));
    expect(retry).toContain("it holds no JSON object (the whole reply, or a ```json block)");
    const summary = await readSummary(dir.path("out/classify"));
    expect(summary).toMatchObject({ status: "invalid_output", passed: false });
    expect(summary).not.toHaveProperty("structured_output");
    expect(summary.checks).toMatchObject([
      {
        passed: false,
        message: "the run has no structured output (no final reply valid against output_schema)",
      },
    ]);
    expect(existsSync(dir.path("out/classify/output.json"))).toBe(false);
    const outputs = runnerOutputs(await readFile(dir.path("github-output.txt"), "utf8"));
    expect([outputs.has("structured_output"), outputs.get("failed")]).toEqual([false, "1"]);
    expect(result.stdout).toMatch(/^\| classify +\| invalid_output \| no /m);

    const replayed = await replay();
    expect(replayed.exitCode).toBe(1);
    expect(replayed.divergence).toBe("[classify] replay: no divergence (0 steps compared)");
    expect(replayed.summary).toMatchObject({ status: "invalid_output", steps: 2 });
  });

  test("resume: a run stopped between retries goes on with the retries it had left", async () => {
    server.queue(reply().text("It is a bug."), reply().text('{"label": "bug"}'));
    const stopped = await run(
      TASK.replace("output_retries: 1", "output_retries: 2\nlimits: { max_steps: 2 }"),
    );
    expect(stopped.exitCode).toBe(1);
    server.queue(reply().text('{"label": "bug", "summary": "Crashes on Save."}'));

    const resumed = await runCli(["resume", dir.path("out/classify"), "--max-steps", "5"], {
      env: { ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key" },
    });

    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(server.requests).toHaveLength(3);
    expect(JSON.stringify(messagesOf(2).at(-1))).toContain(
      "(the object): must have required property 'summary'",
    );
    expect(await readSummary(dir.path("out/classify"))).toMatchObject({
      status: "completed",
      steps: 3,
      structured_output: { label: "bug", summary: "Crashes on Save." },
      origin: { kind: "resume", steps: 2 },
    });
  });

  test("a secret the model puts in its object is redacted from every copy of it", async () => {
    const secret = "tok-4f9a1c77e2d04b8b";
    server.queue(reply().text(JSON.stringify({ label: "bug", summary: `key ${secret}` })));
    await writeFile(dir.path("classify.yaml"), TASK);

    const result = await runCli([dir.path("classify.yaml"), "--out", dir.path("out")], {
      env: {
        ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key",
        DEPLOY_TOKEN: secret,
        GITHUB_ACTIONS: "true",
        GITHUB_OUTPUT: dir.path("github-output.txt"),
      },
    });

    expect(result.exitCode, result.stderr).toBe(0);
    const files = ["output.json", "summary.json", "transcript.jsonl"].map((name) =>
      readFile(dir.path(`out/classify/${name}`), "utf8"),
    );
    const texts = [
      ...(await Promise.all(files)),
      await readFile(dir.path("github-output.txt"), "utf8"),
    ];
    expect(texts.filter((text) => text.includes(secret))).toEqual([]);
    expect(texts.every((text) => text.includes("key [REDACTED]"))).toBe(true);
  });

  test("output_equals fails on a valid output that holds another value, saying what it holds", async () => {
    server.queue(reply().text('{"label": "feature", "summary": "Add dark mode."}'));

    const result = await run();

    expect(result.exitCode).toBe(1);
    const summary = await readSummary(dir.path("out/classify"));
    expect(summary).toMatchObject({
      status: "completed",
      passed: false,
      structured_output: { label: "feature", summary: "Add dark mode." },
    });
    expect(summary.checks).toMatchObject([
      { passed: false, message: `the output's /label is "feature", not "bug"`, line: 12 },
    ]);
    expect(result.stderr).toContain(
      `::error file=${dir.path("classify.yaml")},line=12,title=agent-run%3A classify%3A check failed::output_equals: /label = "bug": the output's /label is "feature", not "bug"`,
    );
  });

  test("the text tool protocol: the schema in the system prompt, the retry as a user message", async () => {
    server.queue(
      reply().text('tool: read_file({"path":"issue.md"})'),
      reply().text("label: bug"),
      reply().text('{"label": "bug", "summary": "Crashes on Save."}'),
    );

    const result = await run(`${TASK}tool_protocol: text\n`);

    expect(result.exitCode, result.stderr).toBe(0);
    expect(server.requests[0]?.tools ?? []).toEqual([]);
    const system = JSON.stringify(server.requests[0]?.system);
    expect(system).toContain("# Final reply: a JSON object");
    expect(system).toContain("tool: TOOL_NAME({JSON_ARGS})");
    expect(JSON.stringify(messagesOf(2).at(-1))).toContain(
      "Your final reply is not the JSON object this task asks for: it holds no JSON object",
    );
    const summary = await readSummary(dir.path("out/classify"));
    expect(summary.structured_output).toEqual({ label: "bug", summary: "Crashes on Save." });
    const replayed = await replay();
    expect([replayed.exitCode, replayed.divergence]).toEqual([
      0,
      "[classify] replay: no divergence (1 step compared)",
    ]);
  });
});
