import { describe, expect, test } from "vitest";
import {
  COMMAND_TOOL_NAME_SCHEMA_PATTERN,
  commandToolNameProblem,
} from "../../src/tools/command-tool-spec.js";
import { TOOL_NAMES } from "../../src/tools/tool-names.js";

describe("commandToolNameProblem", () => {
  test("takes the API's tool names that are neither built-in nor an MCP server's", () => {
    expect(
      ["lookup_ticket", "run-tests", "A1", "x".repeat(64)].map(commandToolNameProblem),
    ).toEqual([undefined, undefined, undefined, undefined]);
  });

  test("refuses other characters, lengths, the built-in tools' names and the mcp__ prefix", () => {
    expect(
      ["run tests", "", "x".repeat(65), "tool.v2", "bash", "mcp__github__search"].map(
        commandToolNameProblem,
      ),
    ).toEqual([
      `expected 1 to 64 letters, digits, '_' or '-' (the API's rule for tool names), got "run tests"`,
      `expected 1 to 64 letters, digits, '_' or '-' (the API's rule for tool names), got ""`,
      `expected 1 to 64 letters, digits, '_' or '-' (the API's rule for tool names), got "${"x".repeat(65)}"`,
      `expected 1 to 64 letters, digits, '_' or '-' (the API's rule for tool names), got "tool.v2"`,
      `"bash" is the name of a built-in tool; give the command tool another name`,
      `names starting with "mcp__" are kept for MCP servers' tools; give the command tool another name`,
    ]);
    for (const name of TOOL_NAMES) expect(commandToolNameProblem(name)).toMatch(/built-in/);
  });

  test("the JSON Schema pattern says the same, the built-in names aside", () => {
    const pattern = new RegExp(COMMAND_TOOL_NAME_SCHEMA_PATTERN);

    expect(
      ["lookup_ticket", "run tests", "mcp__x", "x".repeat(65)].map((name) => pattern.test(name)),
    ).toEqual([true, false, false, false]);
  });
});
