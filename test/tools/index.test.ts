import { describe, expect, test } from "vitest";
import { createTools } from "../../src/tools/index.js";
import { TOOL_NAMES } from "../../src/tools/tool-names.js";

const options = { bash: { timeoutMs: 1_000, env: {} } };

describe("createTools", () => {
  test("builds the named tools in the order given", () => {
    const tools = createTools(["list_files", "bash", "edit_file"], options);

    expect(tools.map((tool) => tool.name)).toEqual(["list_files", "bash", "edit_file"]);
  });

  test("every tool name but task has a tool with a description and an object input schema", () => {
    const tools = createTools(TOOL_NAMES, options);

    // The loop makes the task tool: it starts loops of its own.
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES.filter((name) => name !== "task"));
    for (const tool of tools) {
      expect(tool.description.length).toBeGreaterThan(50);
      expect(tool.inputSchema).toMatchObject({ type: "object", additionalProperties: false });
    }
  });

  test("a task's command tools come after the built-in ones, whichever of those it lists", () => {
    const lookup = {
      name: "lookup",
      description: "Looks something up.",
      inputSchema: { type: "object" },
      command: "cat",
      timeoutMs: 1_000,
      line: 4,
    };
    const tools = createTools(["read_file"], {
      ...options,
      commandTools: [lookup, { ...lookup, name: "run_tests" }],
    });

    expect(tools.map((tool) => tool.name)).toEqual(["read_file", "lookup", "run_tests"]);
    expect(tools[1]?.inputSchema).toBe(lookup.inputSchema);
  });
});
