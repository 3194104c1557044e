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
    sandbox: "bwrap",
    sandboxLimits: LIMITS,
    allowGitChanges: false,
    mcpServers: [],
    replies: undefined,
    checks: [],
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
