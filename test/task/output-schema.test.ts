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

describe("output_schema, output_retries and output_equals: one mistake per file", () => {
  const cases: [file: string, problem: string][] = [
    [
      "output-schema-typo.yaml",
      '6:3: output_schema.propertes: does not compile: unknown keyword "propertes"; did you mean "properties"?',
    ],
    [
      "output-schema-not-object.yaml",
      '5:9: output_schema.type: expected "object" (the final reply is a JSON object), got "array"',
    ],
    [
      "output-schema-is-a-string.yaml",
      '4:16: output_schema: expected a mapping, got "{ label: string }"; put its fields on indented lines below it',
    ],
    [
      "output-schema-draft-04.yaml",
      '5:3: output_schema: does not compile: $schema "http://json-schema.org/draft-04/schema#" is not a draft agent-run checks; name draft-07 (http://json-schema.org/draft-07/schema#) or 2020-12 (https://json-schema.org/draft/2020-12/schema), or leave $schema out for draft-07',
    ],
    [
      "output-retries-too-many.yaml",
      "5:17: output_retries: expected a whole number from 0 to 10, got 50",
    ],
    [
      "output-retries-without-schema.yaml",
      "4:1: output_retries: bounds the retries of output_schema, which this task does not have; add one",
    ],
    [
      "check-output-equals-bad-pointer.yaml",
      '6:31: checks[0].output_equals.pointer: expected a JSON Pointer (RFC 6901) such as "/label" or "/items/0/name" ("" for the whole output; "~" written as "~0", a "/" inside a name as "~1"), got "label"; start it with "/"',
    ],
    [
      "check-output-equals-bad-escape.yaml",
      '6:31: checks[0].output_equals.pointer: expected a JSON Pointer (RFC 6901) such as "/label" or "/items/0/name" ("" for the whole output; "~" written as "~0", a "/" inside a name as "~1"), got "/a~b"; a "~" must be followed by 0 or 1',
    ],
    [
      "check-output-equals-no-value.yaml",
      "6:20: checks[0].output_equals.value: required field is missing; write the value the output must hold there",
    ],
    [
      "check-output-equals-without-schema.yaml",
      "5:20: checks[0].output_equals: checks the structured output, which only a task with output_schema has; add output_schema",
    ],
  ];

  test.each(cases)("%s", async (name, problem) => {
    const file = `${BAD}/${name}`;

    expect(await problemsOf([file])).toEqual([`${file}:${problem}`]);
  });
});

describe("a task with structured output", () => {
  test("its schema and retries (default 2), its output_equals checks with their default names", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "ws/a.txt": "a",
        "t.yaml": [
          "prompt: Classify.",
          "workspace: ws",
          "output_schema:",
          "  $schema: https://json-schema.org/draft/2020-12/schema",
          "  type: object",
          "  properties: { label: { enum: [bug, feature] }, pair: { prefixItems: [{ type: string }] } }",
          "checks:",
          "  - output_equals: { pointer: /label, value: bug }",
          "  - output_equals: { pointer: '', value: { label: bug } }",
          "",
        ].join("\n"),
        "u.yaml":
          "prompt: Go.\nworkspace: ws\noutput_schema: { type: object }\noutput_retries: 0\n",
      },
    });

    const [task, other] = await loadTasks([ws.path("t.yaml"), ws.path("u.yaml")]);

    expect(task?.output).toEqual({
      schema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: {
          label: { enum: ["bug", "feature"] },
          pair: { prefixItems: [{ type: "string" }] },
        },
      },
      maxRetries: 2,
    });
    expect(task?.checks).toEqual([
      {
        kind: "output_equals",
        name: 'output_equals: /label = "bug"',
        line: 8,
        pointer: "/label",
        value: "bug",
      },
      {
        kind: "output_equals",
        name: 'output_equals: "" = {"label":"bug"}',
        line: 9,
        pointer: "",
        value: { label: "bug" },
      },
    ]);
    expect(other?.output).toEqual({ schema: { type: "object" }, maxRetries: 0 });
  });
});
