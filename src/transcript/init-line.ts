import type { Check } from "../checks/types.js";
import type { Reasoning } from "../model/model-client.js";
import type { OpenAICompat } from "../model/openai/compat.js";
import { effectiveCompat } from "../model/providers.js";
import type { TaskOutput } from "../task/output-schema.js";
import type { Limits, ProviderSettings, ToolProtocol } from "../task/schema.js";
import type { CommandToolSpec } from "../tools/command-tool-spec.js";
import type { McpServerConfig, McpServerStatus } from "../tools/mcp-tools.js";
import type { SandboxLimits } from "../tools/sandbox.js";
import { type InitLineShape, TRANSCRIPT_VERSION } from "./line-schemas.js";
import { mcpServerJson, mcpStatusJson, offeredMcpTools } from "./mcp-lines.js";
import { type TrialOfRun, trialFields } from "./trials.js";

/** The resolved task as the init line records it. */
export type InitInfo = {
  agentRunVersion: string;
  model: string;
  system: string;
  /**
   * The tools offered before the MCP servers' ones: the built-in ones the task lists (but `task`,
   * offered last), then its command tools.
   */
  tools: readonly string[];
  /** What became of each MCP server, and the tools it offered (after the built-in ones). */
  mcpServers: readonly McpServerStatus[];
  task: {
    name: string;
    /** The benchmark instance the task is (`instance_id:`, else its name). */
    instanceId: string;
    file: string;
    fileSha256?: string | undefined;
    prompt: string;
    system: string | undefined;
    provider: ProviderSettings;
    toolProtocol: ToolProtocol;
    reasoning: Reasoning | undefined;
    limits: Limits;
    subagents: { maxSteps: number; maxDepth: number };
    bash: {
      timeoutMs: number;
      env: Readonly<Record<string, string>>;
      allow: readonly string[];
      /** Written among `allow` / `deny`: the line records the policy the run had. */
      flagAllow: readonly string[];
      flagDeny: readonly string[];
      deny: readonly string[];
      maxOutputChars: number;
      maxRecordedChars: number;
    };
    /** The task's `tools:` (built-in tools only). */
    tools: readonly string[];
    commandTools: readonly CommandToolSpec[];
    mcpServers: readonly McpServerConfig[];
    sandbox: string;
    sandboxLimits: SandboxLimits;
    allowGitChanges: boolean;
    replies: string | undefined;
    checks: readonly Check[];
    output: TaskOutput | undefined;
  };
  workspace: { source: string; path: string; inPlace: boolean; contentHash: string | null };
  offline: boolean;
  /** Where a replayed, forked or resumed run comes from. */
  origin: RunOrigin | undefined;
} & TrialOfRun;

/** The run a replay, fork or resume started from. */
export type RunOrigin = {
  kind: "replay" | "fork" | "resume";
  transcript: string;
  sessionId: string;
  /** Steps taken from the recorded run. */
  steps: number;
};

/** The first line: Claude Code's `system`/`init` plus our version and the resolved task. */
export function initLine(info: InitInfo): InitLineShape {
  const { task } = info;
  return {
    type: "system",
    subtype: "init",
    schema_version: TRANSCRIPT_VERSION,
    agent_run_version: info.agentRunVersion,
    cwd: info.workspace.path,
    model: info.model,
    // In the order they are offered: the task tool comes last (the loop adds it).
    tools: [
      ...info.tools,
      ...offeredMcpTools(info.mcpServers),
      ...(task.tools.includes("task") ? ["task"] : []),
    ],
    ...sdkInitFields(info),
    task: {
      name: task.name,
      instance_id: task.instanceId,
      file: task.file,
      file_sha256: task.fileSha256 ?? null,
      prompt: task.prompt,
      system: info.system,
      extra_system: task.system ?? null,
      model: info.model,
      provider: providerLine(task.provider, info.model),
      tool_protocol: task.toolProtocol,
      reasoning:
        task.reasoning === undefined
          ? null
          : {
              effort: task.reasoning.effort ?? null,
              budget_tokens: task.reasoning.budgetTokens ?? null,
            },
      limits: limitsLine(task.limits),
      tools: [...task.tools],
      subagents: {
        max_steps: task.subagents.maxSteps,
        max_depth: task.subagents.maxDepth,
      },
      bash: bashLine(task.bash),
      command_tools: task.commandTools.map(commandToolJson),
      sandbox: task.sandbox,
      sandbox_limits: {
        tmp_size: task.sandboxLimits.tmpBytes,
        shm_size: task.sandboxLimits.shmBytes,
        max_processes: task.sandboxLimits.maxProcesses,
        max_file_size: task.sandboxLimits.maxFileBytes,
      },
      allow_git_changes: task.allowGitChanges,
      mcp_servers: task.mcpServers.map(mcpServerJson),
      replies: task.replies ?? null,
      checks: task.checks.map(checkJson),
      output_schema: task.output?.schema ?? null,
      output_retries: task.output?.maxRetries ?? null,
      workspace: {
        source: info.workspace.source,
        path: info.workspace.path,
        in_place: info.workspace.inPlace,
        content_hash: info.workspace.contentHash,
      },
      offline: info.offline,
    },
    ...(info.origin === undefined ? {} : { origin: originLine(info.origin) }),
    ...trialFields(info),
  };
}

/** The bash settings in force: a flag's patterns among the file's, as the policy applied them. */
function bashLine(bash: InitInfo["task"]["bash"]) {
  return {
    timeout_ms: bash.timeoutMs,
    env: bash.env,
    allow: [...bash.allow, ...bash.flagAllow],
    deny: [...bash.deny, ...bash.flagDeny],
    max_output: bash.maxOutputChars,
    max_recorded_output: bash.maxRecordedChars,
  };
}

/** The limits in force, in snake_case (`max_cost_usd` null without a cost cap). */
function limitsLine(limits: Limits) {
  return {
    max_steps: limits.maxSteps,
    max_tokens: limits.maxTokens,
    max_output_tokens: limits.maxOutputTokens,
    timeout_ms: limits.timeoutMs,
    max_cost_usd: limits.maxCostUsd ?? null,
    max_repeated_calls: limits.maxRepeatedCalls,
    max_context_tokens: limits.maxContextTokens,
  };
}

/**
 * The Agent SDK's init fields (`SDKSystemMessage`) that describe the run: no Claude Code is
 * involved (its version field carries agent-run's), the task's MCP servers, no slash command,
 * skill or plugin, and nobody to ask for permission: the task's tools and command policy decide
 * (`dontAsk`).
 */
function sdkInitFields(info: InitInfo) {
  return {
    claude_code_version: info.agentRunVersion,
    apiKeySource: apiKeySource(info),
    permissionMode: "dontAsk" as const,
    mcp_servers: info.mcpServers.map(mcpStatusJson),
    slash_commands: [],
    output_style: "default",
    skills: [],
    plugins: [],
  };
}

/**
 * Where the key came from, in the SDK's terms: `ANTHROPIC_API_KEY`, another variable the task
 * names (`user`; `task.provider.api_key_env` says which), or none (offline, or a keyless server).
 */
function apiKeySource(info: InitInfo): "ANTHROPIC_API_KEY" | "user" | "none" {
  const variable = info.task.provider.apiKeyEnv;
  if (info.offline || variable === undefined) return "none";
  return variable === "ANTHROPIC_API_KEY" ? "ANTHROPIC_API_KEY" : "user";
}

/**
 * The provider as the run used it: the base URL and key variable the CLI resolved (never the key)
 * and, for the OpenAI format, every compat setting (the preset's for the model, then the task's).
 */
function providerLine(provider: ProviderSettings, model: string): Record<string, unknown> {
  return {
    name: provider.name,
    api: provider.api,
    base_url: provider.baseURL ?? null,
    api_key_env: provider.apiKeyEnv ?? null,
    compat:
      provider.api === "openai"
        ? compatLine(effectiveCompat(provider.name, model, provider.compat))
        : null,
  };
}

function compatLine(compat: OpenAICompat): Record<string, unknown> {
  return {
    stream_usage: compat.streamUsage,
    max_tokens_field: compat.maxTokensField,
    developer_role: compat.developerRole,
    strict_tools: compat.strictTools,
    send_tool_choice: compat.sendToolChoice,
    reasoning_send_back: compat.reasoningSendBack,
  };
}

/** The origin as the init line and `summary.json` record it. */
export function originLine(origin: RunOrigin) {
  return {
    kind: origin.kind,
    transcript: origin.transcript,
    session_id: origin.sessionId,
    steps: origin.steps,
  };
}

/** A resolved check in the init line's snake_case (its task-file line included). */
export function checkJson(check: Check): Record<string, unknown> {
  switch (check.kind) {
    case "run":
      return {
        kind: check.kind,
        name: check.name,
        line: check.line,
        command: check.command,
        timeout_ms: check.timeoutMs,
      };
    case "changed_files":
      return {
        kind: check.kind,
        name: check.name,
        line: check.line,
        only: check.only ?? null,
        must: check.must ?? null,
        max: check.max ?? null,
      };
    default:
      return { ...check };
  }
}

/** A command tool in the init line's snake_case (its task-file line included). */
function commandToolJson(tool: CommandToolSpec): Record<string, unknown> {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
    command: tool.command,
    timeout_ms: tool.timeoutMs,
    line: tool.line,
  };
}
