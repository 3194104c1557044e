import { describe, expect, test } from "vitest";
import { recordedRun } from "../../src/replay/recorded-run.js";
import { DEFAULT_SANDBOX_LIMITS } from "../../src/tools/sandbox.js";
import { type InitInfo, initLine } from "../../src/transcript/init-line.js";
import type { TranscriptLine } from "../../src/transcript/line-schemas.js";

const LIMITS = { tmpBytes: 2 * 1024 ** 3, shmBytes: 1024 ** 2, maxProcesses: 64, maxFileBytes: 5 };

const INFO: InitInfo = {
  agentRunVersion: "0.1.0",
  model: "claude-sonnet-5-5",
  system: "You are a coding agent.",
  tools: ["bash"],
  task: {
    name: "t",
    file: "t.yaml",
    prompt: "Go.",
    system: undefined,
    provider: {
      name: "anthropic",
      api: "anthropic",
      baseURL: "https://api.anthropic.com",
      apiKeyEnv: "ANTHROPIC_API_KEY",
      compat: {},
      origin: undefined,
    },
    toolProtocol: "native",
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
      maxOutputChars: 10,
      maxRecordedChars: 10,
    },
    sandbox: "bwrap",
    sandboxLimits: LIMITS,
    allowGitChanges: false,
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
