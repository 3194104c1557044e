import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, test } from "vitest";
import { createCommandTool } from "../../src/tools/command-tool.js";
import type { CommandToolSpec } from "../../src/tools/command-tool-spec.js";
import { HOSTILE_TOOL_INPUT, stdinBytesOf } from "../helpers/hostile-tool-input.js";
import { readPidFile, waitUntilGone } from "../helpers/processes.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const ctxFor = (root: string, signal = new AbortController().signal) => ({
  workspaceRoot: root,
  signal,
});

const TICKET_SCHEMA = {
  type: "object",
  properties: { id: { type: "string", pattern: "^[A-Z]+-[0-9]+$" }, verbose: { type: "boolean" } },
  required: ["id"],
  additionalProperties: false,
};

function spec(overrides: Partial<CommandToolSpec> = {}): CommandToolSpec {
  return {
    name: "lookup_ticket",
    description: "Looks up a ticket.",
    inputSchema: TICKET_SCHEMA,
    command: "cat > got.json; echo stored",
    timeoutMs: 10_000,
    line: 3,
    ...overrides,
  };
}

describe("a command tool", () => {
  const spawned: number[] = [];
  afterEach(() => {
    for (const pid of spawned.splice(0)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
  });

  test("offers its name, description and input schema as the API's tool", () => {
    const tool = createCommandTool(spec(), { timeoutMs: 1, env });

    expect([tool.name, tool.description, tool.inputSchema]).toEqual([
      "lookup_ticket",
      "Looks up a ticket.",
      TICKET_SCHEMA,
    ]);
  });

  test("runs its command in the workspace with the input as JSON on stdin, like bash's result", async () => {
    await using ws = await tmpWorkspace();
    const tool = createCommandTool(spec(), { timeoutMs: 1, env });

    const result = await tool.execute({ id: "BUG-12", verbose: true }, ctxFor(ws.root));

    expect(result).toEqual({
      content: "stored\n[exit code: 0]",
      isError: false,
      exitCode: 0,
      timedOut: false,
    });
    expect(await readFile(ws.path("got.json"), "utf8")).toBe('{"id":"BUG-12","verbose":true}');
  });

  test("hostile input reaches the command byte for byte, and none of it runs", async () => {
    await using ws = await tmpWorkspace({ files: { "x/keep.txt": "keep" } });
    const open = { type: "object" };
    const tool = createCommandTool(spec({ inputSchema: open, command: "cat > got.json" }), {
      timeoutMs: 10_000,
      env,
    });

    const result = await tool.execute(HOSTILE_TOOL_INPUT, ctxFor(ws.root));

    expect(result).toMatchObject({ content: "(no output)\n[exit code: 0]", isError: false });
    expect(await readFile(ws.path("got.json"))).toEqual(stdinBytesOf(HOSTILE_TOOL_INPUT));
    expect(JSON.parse(await readFile(ws.path("got.json"), "utf8"))).toEqual(HOSTILE_TOOL_INPUT);
    expect(existsSync(ws.path("pwned"))).toBe(false);
    expect(existsSync(ws.path("x/keep.txt"))).toBe(true);
  });

  test("a megabyte of input arrives whole", async () => {
    await using ws = await tmpWorkspace();
    const tool = createCommandTool(spec({ inputSchema: { type: "object" }, command: "wc -c" }), {
      timeoutMs: 10_000,
      env,
    });
    const input = { text: "$(x)".repeat(250_000) };

    const result = await tool.execute(input, ctxFor(ws.root));

    expect(result.content.trim()).toBe(`${stdinBytesOf(input).length}\n[exit code: 0]`);
  });

  test("input that does not fit the schema is an error result for the model; nothing runs", async () => {
    await using ws = await tmpWorkspace();
    const tool = createCommandTool(spec(), { timeoutMs: 10_000, env });

    const results = await Promise.all(
      [{ id: 12 }, { verbose: "yes" }, { id: "bug 12", extra: 1 }, "BUG-12"].map((input) =>
        tool.execute(input, ctxFor(ws.root)),
      ),
    );

    expect(results.map((result) => [result.content, result.isError])).toEqual([
      [
        "lookup_ticket: input/id must be string; re-send the call with input that fits the tool's input_schema.",
        true,
      ],
      [
        "lookup_ticket: input must have required property 'id'; re-send the call with input that fits the tool's input_schema.",
        true,
      ],
      [
        'lookup_ticket: input must NOT have additional properties ("extra"); re-send the call with input that fits the tool\'s input_schema.',
        true,
      ],
      [
        "lookup_ticket: input must be object; re-send the call with input that fits the tool's input_schema.",
        true,
      ],
    ]);
    expect(existsSync(ws.path("got.json"))).toBe(false);
  });

  test("names the first problem only, clipped: the keys are the model's, and a million wrong items cost one", async () => {
    await using ws = await tmpWorkspace();
    const strict = { type: "object", additionalProperties: { type: "number" } };
    const tool = createCommandTool(spec({ inputSchema: strict }), { timeoutMs: 10_000, env });
    const input = Object.fromEntries(
      Array.from({ length: 8 }, (_, index) => [`${"k".repeat(300)}${index}`, "text"]),
    );
    const list = spec({
      inputSchema: {
        type: "object",
        properties: { ids: { type: "array", items: { type: "number" } } },
      },
    });
    const many = createCommandTool(list, { timeoutMs: 10_000, env });

    const result = await tool.execute(input, ctxFor(ws.root));
    const huge = await many.execute({ ids: Array(1_000_000).fill("x") }, ctxFor(ws.root));

    expect(result.content).toMatch(
      /^lookup_ticket: input\/k{199}… \(102 more chars\) must be number; re-send the call/,
    );
    expect(result.content.match(/must be number/g)).toHaveLength(1);
    expect(huge.content).toBe(
      "lookup_ticket: input/ids/0 must be number; re-send the call with input that fits the tool's input_schema.",
    );
  });

  test("a pattern that backtracks in JavaScript (^(a+)+$) is matched in linear time: the call answers", async () => {
    await using ws = await tmpWorkspace();
    const schema = {
      type: "object",
      properties: { id: { type: "string", pattern: "^(a+)+$" } },
      required: ["id"],
    };
    const tool = createCommandTool(spec({ inputSchema: schema }), { timeoutMs: 10_000, env });

    // JavaScript's own engine takes minutes on this input (the test would time out).
    const result = await tool.execute({ id: `${"a".repeat(40)}!` }, ctxFor(ws.root));

    expect(result.content).toBe(
      'lookup_ticket: input/id must match pattern "^(a+)+$"; re-send the call with input that fits the tool\'s input_schema.',
    );
  });

  test("a non-zero exit is an error with its exit code and output", async () => {
    await using ws = await tmpWorkspace();
    const tool = createCommandTool(spec({ command: "echo 'no such ticket' >&2; exit 4" }), {
      timeoutMs: 10_000,
      env,
    });

    const result = await tool.execute({ id: "BUG-1" }, ctxFor(ws.root));

    expect(result).toEqual({
      content: "no such ticket\n[exit code: 4]",
      isError: true,
      exitCode: 4,
      timedOut: false,
    });
  });

  test("its own timeout kills the whole process tree", async () => {
    await using ws = await tmpWorkspace();
    const command = "bash -c 'sleep 30 & echo $! > pid.txt; wait'; echo never";
    const tool = createCommandTool(spec({ command, timeoutMs: 1_000 }), {
      timeoutMs: 60_000,
      env,
    });
    const started = Date.now();

    const result = await tool.execute({ id: "BUG-1" }, ctxFor(ws.root));

    const pid = await readPidFile(ws.path("pid.txt"));
    spawned.push(pid);
    expect(result).toEqual({
      content: "(no output)\n[timed out after 1s; process tree killed]",
      isError: true,
      exitCode: null,
      timedOut: true,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await waitUntilGone(pid)).toBe(true);
  });

  test("output is capped for the model, and the transcript keeps more", async () => {
    await using ws = await tmpWorkspace();
    const tool = createCommandTool(spec({ command: "echo FIRST; seq 1 5000; echo LAST" }), {
      timeoutMs: 10_000,
      env,
      maxOutputChars: 20,
      maxRecordedChars: 100_000,
    });

    const result = await tool.execute({ id: "BUG-1" }, ctxFor(ws.root));

    expect(result.content).toBe(
      "FIRST\n1\n2\n\n[... 23883 characters cut ...]\n\n5000\nLAST\n[exit code: 0]",
    );
    expect(result.recordedContent).toMatch(
      /^FIRST\n1\n2\n3\n[\s\S]*\n5000\nLAST\n\[exit code: 0\]$/,
    );
  });

  test("the command policy is checked against its command: a refusal names the tool, nothing runs", async () => {
    await using ws = await tmpWorkspace();
    const tool = createCommandTool(spec(), {
      timeoutMs: 10_000,
      env,
      policy: { allow: [], deny: [], flagDeny: ["cat *"] },
    });

    const result = await tool.execute({ id: "BUG-1" }, ctxFor(ws.root));

    expect(result).toEqual({
      content:
        'lookup_ticket: refused by the pattern "cat *" given by --bash-deny. Nobody is there to ask: this run is unattended. Do the task another way, or say in your final reply that it needs this command',
      isError: true,
      isRefused: true,
    });
    expect(existsSync(ws.path("got.json"))).toBe(false);
  });

  test("the environment is exactly the one given: process.env does not leak", async () => {
    await using ws = await tmpWorkspace();
    process.env.SECRET_TEST_KEY = "leaked";
    const tool = createCommandTool(spec({ command: 'echo "[$SECRET_TEST_KEY][$GIVEN]"' }), {
      timeoutMs: 10_000,
      env: { ...env, GIVEN: "yes" },
    });

    try {
      const result = await tool.execute({ id: "BUG-1" }, ctxFor(ws.root));

      expect(result.content).toBe("[][yes]\n[exit code: 0]");
    } finally {
      delete process.env.SECRET_TEST_KEY;
    }
  });

  test("a schema that does not compile is refused when the tool is made (a bug upstream)", () => {
    expect(() =>
      createCommandTool(spec({ inputSchema: { type: "object", propertes: {} } }), {
        timeoutMs: 1,
        env,
      }),
    ).toThrow(
      /lookup_ticket: input_schema does not compile: unknown keyword "propertes"; did you mean "properties"\?/,
    );
  });

  test("bash does not run ~/.bashrc, though its stdin is a socket (as sshd's children's is)", async () => {
    await using ws = await tmpWorkspace({
      files: { "home/.bashrc": "echo from-bashrc; touch ran" },
    });
    const tool = createCommandTool(spec({ command: "echo ok" }), {
      timeoutMs: 10_000,
      env: { ...env, HOME: ws.path("home") },
    });

    const result = await tool.execute({ id: "BUG-1" }, ctxFor(ws.root));

    expect(result.content).toBe("ok\n[exit code: 0]");
    expect(existsSync(ws.path("ran"))).toBe(false);
  });
});
