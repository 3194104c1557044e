import { describe, expect, test } from "vitest";
import { formatProblem, TaskFileError } from "../../src/errors.js";
import { loadTasks } from "../../src/task/load-task.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const BAD = "fixtures/bad-tasks";

async function problemsOf(files: string[]): Promise<string[]> {
  const error = await loadTasks(files).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof TaskFileError))
    throw new Error(`expected a TaskFileError, got ${String(error)}`);
  return error.problems.map(formatProblem);
}

describe("command_tools: one mistake per file in fixtures/bad-tasks", () => {
  const cases: [file: string, problem: string][] = [
    [
      "command-tool-builtin-name.yaml",
      '5:11: command_tools[0].name: "bash" is the name of a built-in tool; give the command tool another name',
    ],
    [
      "command-tool-name-with-space.yaml",
      `5:11: command_tools[0].name: expected 1 to 64 letters, digits, '_' or '-' (the API's rule for tool names), got "lookup ticket"`,
    ],
    [
      "command-tool-mcp-prefix.yaml",
      `5:11: command_tools[0].name: names starting with "mcp__" are kept for MCP servers' tools; give the command tool another name`,
    ],
    [
      "command-tool-repeated-name.yaml",
      '9:11: command_tools[1].name: "lookup" names another command tool too (command_tools[0]); give each a name of its own',
    ],
    [
      "command-tool-schema-not-object.yaml",
      `8:13: command_tools[0].input_schema.type: expected "object" (a tool's input is a JSON object), got "string"`,
    ],
    [
      "command-tool-schema-no-type.yaml",
      `8:7: command_tools[0].input_schema.type: required field is missing; a tool's input is a JSON object: write "type: object"`,
    ],
    [
      "command-tool-schema-typo.yaml",
      '9:7: command_tools[0].input_schema.propertes: does not compile: unknown keyword "propertes"; did you mean "properties"?',
    ],
    [
      "command-tool-blank-command.yaml",
      '8:14: command_tools[0].command: must not be empty; write the command to run, e.g. "node tools/x.mjs"',
    ],
    [
      "command-tool-command-denied.yaml",
      `10:14: command_tools[0].command: refused by the pattern "*curl *" in the task's bash.deny, so the tool could never run; change its command, or the pattern that refuses it`,
    ],
    [
      "command-tool-unknown-key.yaml",
      '7:5: command_tools[0].inputSchema: unknown field "inputSchema" (did you mean "input_schema"?); expected one of name, description, input_schema, command, timeout',
    ],
  ];

  test.each(cases)("%s", async (name, problem) => {
    const file = `${BAD}/${name}`;

    expect(await problemsOf([file])).toEqual([`${file}:${problem}`]);
  });
});

describe("command_tools: more mistakes", () => {
  test("each problem at its own line: a schema Ajv refuses, a built-in rule, an allow list", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "ws/a.txt": "a",
        "t.yaml": [
          "prompt: Go.",
          "workspace: ws",
          "bash:",
          '  allow: ["node *"]',
          "command_tools:",
          "  - name: a",
          "    description: A.",
          "    input_schema: { type: object, required: id }",
          "    command: node a.mjs",
          "  - name: b",
          "    description: B.",
          "    input_schema: { type: object }",
          "    command: sudo node b.mjs",
          "  - name: c",
          "    description: C.",
          "    input_schema: { type: object, properties: { n: { maximum: .inf } } }",
          "    command: python3 c.py",
          "",
        ].join("\n"),
      },
    });

    const problems = await problemsOf([ws.path("t.yaml")]);

    expect(problems.map((problem) => problem.replace(`${ws.root}/`, ""))).toEqual([
      "t.yaml:8:19: command_tools[0].input_schema: does not compile: schema is invalid: data/required must be array",
      `t.yaml:13:14: command_tools[1].command: refused by agent-run's built-in rule "sudo" (commands run without root; no setting turns it off), so the tool could never run; change its command`,
      "t.yaml:16:19: command_tools[2].input_schema: does not compile: it holds Infinity, which JSON cannot carry",
      `t.yaml:17:14: command_tools[2].command: refused by the allow list: it matches no pattern of the task's bash.allow ("node *"), so the tool could never run; change its command, or the pattern that refuses it`,
    ]);
  });

  test("the timeout defaults to bash.timeout; tools: does not limit command tools", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "ws/a.txt": "a",
        "t.yaml": [
          "prompt: Go.",
          "workspace: ws",
          "tools: [read_file]",
          "bash: { timeout: 5s }",
          "command_tools:",
          "  - { name: a, description: A., input_schema: { type: object }, command: cat }",
          "  - { name: b, description: B., input_schema: { type: object }, command: cat, timeout: 1m }",
          "",
        ].join("\n"),
      },
    });

    const [task] = await loadTasks([ws.path("t.yaml")]);

    expect(task?.tools).toEqual(["read_file"]);
    expect(task?.commandTools.map((tool) => [tool.name, tool.timeoutMs, tool.line])).toEqual([
      ["a", 5_000, 6],
      ["b", 60_000, 7],
    ]);
  });
});
