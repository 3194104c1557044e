import { describe, expect, test } from "vitest";
import type { AgentEvent, RunResult, RunStatus } from "../../src/agent/events.js";
import type { ModelReply } from "../../src/model/model-client.js";
import { DEFAULT_SANDBOX_LIMITS } from "../../src/tools/sandbox.js";
import { type InitInfo, initLine } from "../../src/transcript/init-line.js";
import { eventLine, sdkMessage } from "../../src/transcript/lines.js";
import { parseTranscript } from "../../src/transcript/reader.js";
import { resultLine } from "../../src/transcript/result-line.js";
import { anthropicProvider } from "../helpers/providers.js";

const REPLY: ModelReply = {
  message: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-5-5",
    content: [
      { type: "text", text: "Running the tests." },
      { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "npm test" } },
    ],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 20 },
  },
  content: [],
  stopReason: "tool_use",
  usage: {
    inputTokens: 100,
    outputTokens: 20,
    cacheCreationInputTokens: 0,
    cacheReadInputTokens: 0,
  },
};

const EVENTS = {
  reply: { type: "model_reply", step: 1, reply: REPLY, durationMs: 1840 },
  bashResult: {
    type: "tool_result",
    step: 1,
    toolName: "bash",
    input: { command: "npm test" },
    block: { type: "tool_result", tool_use_id: "toolu_1", content: "fail", is_error: true },
    durationMs: 212,
    exitCode: 1,
  },
  killedBash: {
    type: "tool_result",
    step: 2,
    toolName: "bash",
    input: { command: "sleep 99" },
    block: { type: "tool_result", tool_use_id: "toolu_2", content: "killed", is_error: true },
    durationMs: 60_000,
    exitCode: null,
  },
  readResult: {
    type: "tool_result",
    step: 2,
    toolName: "read_file",
    input: { path: "a.txt" },
    block: { type: "tool_result", tool_use_id: "toolu_3", content: "x" },
    durationMs: 3,
    exitCode: undefined,
  },
  retry: {
    type: "model_retry",
    step: 2,
    notice: {
      attempt: 1,
      maxRetries: 4,
      status: 529,
      category: "overloaded",
      delayMs: 600,
      error: "Overloaded",
    },
  },
  connectionRetry: {
    type: "model_retry",
    step: 2,
    notice: {
      attempt: 2,
      maxRetries: 4,
      status: null,
      category: "connection",
      delayMs: 1000,
      error: "ECONNRESET",
    },
  },
  limit: { type: "limit_reached", step: 3, limit: "max_steps", used: 3, max: 3 },
} satisfies Record<string, AgentEvent>;

function runResult(status: RunStatus, error?: string): RunResult {
  return {
    status,
    steps: 3,
    usage: {
      inputTokens: 2695,
      outputTokens: 315,
      cacheCreationInputTokens: 1650,
      cacheReadInputTokens: 8400,
    },
    costUsd: 0.01342,
    finalText: "Fixed it.",
    stopReason: "end_turn",
    durationMs: 5120,
    apiDurationMs: 4210,
    error,
  };
}

function resultFor(status: RunStatus, error?: string, costUsd: number | null = 0.01342) {
  return resultLine({
    result: runResult(status, error),
    model: "claude-sonnet-5-5",
    costUsd,
    limits: { maxOutputTokens: 8192, maxContextTokens: 150_000 },
    permissionDenials: [],
    changedFiles: [{ path: "src/math.js", status: "modified" }],
    workspace: "/runs/x/workspace",
  });
}

describe("eventLine", () => {
  test("a model reply is an assistant line carrying the API message, the SDK's missing fields null", () => {
    expect(eventLine(EVENTS.reply)).toEqual({
      type: "assistant",
      message: {
        ...REPLY.message,
        content: [
          { type: "text", text: "Running the tests.", citations: null },
          REPLY.message.content[1],
        ],
        container: null,
        context_management: null,
        diagnostics: null,
        stop_details: null,
        usage: {
          input_tokens: 100,
          output_tokens: 20,
          cache_creation: null,
          cache_creation_input_tokens: null,
          cache_read_input_tokens: null,
          fallback_credit: null,
          inference_geo: null,
          iterations: null,
          output_tokens_details: null,
          server_tool_use: null,
          service_tier: null,
          speed: null,
        },
      },
      parent_tool_use_id: null,
      step: 1,
      duration_ms: 1840,
    });
  });

  test("what the API sent is kept as it came: only absent fields are added", () => {
    const sent = {
      ...REPLY.message,
      container: { id: "c1" },
      content: [{ type: "text", text: "x", citations: [{ type: "char_location" }] }],
      usage: { input_tokens: 1, output_tokens: 2, service_tier: "priority" },
    };

    expect(sdkMessage(sent)).toMatchObject({
      container: { id: "c1" },
      content: [{ type: "text", text: "x", citations: [{ type: "char_location" }] }],
      usage: { input_tokens: 1, output_tokens: 2, service_tier: "priority", speed: null },
    });
  });

  test("a refused command's result says so", () => {
    expect(eventLine({ ...EVENTS.bashResult, exitCode: undefined, isRefused: true })).toMatchObject(
      {
        tool_name: "bash",
        permission_denied: true,
      },
    );
  });

  test("a bash result is a user line with its exit code (null when killed)", () => {
    expect([eventLine(EVENTS.bashResult), eventLine(EVENTS.killedBash)]).toEqual([
      {
        type: "user",
        message: { role: "user", content: [EVENTS.bashResult.block] },
        parent_tool_use_id: null,
        step: 1,
        tool_name: "bash",
        duration_ms: 212,
        exit_code: 1,
      },
      {
        type: "user",
        message: { role: "user", content: [EVENTS.killedBash.block] },
        parent_tool_use_id: null,
        step: 2,
        tool_name: "bash",
        duration_ms: 60_000,
        exit_code: null,
      },
    ]);
  });

  test("another tool's result has no exit_code at all", () => {
    const line = eventLine(EVENTS.readResult);

    expect(line).toEqual({
      type: "user",
      message: { role: "user", content: [EVENTS.readResult.block] },
      parent_tool_use_id: null,
      step: 2,
      tool_name: "read_file",
      duration_ms: 3,
    });
    expect(Object.keys(line ?? {})).not.toContain("exit_code");
  });

  test("a tool's start has no line of its own: the assistant line before it holds the call", () => {
    const start = { type: "tool_start", step: 2, toolName: "bash", toolUseId: "t1", input: {} };

    expect(eventLine({ ...start, type: "tool_start" })).toBeUndefined();
  });

  test("a retry is a system/api_retry line: the SDK's category, our words beside it (status null for a connection error)", () => {
    expect([eventLine(EVENTS.retry), eventLine(EVENTS.connectionRetry)]).toEqual([
      {
        type: "system",
        subtype: "api_retry",
        step: 2,
        attempt: 1,
        max_retries: 4,
        retry_delay_ms: 600,
        error_status: 529,
        error: "overloaded",
        error_message: "Overloaded",
      },
      {
        type: "system",
        subtype: "api_retry",
        step: 2,
        attempt: 2,
        max_retries: 4,
        retry_delay_ms: 1000,
        error_status: null,
        error: "unknown",
        error_message: "ECONNRESET",
      },
    ]);
  });

  test("a context trim is a compact_boundary with the SDK's compact_metadata", () => {
    const trim = {
      type: "context_trimmed",
      step: 4,
      removedResults: 2,
      maxTokens: 1000,
      preTokens: 1200,
      postTokens: 690,
    } as const;

    expect(eventLine(trim)).toEqual({
      type: "system",
      subtype: "compact_boundary",
      step: 4,
      compact_metadata: { trigger: "auto", pre_tokens: 1200, post_tokens: 690 },
      removed_tool_results: 2,
      context_max_tokens: 1000,
    });
  });

  test("a limit is a limit_reached line", () => {
    expect(eventLine(EVENTS.limit)).toEqual({
      type: "limit_reached",
      step: 3,
      limit: "max_steps",
      used: 3,
      max: 3,
    });
  });
});

describe("resultLine", () => {
  test("a completed run: the whole line", () => {
    expect(resultFor("completed")).toEqual({
      type: "result",
      subtype: "success",
      is_error: false,
      status: "completed",
      duration_ms: 5120,
      duration_api_ms: 4210,
      num_turns: 3,
      result: "Fixed it.",
      total_cost_usd: 0.01342,
      unpriced_models: [],
      usage: {
        input_tokens: 2695,
        output_tokens: 315,
        cache_creation_input_tokens: 1650,
        cache_read_input_tokens: 8400,
        cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 1650 },
        fallback_credit: null,
        inference_geo: "unknown",
        iterations: [],
        output_tokens_details: { thinking_tokens: 0 },
        server_tool_use: { web_fetch_requests: 0, web_search_requests: 0 },
        service_tier: "standard",
        speed: "standard",
      },
      modelUsage: {
        "claude-sonnet-5-5": {
          inputTokens: 2695,
          outputTokens: 315,
          cacheReadInputTokens: 8400,
          cacheCreationInputTokens: 1650,
          webSearchRequests: 0,
          costUSD: 0.01342,
          contextWindow: 150_000,
          maxOutputTokens: 8192,
        },
      },
      permission_denials: [],
      stop_reason: "end_turn",
      terminal_reason: "completed",
      changed_files: [{ path: "src/math.js", status: "modified" }],
      workspace: "/runs/x/workspace",
    });
  });

  test.each([
    ["completed", "success", "completed", false],
    ["max_steps", "error_max_turns", "max_turns", true],
    ["max_tokens", "error_during_execution", "budget_exhausted", true],
    ["timeout", "error_during_execution", "budget_exhausted", true],
    ["error", "error_during_execution", "api_error", true],
    ["protocol_error", "error_during_execution", "malformed_tool_use_exhausted", true],
  ] as const)(
    "status %s → subtype %s, terminal_reason %s, is_error %s",
    (status, subtype, terminalReason, isError) => {
      expect(resultFor(status)).toMatchObject({
        status,
        subtype,
        terminal_reason: terminalReason,
        is_error: isError,
      });
    },
  );

  test.each(["loop", "cancelled", "skipped"] as const)(
    "status %s has no SDK terminal_reason that fits: the field is left out",
    (status) => {
      expect(Object.keys(resultFor(status))).not.toContain("terminal_reason");
    },
  );

  test("errors is on every run that did not complete (the SDK requires it there), never on a completed one", () => {
    const failed = resultFor("error", "model API error 500: boom");
    const stopped = resultFor("max_steps");
    const completed = resultFor("completed");

    expect(failed.errors).toEqual(["model API error 500: boom"]);
    expect(stopped.errors).toEqual(["the run ended with status max_steps"]);
    expect(Object.keys(completed)).not.toContain("errors");
  });

  test("an unknown price: the cost is a number (0) and unpriced_models names the model", () => {
    expect(resultFor("completed", undefined, null)).toMatchObject({
      total_cost_usd: 0,
      unpriced_models: ["claude-sonnet-5-5"],
      modelUsage: { "claude-sonnet-5-5": { costUSD: 0 } },
    });
  });

  test("a fork onto an unpriced model: the known model's cost is the total, the other is named", () => {
    const line = resultLine({
      result: { ...runResult("completed"), costUsd: null },
      model: "local-model",
      costUsd: null,
      modelUsage: [
        { model: "claude-sonnet-5-5", usage: runResult("completed").usage, costUsd: 0.5 },
        { model: "local-model", usage: runResult("completed").usage, costUsd: null },
      ],
      limits: { maxOutputTokens: 8192, maxContextTokens: 150_000 },
      permissionDenials: [],
      changedFiles: [],
      workspace: "/w",
    });

    expect(line).toMatchObject({ total_cost_usd: 0.5, unpriced_models: ["local-model"] });
  });
});

describe("the written shapes read back through the reader's schemas", () => {
  test("init, every event line and every result line, stamped as the writer stamps them", () => {
    const stamp = { session_id: "s", uuid: "u", at: "2026-11-29T18:40:00.000Z" };
    const statuses: RunStatus[] = [
      "completed",
      "max_steps",
      "max_tokens",
      "timeout",
      "cancelled",
      "error",
    ];
    const linesFor = (last: Record<string, unknown>) => [
      initLine(INIT),
      ...Object.values(EVENTS).map((event) => eventLine(event)),
      last,
    ];
    for (const status of statuses) {
      const text = linesFor(resultFor(status, "why"))
        .map((line) => `${JSON.stringify({ ...line, ...stamp })}\n`)
        .join("");

      const lines = parseTranscript(text, `${status}.jsonl`);

      expect(lines.map((line) => line.type)).toEqual([
        "system",
        "assistant",
        "user",
        "user",
        "user",
        "system",
        "system",
        "limit_reached",
        "result",
      ]);
    }
  });
});

const INIT: InitInfo = {
  agentRunVersion: "0.1.0",
  model: "claude-sonnet-5-5",
  system: "You are a coding agent.",
  tools: ["bash", "read_file"],
  mcpServers: [],
  task: {
    name: "fix",
    instanceId: "fix",
    file: "tasks/fix.yaml",
    prompt: "Fix it.",
    system: undefined,
    provider: anthropicProvider(),
    toolProtocol: "native",
    reasoning: undefined,
    limits: {
      maxSteps: 12,
      maxTokens: 200_000,
      maxOutputTokens: 8192,
      timeoutMs: 300_000,
      maxCostUsd: undefined,
      maxRepeatedCalls: 5,
      maxContextTokens: 150_000,
    },
    subagents: { maxSteps: 20, maxDepth: 1 },
    bash: {
      timeoutMs: 60_000,
      env: { CI: "1" },
      allow: [],
      deny: [],
      flagAllow: [],
      flagDeny: [],
      maxOutputChars: 30_000,
      maxRecordedChars: 1_000_000,
    },
    tools: ["bash", "read_file"],
    commandTools: [],
    sandbox: "none",
    sandboxLimits: DEFAULT_SANDBOX_LIMITS,
    allowGitChanges: false,
    mcpServers: [],
    replies: undefined,
    checks: [],
    output: undefined,
  },
  workspace: { source: "/src", path: "/runs/fix/workspace", inPlace: false, contentHash: null },
  offline: true,
  origin: undefined,
};
