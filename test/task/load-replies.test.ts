import { describe, expect, test } from "vitest";
import { formatProblem, TaskFileError } from "../../src/errors.js";
import { loadReplies } from "../../src/task/load-replies.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const BLOCK_TYPES = "text, tool_use, thinking, redacted_thinking, reasoning";

/** Loads `text` as r.replies.yaml expecting a TaskFileError; returns its problems as printed lines. */
async function problemsOf(text: string): Promise<string[]> {
  await using ws = await tmpWorkspace({ files: { "r.replies.yaml": text } });
  const error = await loadReplies(ws.path("r.replies.yaml"), "r.replies.yaml").then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof TaskFileError))
    throw new Error(`expected a TaskFileError, got ${String(error)}`);
  return error.problems.map(formatProblem);
}

describe("loadReplies: mistakes are located and named like task-file mistakes", () => {
  test.each([
    [
      "a misspelt block type",
      "- content:\n    - type: tool_us\n      name: read_file\n      input: {}\n",
      [
        `r.replies.yaml:2:13: [0].content[0].type: unknown value "tool_us" (did you mean "tool_use"?); expected one of ${BLOCK_TYPES}`,
      ],
    ],
    [
      "a block without a type",
      "- content:\n    - text: hi\n",
      [
        `r.replies.yaml:2:7: [0].content[0].type: required field is missing; expected one of ${BLOCK_TYPES}`,
      ],
    ],
    [
      "a tool_use without input",
      "- content:\n    - type: tool_use\n      name: read_file\n",
      [
        "r.replies.yaml:2:7: [0].content[0].input: required field is missing; a tool_use block needs input: a mapping of the tool's arguments ({} for none)",
      ],
    ],
    [
      "a tool_use without a name",
      "- content:\n    - type: text\n      text: Looking.\n- content:\n    - type: tool_use\n      input: { command: npm test }\n",
      [
        "r.replies.yaml:5:7: [1].content[0].name: required field is missing; a tool_use block needs name: the tool to call, such as read_file",
      ],
    ],
    [
      "a thinking block with text instead of thinking",
      "- content: [{ type: thinking, text: hmm }]\n",
      [
        "r.replies.yaml:1:13: [0].content[0].thinking: required field is missing; a thinking block needs thinking: a string",
        'r.replies.yaml:1:31: [0].content[0].text: unknown field "text"; expected one of type, thinking, signature',
      ],
    ],
    [
      "a misspelt field of a block",
      "- content:\n    - type: text\n      txt: hi\n",
      [
        'r.replies.yaml:3:7: [0].content[0].txt: unknown field "txt" (did you mean "text"?); expected one of type, text',
      ],
    ],
    [
      "a reply without content",
      "- stop_reason: end_turn\n",
      [
        "r.replies.yaml:1:3: [0].content: required field is missing; a reply needs content: a list of blocks, such as [{ type: text, text: done }]",
      ],
    ],
    [
      "a misspelt reply field",
      "- contents: [{ type: text, text: done }]\n",
      [
        'r.replies.yaml:1:3: [0].contents: unknown field "contents" (did you mean "content"?); expected one of content, stop_reason, usage',
      ],
    ],
    [
      "a mapping instead of a list",
      "content: [{ type: text, text: done }]\n",
      [
        'r.replies.yaml:1:1: expected a list of replies, each starting with "- content:", got a mapping',
      ],
    ],
  ])("%s", async (_, text, expected) => {
    expect(await problemsOf(text)).toEqual(expected);
  });
});
