import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { relative } from "node:path";
import { describe, expect, test } from "vitest";
import { formatProblem, TaskFileError } from "../../src/errors.js";
import { loadTasks } from "../../src/task/load-task.js";
import { DEFAULT_MCP_STARTUP_TIMEOUT_MS } from "../../src/task/mcp-schema.js";
import { DEFAULT_BASH_TIMEOUT_MS, DEFAULT_LIMITS } from "../../src/task/schema.js";
import { DEFAULT_SANDBOX_LIMITS } from "../../src/tools/sandbox.js";
import { DEFAULT_TOOL_NAMES } from "../../src/tools/tool-names.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const BAD = "fixtures/bad-tasks";

/** The SHA-256 of a file's bytes, as `sha256sum` prints it. */
async function sha256Of(file: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(file))
    .digest("hex");
}

/** Loads `files` expecting a TaskFileError; returns its problems as printed lines. */
async function problemsOf(files: string[]): Promise<string[]> {
  const error = await loadTasks(files).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof TaskFileError))
    throw new Error(`expected a TaskFileError, got ${String(error)}`);
  return error.problems.map(formatProblem);
}

describe("loadTasks: valid files", () => {
  test("resolves every field: durations to ms, paths absolute from the task's folder, tools in the order offered", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "proj/README.md": "# project\n",
        "replies/fix.jsonl": "{}\n",
        "tasks/fix.yaml": [
          "name: fix-login",
          "prompt: |",
          "  Fix the login test.",
          "system: Keep changes small.",
          "model: claude-test-1",
          "workspace: ../proj",
          "limits:",
          "  max_steps: 10",
          "  max_tokens: 50000",
          "  max_output_tokens: 1024",
          "  timeout: 90s",
          "tools: [read_file, bash]",
          "bash:",
          "  timeout: 1.5s",
          "  env:",
          '    CI: "1"',
          "replies: ../replies/fix.jsonl",
          "provider:",
          "  name: deepseek",
          "  api_key_env: TEAM_DEEPSEEK_KEY",
          "  compat:",
          "    stream_usage: false",
          "tool_protocol: text",
          "command_tools:",
          "  - name: lookup_ticket",
          "    description: Looks up a ticket.",
          "    input_schema: { type: object, properties: { id: { type: string } }, required: [id] }",
          "    command: node tools/lookup.mjs",
          "  - name: run_tests",
          "    description: Runs the tests.",
          "    input_schema:",
          "      type: object",
          "    command: npm test",
          "    timeout: 2m",
          "instance_id: acme__login-42",
          "",
        ].join("\n"),
      },
    });

    const tasks = await loadTasks([ws.path("tasks/fix.yaml")]);

    expect(tasks).toEqual([
      {
        name: "fix-login",
        instanceId: "acme__login-42",
        file: ws.path("tasks/fix.yaml"),
        fileSha256: await sha256Of(ws.path("tasks/fix.yaml")),
        prompt: "Fix the login test.",
        system: "Keep changes small.",
        model: "claude-test-1",
        provider: {
          name: "deepseek",
          api: "openai",
          baseURL: undefined,
          apiKeyEnv: "TEAM_DEEPSEEK_KEY",
          compat: { streamUsage: false },
          origin: `${ws.path("tasks/fix.yaml")}:18:1: provider`,
        },
        toolProtocol: "text",
        workspace: ws.path("proj"),
        limits: {
          maxSteps: 10,
          maxTokens: 50_000,
          maxOutputTokens: 1024,
          timeoutMs: 90_000,
          maxCostUsd: undefined,
          maxRepeatedCalls: 5,
          maxContextTokens: 150_000,
        },
        tools: ["bash", "read_file"],
        subagents: { maxSteps: 20, maxDepth: 1 },
        bash: {
          timeoutMs: 1_500,
          env: { CI: "1" },
          allow: [],
          deny: [],
          flagAllow: [],
          flagDeny: [],
          maxOutputChars: 30_000,
          maxRecordedChars: 1_000_000,
        },
        commandTools: [
          {
            name: "lookup_ticket",
            description: "Looks up a ticket.",
            inputSchema: {
              type: "object",
              properties: { id: { type: "string" } },
              required: ["id"],
            },
            command: "node tools/lookup.mjs",
            timeoutMs: 1_500,
            line: 25,
          },
          {
            name: "run_tests",
            description: "Runs the tests.",
            inputSchema: { type: "object" },
            command: "npm test",
            timeoutMs: 120_000,
            line: 29,
          },
        ],
        mcpServers: [],
        sandbox: "none",
        sandboxLimits: DEFAULT_SANDBOX_LIMITS,
        allowGitChanges: false,
        trials: 1,
        replies: ws.path("replies/fix.jsonl"),
        checks: [],
      },
    ]);
  });

  test("applies defaults: name from the file name, the default tools, documented limits, no env", async () => {
    await using ws = await tmpWorkspace({
      files: { "proj/a.txt": "a", "fix-login.task.yaml": "prompt: Fix it\nworkspace: proj\n" },
    });

    const [task] = await loadTasks([ws.path("fix-login.task.yaml")]);

    expect(task).toEqual({
      name: "fix-login.task",
      instanceId: "fix-login.task",
      file: ws.path("fix-login.task.yaml"),
      fileSha256: await sha256Of(ws.path("fix-login.task.yaml")),
      prompt: "Fix it",
      system: undefined,
      model: undefined,
      provider: {
        name: "anthropic",
        api: "anthropic",
        baseURL: undefined,
        apiKeyEnv: undefined,
        compat: {},
        origin: undefined,
      },
      toolProtocol: "native",
      workspace: ws.path("proj"),
      limits: DEFAULT_LIMITS,
      tools: [...DEFAULT_TOOL_NAMES],
      subagents: { maxSteps: 20, maxDepth: 1 },
      bash: {
        timeoutMs: DEFAULT_BASH_TIMEOUT_MS,
        env: {},
        allow: [],
        deny: [],
        flagAllow: [],
        flagDeny: [],
        maxOutputChars: 30_000,
        maxRecordedChars: 1_000_000,
      },
      commandTools: [],
      mcpServers: [],
      sandbox: "none",
      sandboxLimits: DEFAULT_SANDBOX_LIMITS,
      allowGitChanges: false,
      trials: 1,
      replies: undefined,
      checks: [],
    });
  });

  test("mcp_servers: in file order, a command path made absolute from the task's folder, call limits from bash.timeout", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "proj/a.txt": "a",
        "servers/tickets.mjs": "// the server\n",
        "tasks/t.yaml": [
          "prompt: Fix it",
          "workspace: ../proj",
          "bash: { timeout: 2m }",
          "mcp_servers:",
          "  tickets:",
          "    type: stdio",
          "    command: ../servers/tickets.mjs",
          "    args: [--db, tickets.json]",
          "    env: { TICKET_DB: tickets.json }",
          "    tools: [lookup_ticket]",
          "    startup_timeout: 5s",
          "    timeout: 10s",
          "  github:",
          "    command: npx",
          "    args: [-y, '@modelcontextprotocol/server-github']",
          "",
        ].join("\n"),
      },
    });

    const [task] = await loadTasks([ws.path("tasks/t.yaml")]);

    expect(task?.mcpServers).toEqual([
      {
        name: "tickets",
        command: ws.path("servers/tickets.mjs"),
        args: ["--db", "tickets.json"],
        env: { TICKET_DB: "tickets.json" },
        tools: ["lookup_ticket"],
        startupTimeoutMs: 5_000,
        timeoutMs: 10_000,
      },
      {
        name: "github",
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-github"],
        env: {},
        tools: undefined,
        startupTimeoutMs: DEFAULT_MCP_STARTUP_TIMEOUT_MS,
        timeoutMs: 120_000,
      },
    ]);
  });

  test("sandbox_limits: sizes in binary units (or bytes), the defaults for the rest", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "proj/a.txt": "a",
        "a.yaml":
          "prompt: x\nworkspace: proj\nsandbox: bwrap\nsandbox_limits:\n  tmp_size: 2GiB\n  shm_size: 1.5 m\n  max_file_size: 3145728\n",
        "b.yaml":
          "prompt: x\nworkspace: proj\nsandbox_limits: { tmp_size: 512MB, max_processes: 100, max_file_size: 1T }\n",
      },
    });

    const [a, b] = await loadTasks([ws.path("a.yaml"), ws.path("b.yaml")]);

    expect(a?.sandboxLimits).toEqual({
      tmpBytes: 2 * 1024 ** 3,
      shmBytes: 1.5 * 1024 ** 2,
      maxProcesses: DEFAULT_SANDBOX_LIMITS.maxProcesses,
      maxFileBytes: 3 * 1024 ** 2,
    });
    // Without `sandbox: bwrap` the limits still apply to a `--sandbox bwrap` run.
    expect(b).toMatchObject({
      sandbox: "none",
      sandboxLimits: {
        tmpBytes: 512 * 1024 ** 2,
        shmBytes: DEFAULT_SANDBOX_LIMITS.shmBytes,
        maxProcesses: 100,
        maxFileBytes: 1024 ** 4,
      },
    });
  });

  test("a UTF-8 byte-order mark is dropped: the file loads, and problems keep their lines", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "proj/a.txt": "a",
        "good.yaml": "\uFEFFprompt: x\nworkspace: proj\n",
        "bad.yaml": "\uFEFFprompt: x\nworkspace: proj\nlimits: { max_steps: 0 }\n",
      },
    });

    const [task] = await loadTasks([ws.path("good.yaml")]);
    const problems = await problemsOf([ws.path("bad.yaml")]);

    expect(task?.prompt).toBe("x");
    expect(problems).toEqual([
      `${ws.path("bad.yaml")}:3:22: limits.max_steps: expected a positive integer, got 0`,
    ]);
  });

  test("reads a bare number as seconds and keeps relative task paths relative", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "proj/a.txt": "a",
        "t.yaml": "prompt: x\nworkspace: proj\nlimits: { timeout: 90 }\n",
      },
    });
    const file = relative(process.cwd(), ws.path("t.yaml"));

    const [task] = await loadTasks([file]);

    expect(task?.file).toBe(file);
    expect(task?.workspace).toBe(ws.path("proj"));
    expect(task?.limits.timeoutMs).toBe(90_000);
  });

  test("loads a file named twice (under two spellings) once", async () => {
    await using ws = await tmpWorkspace({
      files: { "proj/a.txt": "a", "t.yaml": "prompt: x\nworkspace: proj\n" },
    });
    const file = relative(process.cwd(), ws.path("t.yaml"));

    const tasks = await loadTasks([file, `./${file}`, ws.path("t.yaml")]);

    expect(tasks.map((task) => task.file)).toEqual([file]);
  });

  test("returns no tasks for no files (the CLI rejects an empty list itself)", async () => {
    await expect(loadTasks([])).resolves.toEqual([]);
  });
});

describe("loadTasks: one mistake per file in fixtures/bad-tasks", () => {
  const cases: [file: string, problem: string][] = [
    [
      "bad-yaml-syntax.yaml",
      '2:9: invalid YAML: nested mappings are not allowed in compact mappings; if a value contains ": ", put it in quotes or use a block ("prompt: |" with the text indented below)',
    ],
    ["duplicate-key.yaml", '4:1: invalid YAML: field "prompt" appears twice; keep one'],
    [
      "top-level-list.yaml",
      '2:1: a task file must be a mapping with at least "prompt:" and "workspace:" fields, got a list',
    ],
    [
      "empty.yaml",
      '1:1: a task file must be a mapping with at least "prompt:" and "workspace:" fields, got an empty file',
    ],
    ["missing-prompt.yaml", "2:1: prompt: required field is missing"],
    ["missing-workspace.yaml", "2:1: workspace: required field is missing"],
    ["empty-prompt.yaml", "2:9: prompt: must not be empty; write what the agent should do"],
    [
      "unknown-top-level-key.yaml",
      '4:1: sytem: unknown field "sytem" (did you mean "system"?); expected one of name, instance_id, prompt, workspace, system, model, provider, limits, context, tools, subagents, tool_protocol, reasoning, bash, command_tools, mcp_servers, sandbox, sandbox_limits, allow_git_changes, replies, trials, checks, output_schema, output_retries',
    ],
    [
      "limit-outside-limits.yaml",
      '4:1: max_steps: unknown field "max_steps" (did you mean "limits.max_steps"?); expected one of name, instance_id, prompt, workspace, system, model, provider, limits, context, tools, subagents, tool_protocol, reasoning, bash, command_tools, mcp_servers, sandbox, sandbox_limits, allow_git_changes, replies, trials, checks, output_schema, output_retries',
    ],
    [
      "unknown-limit-key.yaml",
      '5:3: limits.max_step: unknown field "max_step" (did you mean "max_steps"?); expected one of max_steps, max_tokens, max_output_tokens, max_repeated_calls, max_cost_usd, timeout',
    ],
    [
      "max-steps-not-a-number.yaml",
      '5:14: limits.max_steps: expected a positive integer, got "ten"',
    ],
    ["negative-max-tokens.yaml", "5:15: limits.max_tokens: expected a positive integer, got -5"],
    ["fractional-max-steps.yaml", "5:14: limits.max_steps: expected a positive integer, got 2.5"],
    [
      "bad-timeout.yaml",
      '5:12: limits.timeout: expected a duration such as "90s", "10m" or "1h" (or a number of seconds), got "ten minutes"',
    ],
    [
      "unknown-tool.yaml",
      '6:5: tools[1]: unknown value "edit_files" (did you mean "edit_file"?); expected one of bash, read_file, write_file, edit_file, list_files, todo_write, todo_read, task',
    ],
    [
      "tools-empty.yaml",
      "4:8: tools: lists no tool, so the agent could not act; name at least one of bash, read_file, write_file, edit_file, list_files, todo_write, todo_read, task, or leave tools out to offer bash, read_file, write_file, edit_file, list_files",
    ],
    [
      "tools-repeated.yaml",
      '7:5: tools[2]: "bash" is listed twice (also at tools[0]); remove this one',
    ],
    [
      "env-not-a-string.yaml",
      '6:11: bash.env.PORT: expected a string, got 8080; put it in quotes: "8080"',
    ],
    [
      "workspace-missing.yaml",
      `3:12: workspace: folder "${BAD}/no-such-folder" does not exist; paths are relative to the task file's folder`,
    ],
    [
      "workspace-is-a-file.yaml",
      `3:12: workspace: "${BAD}/ws/README.md" is a file, not a folder; point it at a folder`,
    ],
    [
      "replies-missing.yaml",
      `4:10: replies: file "${BAD}/no-such-replies.jsonl" does not exist; paths are relative to the task file's folder`,
    ],
    [
      "check-no-kind.yaml",
      "5:5: checks[0]: expected exactly one of run, file_exists, file_absent, file_contains, file_matches, changed_files, final_text_matches, plan_complete, output_equals; got none",
    ],
    [
      "check-two-kinds.yaml",
      "5:5: checks[0]: expected exactly one of run, file_exists, file_absent, file_contains, file_matches, changed_files, final_text_matches, plan_complete, output_equals; got run and file_exists; split them into separate items",
    ],
    [
      "check-unknown-key.yaml",
      '5:5: checks[0].file_exist: unknown field "file_exist" (did you mean "file_exists"?); expected one of name, run, timeout, file_exists, file_absent, file_contains, file_matches, changed_files, final_text_matches, plan_complete, output_equals',
    ],
    [
      "check-not-a-mapping.yaml",
      '5:5: checks[0]: expected a mapping with one check, such as "- run: npm test", got "npm test"',
    ],
    [
      "check-bad-regex.yaml",
      "7:47: checks[2].file_matches.regex: invalid regular expression: /return (a + b/: Unterminated group",
    ],
    [
      "check-max-negative.yaml",
      "5:27: checks[0].changed_files.max: expected a whole number, 0 or more, got -1",
    ],
    [
      "check-empty-glob.yaml",
      "6:24: checks[0].changed_files.only[1]: must not be empty; write a glob relative to the workspace root",
    ],
    [
      "check-changed-files-empty.yaml",
      "5:20: checks[0].changed_files: expected at least one of only, must, max",
    ],
    [
      "check-path-escapes.yaml",
      '5:18: checks[0].file_absent: path "src/../../secrets.txt" leads outside the workspace; write it relative to the workspace root (like "src/app.js")',
    ],
    [
      "check-absolute-path.yaml",
      '5:28: checks[0].file_contains.path: expected a path relative to the workspace root (like "src/app.js"), got "/etc/hosts"',
    ],
    [
      "check-bad-timeout.yaml",
      '6:14: checks[0].timeout: expected a duration such as "90s", "10m" or "1h" (or a number of seconds), got "two minutes"',
    ],
    [
      "check-timeout-without-run.yaml",
      "6:14: checks[0].timeout: only a run check has a timeout; remove it, or add it to a run item",
    ],
    ["binary.yaml", "1:1: is a binary file, not a YAML task file; check the path"],
    ["not-utf8.yaml", "1:1: is not valid UTF-8 text; save it as UTF-8"],
    [
      "does-not-exist.yaml",
      "1:1: file not found; check the path (relative paths start from the current folder)",
    ],
    [
      "ws",
      `1:1: is a folder, not a task file; pass the task files inside it, e.g. ${BAD}/ws/*.yaml`,
    ],
    [
      "provider-unknown-name.yaml",
      '5:9: provider.name: unknown value "deepsek" (did you mean "deepseek"?); expected one of anthropic, openai, deepseek, openrouter, ollama, vllm, openai-compatible',
    ],
    [
      "provider-key-in-api-key-env.yaml",
      "6:16: provider.api_key_env: this looks like an API key, not a variable name; never write a key in a task file: export it in an environment variable (export MY_API_KEY=...) and write that variable's name here (api_key_env: MY_API_KEY)",
    ],
    [
      "provider-random-api-key-env.yaml",
      "6:16: provider.api_key_env: this looks like an API key (long and random), not a variable name; never write a key in a task file: export it in an environment variable (export MY_API_KEY=...) and write that variable's name here (api_key_env: MY_API_KEY)",
    ],
    [
      "provider-compat-on-anthropic.yaml",
      "6:3: provider.compat: compat settings apply to the OpenAI chat-completions API only, and this provider uses api: anthropic; remove compat or set api: openai",
    ],
    [
      "provider-base-url-with-password.yaml",
      "6:13: provider.base_url: the URL holds a user name or password; never write a key in a task file: export it in an environment variable (export MY_API_KEY=...) and write that variable's name here (api_key_env: MY_API_KEY)",
    ],
    [
      "reasoning-budget-too-big.yaml",
      "7:18: reasoning.budget_tokens: must be less than limits.max_output_tokens (4096), which thinking counts against; lower it or raise limits.max_output_tokens",
    ],
    [
      "reasoning-budget-on-openai.yaml",
      "8:18: reasoning.budget_tokens: a thinking budget is a Messages API setting, and this provider uses the OpenAI chat-completions API, which takes an effort instead; write reasoning.effort (low, medium, high, xhigh or max)",
    ],
    [
      "reasoning-effort-unknown.yaml",
      '5:11: reasoning.effort: unknown value "hihg" (did you mean "high"?); expected one of low, medium, high, xhigh, max',
    ],
    [
      "reasoning-empty.yaml",
      "4:12: reasoning: is empty; write reasoning.effort or reasoning.budget_tokens, or remove it",
    ],
    [
      "tool-protocol-unknown.yaml",
      '4:16: tool_protocol: unknown value "txt" (did you mean "text"?); expected one of native, text',
    ],
    [
      "yaml-alias-before-anchor.yaml",
      "3:9: invalid YAML: the alias *base has no anchor &base before it; define the anchor above the alias, or write the value out",
    ],
    [
      "yaml-alias-bomb.yaml",
      "4:8: invalid YAML: excessive alias count indicates a resource exhaustion attack; write the values out instead of nesting aliases",
    ],
    [
      "yaml-alias-flood.yaml",
      "5:10: invalid YAML: excessive alias count indicates a resource exhaustion attack; write the values out instead of nesting aliases",
    ],
    [
      "yaml-alias-with-anchor.yaml",
      "4:15: invalid YAML: an alias node must not specify any properties; remove the anchor or tag in front of the alias",
    ],
    [
      "yaml-bad-escape.yaml",
      "3:18: invalid YAML: invalid escape sequence \\q; write \\\\ for a backslash, or use single quotes",
    ],
    [
      "yaml-bad-indentation.yaml",
      "6:1: invalid YAML: all mapping items must start at the same column; check the indentation (fields of one mapping start in the same column)",
    ],
    [
      "yaml-block-in-flow.yaml",
      '4:10: invalid YAML: block collections are not allowed within flow collections; inside [ ] or { } separate items with commas ("[bash, read_file]")',
    ],
    [
      "yaml-duplicate-nested-key.yaml",
      '6:3: invalid YAML: field "max_steps" appears twice; keep one',
    ],
    [
      "yaml-long-key.yaml",
      '4:1: invalid YAML: the : indicator must be at most 1024 chars after the start of an implicit block mapping key; check for a missing line break or ": " on this line',
    ],
    [
      "yaml-reserved-character.yaml",
      "3:9: invalid YAML: plain value cannot start with reserved character @; put the value in quotes",
    ],
    [
      "yaml-stray-bracket.yaml",
      '4:1: invalid YAML: unexpected flow-seq-end token in YAML stream: "]"; remove it, or check the brackets and quotes above',
    ],
    [
      "mcp-server-bad-name.yaml",
      `5:3: mcp_servers.my__tickets: expected an MCP server name: 1 to 56 letters, digits, '_' or '-', without "__", got "my__tickets"`,
    ],
    [
      "mcp-server-unknown-key.yaml",
      '7:5: mcp_servers.tickets.arg: unknown field "arg" (did you mean "args"?); expected one of type, command, args, env, tools, startup_timeout, timeout',
    ],
    ["mcp-server-no-command.yaml", "6:5: mcp_servers.tickets.command: required field is missing"],
    [
      "mcp-server-http.yaml",
      '6:11: mcp_servers.tickets.type: only "stdio" servers are supported (agent-run starts each server and talks to it over stdin and stdout), got "http"',
    ],
    ["mcp-servers-is-a-list.yaml", "5:3: mcp_servers: expected a mapping, got a list"],
    [
      "mcp-tool-name-too-long.yaml",
      `7:28: mcp_servers.the-ticket-tracker-of-the-platform-team.tools[1]: the model would see this tool as "mcp__the-ticket-tracker-of-the-platform-team__look_up_a_ticket_by_its_id", 72 characters, past the API's 64; shorten the server's name`,
    ],
    [
      "mcp-server-bad-timeout.yaml",
      '7:22: mcp_servers.tickets.startup_timeout: expected a duration such as "90s", "10m" or "1h" (or a number of seconds), got "thirty seconds"',
    ],
    [
      "yaml-tab-indentation.yaml",
      "5:1: invalid YAML: tabs are not allowed as indentation; indent with spaces",
    ],
    ["yaml-two-anchors.yaml", "3:12: invalid YAML: a node can have at most one anchor; keep one"],
    [
      "yaml-two-documents.yaml",
      '5:1: invalid YAML: found more than one YAML document; a task file holds one task, so remove the "---" line or split the file',
    ],
    [
      "yaml-unclosed-brace.yaml",
      "3:9: invalid YAML: this { is never closed; add the closing } (or indent its continuation lines)",
    ],
    [
      "yaml-unclosed-bracket.yaml",
      "4:8: invalid YAML: this [ is never closed; add the closing ] (or indent its continuation lines)",
    ],
    [
      "yaml-unclosed-quote.yaml",
      '2:9: invalid YAML: this quoted value is never closed; add the closing "',
    ],
    [
      "yaml-unclosed-single-quote.yaml",
      "3:9: invalid YAML: this quoted value is never closed; add the closing '",
    ],
    [
      "yaml-undefined-alias.yaml",
      "2:9: invalid YAML: the alias *base has no anchor &base before it; define the anchor above the alias, or write the value out",
    ],
  ];

  test.each(cases)("%s", async (name, problem) => {
    const file = `${BAD}/${name}`;

    const problems = await problemsOf([file]);

    expect(problems).toEqual([`${file}:${problem}`]);
  });

  test("duplicate names across two files: a problem on each, naming the other file", async () => {
    const a = `${BAD}/duplicate-names/a.yaml`;
    const b = `${BAD}/duplicate-names/b.yaml`;

    const problems = await problemsOf([b, a]);

    expect(problems).toEqual([
      `${a}:2:7: name: task name "fix-tests" is also used by ${b}; give each task a unique "name:"`,
      `${b}:2:7: name: task name "fix-tests" is also used by ${a}; give each task a unique "name:"`,
    ]);
  });

  test("reports every problem of every file in one TaskFileError (exit code 2), sorted by file and line", async () => {
    const files = [
      `${BAD}/unknown-limit-key.yaml`,
      `${BAD}/does-not-exist.yaml`,
      `${BAD}/missing-prompt.yaml`,
    ];

    const error = await loadTasks(files).catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(TaskFileError);
    expect(error).toMatchObject({ exitCode: 2, code: "task_file" });
    expect(error instanceof Error ? error.message.split("\n") : error).toEqual([
      `${BAD}/does-not-exist.yaml:1:1: file not found; check the path (relative paths start from the current folder)`,
      `${BAD}/missing-prompt.yaml:2:1: prompt: required field is missing`,
      `${BAD}/unknown-limit-key.yaml:5:3: limits.max_step: unknown field "max_step" (did you mean "max_steps"?); expected one of max_steps, max_tokens, max_output_tokens, max_repeated_calls, max_cost_usd, timeout`,
    ]);
  });
});

describe("loadTasks: more mistakes", () => {
  test("reports several problems of one file, each at its own line", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "t.yaml": [
          "prompt: Fix it",
          "workspace: .",
          "tools: bash",
          "limits:",
          "  max_steps: 0",
          "bash:",
          "  timeout: 0s",
          "  env: { 'MY VAR': x }",
          "",
        ].join("\n"),
      },
    });
    const file = ws.path("t.yaml");

    const problems = await problemsOf([file]);

    expect(problems).toEqual([
      `${file}:3:8: tools: expected a list, got "bash"; write a list: [bash]`,
      `${file}:5:14: limits.max_steps: expected a positive integer, got 0`,
      `${file}:7:12: bash.timeout: expected a duration such as "90s", "10m" or "1h" (or a number of seconds), got "0s"`,
      `${file}:8:10: bash.env.MY VAR: expected an environment variable name (letters, digits and '_', not starting with a digit), got "MY VAR"`,
    ]);
  });

  test("a misspelt required field is reported once, as a typo, not also as missing", async () => {
    await using ws = await tmpWorkspace({
      files: { "t.yaml": "prompt: x\nworkspce: .\nlimits:\n  maxSteps: 3\n" },
    });
    const file = ws.path("t.yaml");

    const problems = await problemsOf([file]);

    expect(problems).toEqual([
      `${file}:2:1: workspce: unknown field "workspce" (did you mean "workspace"?); expected one of name, instance_id, prompt, workspace, system, model, provider, limits, context, tools, subagents, tool_protocol, reasoning, bash, command_tools, mcp_servers, sandbox, sandbox_limits, allow_git_changes, replies, trials, checks, output_schema, output_retries`,
      `${file}:4:3: limits.maxSteps: unknown field "maxSteps" (did you mean "max_steps"?); expected one of max_steps, max_tokens, max_output_tokens, max_repeated_calls, max_cost_usd, timeout`,
    ]);
  });

  test("a key with no value, a number where text is expected, and an empty mapping", async () => {
    await using ws = await tmpWorkspace({
      files: { "a.yaml": "prompt:\nworkspace: .\nname: 12\nlimits:\n", "b.yaml": "{}\n" },
    });
    const [a, b] = [ws.path("a.yaml"), ws.path("b.yaml")];

    const problems = await problemsOf([a, b]);

    expect(problems).toEqual([
      `${a}:1:1: prompt: expected a string, got an empty value`,
      `${a}:3:7: name: expected a string, got 12; put it in quotes: "12"`,
      `${a}:4:1: limits: expected a mapping, got an empty value`,
      `${b}:1:1: prompt: required field is missing`,
      `${b}:1:1: workspace: required field is missing`,
    ]);
  });

  test("YAML that parses but cannot be used: tabs, several documents, an unknown alias", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "tabs.yaml": "prompt: x\n\tworkspace: .\n",
        "docs.yaml": "prompt: x\nworkspace: .\n---\nprompt: y\n",
        "alias.yaml": "prompt: *nope\nworkspace: .\n",
      },
    });

    const problems = await problemsOf(["tabs.yaml", "docs.yaml", "alias.yaml"].map(ws.path));

    expect(problems).toEqual([
      `${ws.path("alias.yaml")}:1:9: invalid YAML: the alias *nope has no anchor &nope before it; define the anchor above the alias, or write the value out`,
      `${ws.path("docs.yaml")}:3:1: invalid YAML: found more than one YAML document; a task file holds one task, so remove the "---" line or split the file`,
      `${ws.path("tabs.yaml")}:2:1: invalid YAML: tabs are not allowed as indentation; indent with spaces`,
    ]);
  });

  test("a file name that cannot be a task name, and a task file over 1 MB", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "my task.yaml": "prompt: x\nworkspace: .\n",
        "huge.yaml": `prompt: ${"x".repeat(1_100_000)}\nworkspace: .\n`,
      },
    });

    const problems = await problemsOf([ws.path("my task.yaml"), ws.path("huge.yaml")]);

    expect(problems).toEqual([
      `${ws.path("huge.yaml")}:1:1: is 1.1 MB, over the 1 MB limit for task files; check the path, and keep long instructions in the workspace`,
      `${ws.path("my task.yaml")}:1:1: name: the file name gives the task name "my task", which is not allowed (letters, digits, '.', '_' or '-'); rename the file or add a "name:" field`,
    ]);
  });

  test("names defaulted from file names clash too, ignoring case", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "a/fix.yaml": "prompt: x\nworkspace: .\n",
        "b/FIX.yaml": "prompt: y\nworkspace: .\n",
      },
    });
    const [a, b] = [ws.path("a/fix.yaml"), ws.path("b/FIX.yaml")];

    const problems = await problemsOf([a, b]);

    expect(problems).toEqual([
      `${a}:1:1: name: task name "fix" (from the file name) is also used by ${b}; give each task a unique "name:"`,
      `${b}:1:1: name: task name "FIX" (from the file name) is also used by ${a}; give each task a unique "name:"`,
    ]);
  });
});

describe("loadTasks: checks", () => {
  test("resolves each kind with its list item's line, default names and timeouts", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "proj/a.txt": "a",
        "t.yaml": [
          "prompt: Fix it",
          "workspace: proj",
          "checks:",
          "  - run: node --test test/",
          "    timeout: 2m",
          "    name: tests pass",
          "  - run: npm run lint",
          "  - file_exists: src/farewell.js",
          "  - file_absent: src/old.js",
          '  - file_contains: { path: README.md, text: "Goodbye" }',
          '  - file_matches: { path: src/math.js, regex: "return a \\\\+ b" }',
          '  - changed_files: { only: ["src/**", "README.md"], must: ["src/math.js"], max: 3 }',
          "  - changed_files:",
          "      max: 1",
          '  - final_text_matches: "(?i)fixed"',
          "",
        ].join("\n"),
      },
    });

    const [task] = await loadTasks([ws.path("t.yaml")]);

    expect(task?.checks).toEqual([
      {
        kind: "run",
        name: "tests pass",
        line: 4,
        command: "node --test test/",
        timeoutMs: 120_000,
      },
      {
        kind: "run",
        name: "run: npm run lint",
        line: 7,
        command: "npm run lint",
        timeoutMs: 300_000,
      },
      {
        kind: "file_exists",
        name: "file_exists: src/farewell.js",
        line: 8,
        path: "src/farewell.js",
      },
      { kind: "file_absent", name: "file_absent: src/old.js", line: 9, path: "src/old.js" },
      {
        kind: "file_contains",
        name: 'file_contains: README.md "Goodbye"',
        line: 10,
        path: "README.md",
        text: "Goodbye",
      },
      {
        kind: "file_matches",
        name: "file_matches: src/math.js /return a \\+ b/",
        line: 11,
        path: "src/math.js",
        pattern: "return a \\+ b",
      },
      {
        kind: "changed_files",
        name: "changed_files: only src/**, README.md; must src/math.js; max 3",
        line: 12,
        only: ["src/**", "README.md"],
        must: ["src/math.js"],
        max: 3,
      },
      {
        kind: "changed_files",
        name: "changed_files: max 1",
        line: 13,
        only: undefined,
        must: undefined,
        max: 1,
      },
      {
        kind: "final_text_matches",
        name: "final_text_matches: /fixed/i",
        line: 15,
        pattern: "(?i)fixed",
      },
    ]);
  });

  test("an empty list means no checks, and long default names are cut", async () => {
    const command = `echo ${"x".repeat(100)}`;
    await using ws = await tmpWorkspace({
      files: {
        "proj/a.txt": "a",
        "empty.yaml": "prompt: x\nworkspace: proj\nchecks: []\n",
        "long.yaml": `prompt: x\nworkspace: proj\nchecks:\n  - run: ${command}\n`,
      },
    });

    const [empty, long] = await loadTasks([ws.path("empty.yaml"), ws.path("long.yaml")]);

    expect(empty?.checks).toEqual([]);
    expect(long?.checks[0]?.name).toBe(`run: echo ${"x".repeat(69)}…`);
  });

  test("several check mistakes in one file, each at its own place", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "proj/a.txt": "a",
        "t.yaml": [
          "prompt: x",
          "workspace: proj",
          "checks:",
          "  - file_contains: README.md",
          "    text: Goodbye",
          '  - final_text_matches: "(?i)(fixed"',
          "  - changed_files: { only: [/src/**], must: [], maxx: 2 }",
          "  - run: ''",
          "  - file_exists: C:\\Windows",
          "checks_extra: 1",
          "",
        ].join("\n"),
      },
    });
    const file = ws.path("t.yaml");

    const problems = await problemsOf([file]);

    expect(problems).toEqual([
      `${file}:4:20: checks[0].file_contains: expected a mapping such as { path: README.md, text: "Goodbye" }, got "README.md"`,
      `${file}:5:5: checks[0].text: unknown field "text" (did you mean "file_contains.text"?); expected one of name, run, timeout, file_exists, file_absent, file_contains, file_matches, changed_files, final_text_matches, plan_complete, output_equals`,
      `${file}:6:25: checks[1].final_text_matches: invalid regular expression: /(fixed/i: Unterminated group`,
      `${file}:7:29: checks[2].changed_files.only[0]: expected a glob relative to the workspace root (like "src/**"), got "/src/**"`,
      `${file}:7:45: checks[2].changed_files.must: expected at least one glob; remove the field to drop this expectation`,
      `${file}:7:49: checks[2].changed_files.maxx: unknown field "maxx" (did you mean "max"?); expected one of only, must, max`,
      `${file}:8:10: checks[3].run: must not be empty; write the command to run, e.g. "npm test"`,
      `${file}:9:18: checks[4].file_exists: expected a path relative to the workspace root (like "src/app.js"), got "C:\\\\Windows"`,
      `${file}:10:1: checks_extra: unknown field "checks_extra" (did you mean "checks"?); expected one of name, instance_id, prompt, workspace, system, model, provider, limits, context, tools, subagents, tool_protocol, reasoning, bash, command_tools, mcp_servers, sandbox, sandbox_limits, allow_git_changes, replies, trials, checks, output_schema, output_retries`,
    ]);
  });

  test("a '..' segment is refused even when the path stays inside (the JSON Schema's rule too)", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "proj/a.txt": "a",
        "t.yaml": [
          "prompt: x",
          "workspace: proj",
          "checks:",
          "  - file_exists: src/../a.txt",
          '  - changed_files: { only: ["src\\\\..\\\\..\\\\**"] }',
          "",
        ].join("\n"),
      },
    });
    const file = ws.path("t.yaml");

    const problems = await problemsOf([file]);

    expect(problems).toEqual([
      `${file}:4:18: checks[0].file_exists: path "src/../a.txt" has a ".." segment; write it without one, relative to the workspace root (like "src/app.js")`,
      `${file}:5:29: checks[1].changed_files.only[0]: glob "src\\\\..\\\\..\\\\**" leads outside the workspace; write it relative to the workspace root (like "src/**")`,
    ]);
  });
});
