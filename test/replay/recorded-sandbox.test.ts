import { describe, expect, test } from "vitest";
import { recordedRun } from "../../src/replay/recorded-run.js";
import { DEFAULT_SANDBOX_LIMITS } from "../../src/tools/sandbox.js";
import { type InitInfo, initLine } from "../../src/transcript/init-line.js";
import type { TranscriptLine } from "../../src/transcript/line-schemas.js";
import { anthropicProvider } from "../helpers/providers.js";

const LIMITS = { tmpBytes: 2 * 1024 ** 3, shmBytes: 1024 ** 2, maxProcesses: 64, maxFileBytes: 5 };

const INFO: InitInfo = {
  agentRunVersion: "0.1.0",
  model: "claude-sonnet-5-5",
  system: "You are a coding agent.",
  tools: ["bash"],
  mcpServers: [],
  task: {
    name: "t",
    instanceId: "t",
    file: "t.yaml",
    prompt: "Go.",
    system: undefined,
    provider: anthropicProvider(),
    toolProtocol: "native",
    reasoning: undefined,
    limits: {
      maxSteps: 5,
      maxTokens: 1000,
      maxOutputTokens: 100,
      timeoutMs: 1000,
      maxCostUsd: undefined,
      maxRepeatedCalls: 5,
      maxContextTokens: 1000,
    },
    subagents: { maxSteps: 20, maxDepth: 1 },
    bash: {
      timeoutMs: 1000,
      env: {},
      allow: [],
      deny: [],
      flagAllow: [],
      flagDeny: [],
      maxOutputChars: 10,
      maxRecordedChars: 10,
    },
    tools: ["bash"],
    commandTools: [],
    sandbox: "bwrap",
    sandboxLimits: LIMITS,
    allowGitChanges: false,
    mcpServers: [],
    replies: undefined,
    checks: [],
    output: undefined,
  },
  workspace: { source: "/src", path: "/runs/t/workspace", inPlace: false, contentHash: null },
  offline: true,
  origin: undefined,
};

/** The init line as the transcript holds it (with the common fields every line has). */
function initOf(info: InitInfo, edit: (task: Record<string, unknown>) => void = () => {}) {
  const line = { ...initLine(info), session_id: "s", uuid: "u", timestamp: "t" };
  edit(line.task as Record<string, unknown>);
  return [line] as unknown as TranscriptLine[];
}

describe("the sandbox limits of a recorded run", () => {
  test("replay and resume run commands with the limits the run had", () => {
    expect(recordedRun("/runs/t/transcript.jsonl", initOf(INFO)).task).toMatchObject({
      sandbox: "bwrap",
      sandboxLimits: LIMITS,
    });
  });

  test("a transcript from before the limits existed gets the defaults", () => {
    const lines = initOf(INFO, (task) => {
      delete task.sandbox_limits;
    });

    expect(recordedRun("/runs/t/transcript.jsonl", lines).task.sandboxLimits).toEqual(
      DEFAULT_SANDBOX_LIMITS,
    );
  });
});

describe("the provider of a recorded run", () => {
  test("replay and resume use the provider settings the run had", () => {
    const info: InitInfo = {
      ...INFO,
      model: "deepseek-reasoner",
      task: {
        ...INFO.task,
        provider: {
          name: "deepseek",
          api: "openai",
          baseURL: "https://api.deepseek.com",
          apiKeyEnv: "DEEPSEEK_API_KEY",
          compat: { streamUsage: false },
          origin: undefined,
        },
        toolProtocol: "text",
      },
    };

    expect(recordedRun("/runs/t/transcript.jsonl", initOf(info)).task).toMatchObject({
      provider: {
        name: "deepseek",
        api: "openai",
        baseURL: "https://api.deepseek.com",
        apiKeyEnv: "DEEPSEEK_API_KEY",
        // The recorded compat is every setting as the run used it.
        compat: {
          streamUsage: false,
          maxTokensField: "max_tokens",
          developerRole: false,
          strictTools: false,
          sendToolChoice: false,
          reasoningSendBack: true,
        },
      },
      toolProtocol: "text",
    });
  });

  test("a transcript from before providers existed ran on Anthropic's API with native tool calls", () => {
    const lines = initOf(INFO, (task) => {
      delete task.provider;
      delete task.tool_protocol;
    });

    expect(recordedRun("/runs/t/transcript.jsonl", lines).task).toMatchObject({
      provider: { name: "anthropic", api: "anthropic", baseURL: undefined, apiKeyEnv: undefined },
      toolProtocol: "native",
    });
  });

  test("an edited provider is refused like any bad init line: an unknown preset, a key as the variable", () => {
    const unknown = initOf(INFO, (task) => {
      task.provider = {
        name: "evil",
        api: "openai",
        base_url: null,
        api_key_env: null,
        compat: null,
      };
    });
    const key = initOf(INFO, (task) => {
      task.provider = {
        name: "openai",
        api: "openai",
        base_url: null,
        api_key_env: "sk-abc",
        compat: null,
      };
    });

    expect(() => recordedRun("/runs/t/transcript.jsonl", unknown)).toThrow(
      /task.provider.name|provider\.name/,
    );
    expect(() => recordedRun("/runs/t/transcript.jsonl", key)).toThrow(/provider.api_key_env/);
  });
});

describe("the command tools of a recorded run", () => {
  const LOOKUP = {
    name: "lookup",
    description: "Looks up a ticket.",
    inputSchema: { type: "object", properties: { id: { type: "string" } } },
    command: "node tools/lookup.mjs",
    timeoutMs: 5_000,
    line: 7,
  };
  const withLookup: InitInfo = { ...INFO, task: { ...INFO.task, commandTools: [LOOKUP] } };

  test("replay, fork and resume offer the tools the run had", () => {
    const lines = initOf(withLookup);

    expect(lines[0]).toMatchObject({
      task: {
        command_tools: [
          {
            name: "lookup",
            description: "Looks up a ticket.",
            input_schema: LOOKUP.inputSchema,
            command: "node tools/lookup.mjs",
            timeout_ms: 5_000,
            line: 7,
          },
        ],
      },
    });
    expect(recordedRun("/runs/t/transcript.jsonl", lines).task.commandTools).toEqual([LOOKUP]);
  });

  test("a transcript from before command tools has none", () => {
    const lines = initOf(withLookup, (task) => {
      delete task.command_tools;
    });

    expect(recordedRun("/runs/t/transcript.jsonl", lines).task.commandTools).toEqual([]);
  });

  test("an edited transcript's tools are refused by the task file's rules, before anything runs", () => {
    const edits: Array<(tool: Record<string, unknown>, tools: unknown[]) => void> = [
      (tool) => {
        tool.name = "bash";
      },
      (tool) => {
        tool.name = "../../x";
      },
      (tool) => {
        tool.input_schema = { type: "string" };
      },
      (tool) => {
        tool.input_schema = { type: "object", propertes: {} };
      },
      (tool) => {
        tool.command = " ";
      },
      (tool, tools) => {
        tools.push({ ...tool });
      },
    ];
    const messages = edits.map((edit) => {
      const lines = initOf(withLookup, (task) => {
        const tools = task.command_tools as Array<Record<string, unknown>>;
        edit(tools[0] ?? {}, tools);
      });
      try {
        recordedRun("/runs/t/transcript.jsonl", lines);
        return "accepted";
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    });

    const tail =
      "; the transcript was edited, or comes from another agent-run, and agent-run will not use it";
    expect(messages).toEqual(
      [
        `0.name: "bash" is the name of a built-in tool; give the command tool another name`,
        `0.name: expected 1 to 64 letters, digits, '_' or '-' (the API's rule for tool names), got "../../x"`,
        '0.input_schema.type: Invalid input: expected "object"',
        '0.input_schema: does not compile: unknown keyword "propertes"; did you mean "properties"?',
        "0.command: Invalid string: must match pattern /\\S/",
        '1.name: "lookup" names two command tools',
      ].map((message) => `/runs/t/transcript.jsonl:1: task.command_tools.${message}${tail}`),
    );
  });
});
