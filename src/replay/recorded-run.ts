import { resolve } from "node:path";
import { z } from "zod";
import { TranscriptError } from "../errors.js";
import { type ApiMessage, REASONING_EFFORTS } from "../model/model-client.js";
import { PROVIDER_NAMES } from "../model/providers.js";
import { Sha256Schema } from "../report/fingerprint.js";
import {
  DEFAULT_OUTPUT_RETRIES,
  MAX_OUTPUT_RETRIES,
  type TaskOutput,
} from "../task/output-schema.js";
import { apiKeyEnvField, baseUrlField, CompatSchema } from "../task/provider-schema.js";
import { toCompat } from "../task/resolve-provider.js";
import { NameSchema, TASK_NAME_PATTERN, TASK_NAME_RULE, type Task } from "../task/schema.js";
import {
  DEFAULT_SUBAGENTS,
  MAX_SUBAGENT_DEPTH,
  MAX_SUBAGENT_STEPS,
} from "../task/subagents-schema.js";
import { compileOutputSchema } from "../tools/input-schema.js";
import type { McpToolSpec } from "../tools/mcp-tools.js";
import { DEFAULT_SANDBOX_LIMITS } from "../tools/sandbox.js";
import { TOOL_NAMES } from "../tools/tool-names.js";
import type { TranscriptLine } from "../transcript/line-schemas.js";
import { type EarlierAttempt, earlierAttemptOfJson, type Trial } from "../transcript/trials.js";
import { recordedChecks } from "./recorded-checks.js";
import { parseRecordedCommandTools } from "./recorded-command-tools.js";
import {
  type RecordedMcpCall,
  RecordedMcpServersSchema,
  recordedMcpTools,
  toMcpServerConfigs,
} from "./recorded-mcp.js";
import { type RecordedAgent, type RecordedToolResult, recordedAgents } from "./recorded-steps.js";

/** What a transcript says about its run, in the shape replay, fork and resume need. */
export type RecordedRun = {
  path: string;
  sessionId: string;
  /** The task as it ran, rebuilt from the init line (workspace: the recorded source folder). */
  task: Task;
  model: string;
  contentHash: string | null;
  /** The folder the recorded run worked in (its copy of the workspace). */
  workspacePath: string;
  isInPlace: boolean;
  isOffline: boolean;
  /**
   * Steps this run took from another recording (it was a replay, fork or resume itself): whoever
   * made them, this run's provider did not, for all its init line says.
   */
  inheritedSteps: number;
  /** The top-level agent's replies, one per step, in order. */
  replies: ApiMessage[];
  /** The top-level agent's tool results by step (index 0 is step 1), in call order. */
  toolResults: RecordedToolResult[][];
  /** Each subagent's replies and tool results, by the `task` call that started it. */
  subagents: ReadonlyMap<string, RecordedAgent>;
  /**
   * The results of the MCP tools' calls (every agent's), served again by `tool_use` id instead of
   * a server; `step` is the top-level step.
   */
  mcpCalls: RecordedMcpCall[];
  /** The tools each MCP server offered, by server name (none before MCP servers existed). */
  mcpTools: ReadonlyMap<string, readonly McpToolSpec[]>;
  /** The closing line's status and errors; undefined for a run that was killed. */
  ending: { status: string; errors: string[] } | undefined;
  /** Which of its task's trials the run was (undefined when the task ran once), which attempt. */
  trial: Trial | undefined;
  attempt: number;
  /** The trial's earlier attempts (failed on infrastructure), as the init line recorded them. */
  earlierAttempts: EarlierAttempt[];
};

/** Transcripts from before providers existed ran on Anthropic's API with native tool calls. */
const RecordedProviderSchema = z
  .object({
    name: z.enum(PROVIDER_NAMES),
    api: z.enum(["anthropic", "openai"]),
    base_url: baseUrlField.nullable(),
    api_key_env: apiKeyEnvField.nullable(),
    compat: CompatSchema.unwrap().nullable(),
  })
  .prefault({
    name: "anthropic",
    api: "anthropic",
    base_url: null,
    api_key_env: null,
    compat: null,
  });

const RecordedTaskSchema = z.looseObject({
  name: z.string(),
  // Transcripts from before instance ids existed: the task name, as a task file's default.
  instance_id: NameSchema.optional(),
  file: z.string(),
  // Transcripts from before it was recorded: unknown, and a comparison says so.
  file_sha256: Sha256Schema.nullable().default(null),
  prompt: z.string(),
  extra_system: z.string().nullable(),
  model: z.string(),
  limits: z.object({
    max_steps: z.number(),
    max_tokens: z.number(),
    max_output_tokens: z.number(),
    timeout_ms: z.number(),
    max_cost_usd: z.number().nullable().default(null),
    max_repeated_calls: z.number().default(5),
    max_context_tokens: z.number().default(150_000),
  }),
  tools: z.array(z.enum(TOOL_NAMES)),
  subagents: z
    .object({
      max_steps: z.number().int().positive().max(MAX_SUBAGENT_STEPS),
      max_depth: z.number().int().positive().max(MAX_SUBAGENT_DEPTH),
    })
    .prefault({ max_steps: DEFAULT_SUBAGENTS.maxSteps, max_depth: DEFAULT_SUBAGENTS.maxDepth }),
  provider: RecordedProviderSchema,
  tool_protocol: z.enum(["native", "text"]).default("native"),
  reasoning: z
    .object({
      effort: z.enum(REASONING_EFFORTS).nullable(),
      budget_tokens: z.number().int().positive().max(10_000_000).nullable(),
    })
    .nullable()
    .default(null),
  bash: z.object({
    timeout_ms: z.number(),
    env: z.record(z.string(), z.string()).default({}),
    allow: z.array(z.string()).default([]),
    deny: z.array(z.string()).default([]),
    max_output: z.number().default(30_000),
    max_recorded_output: z.number().default(1_000_000),
  }),
  sandbox: z.enum(["none", "bwrap"]).default("none"),
  // Transcripts from before the limits existed ran without them; replays get the defaults.
  sandbox_limits: z
    .object({
      tmp_size: z.number().default(DEFAULT_SANDBOX_LIMITS.tmpBytes),
      shm_size: z.number().default(DEFAULT_SANDBOX_LIMITS.shmBytes),
      max_processes: z.number().default(DEFAULT_SANDBOX_LIMITS.maxProcesses),
      max_file_size: z.number().default(DEFAULT_SANDBOX_LIMITS.maxFileBytes),
    })
    .prefault({}),
  allow_git_changes: z.boolean().default(false),
  mcp_servers: RecordedMcpServersSchema,
  replies: z.string().nullable(),
  checks: z.unknown(),
  command_tools: z.unknown().optional(),
  // Transcripts from before structured output have neither: their final reply was free text.
  output_schema: z.record(z.string(), z.unknown()).nullable().default(null),
  output_retries: z.number().int().min(0).max(MAX_OUTPUT_RETRIES).nullable().default(null),
  workspace: z.object({
    source: z.string(),
    path: z.string(),
    in_place: z.boolean(),
    content_hash: z.string().nullable(),
  }),
  offline: z.boolean(),
});

const OriginSchema = z.looseObject({ steps: z.number().int().nonnegative() });

/** Rebuilds a run from its transcript lines (from `readTranscript`); `path` is made absolute. */
export function recordedRun(transcriptPath: string, lines: readonly TranscriptLine[]): RecordedRun {
  const path = resolve(transcriptPath);
  const init = lines[0];
  const parsed = RecordedTaskSchema.safeParse(init?.type === "system" ? init.task : undefined);
  if (init === undefined || !parsed.success) {
    const issue = parsed.error?.issues[0];
    throw new TranscriptError(
      `${path}:1: the init line does not describe the task fully (${issue?.path.join(".") ?? "task"}: ${issue?.message ?? "missing"}); it may come from an older agent-run`,
    );
  }
  const recorded = parsed.data;
  // The name becomes a folder under --out: a recorded `../x` would put the run outside it.
  if (!TASK_NAME_PATTERN.test(recorded.name)) {
    throw new TranscriptError(
      `${path}:1: task.name: ${JSON.stringify(recorded.name)} is not a task name (${TASK_NAME_RULE}); the transcript was edited, and agent-run will not use it`,
    );
  }
  const { root, subagents, mcpCalls, ending } = recordedAgents(lines);
  const initLine = init.type === "system" && init.subtype === "init" ? init : undefined;
  const trial = initLine?.trial;
  return {
    path,
    sessionId: init.session_id,
    task: { ...toTask(recorded, path), trials: trial?.count ?? 1 },
    model: recorded.model,
    contentHash: recorded.workspace.content_hash,
    workspacePath: recorded.workspace.path,
    isInPlace: recorded.workspace.in_place,
    isOffline: recorded.offline,
    inheritedSteps:
      OriginSchema.safeParse(init.type === "system" ? init.origin : undefined).data?.steps ?? 0,
    replies: root.replies,
    toolResults: root.toolResults,
    subagents,
    mcpCalls,
    mcpTools: recordedMcpTools(init.type === "system" ? init.mcp_servers : undefined),
    ending,
    trial: trial === undefined ? undefined : { index: trial.index, count: trial.count },
    attempt: initLine?.attempt ?? 1,
    earlierAttempts: (initLine?.earlier_attempts ?? []).map(earlierAttemptOfJson),
  };
}

function toTask(recorded: z.infer<typeof RecordedTaskSchema>, path: string): Omit<Task, "trials"> {
  const checks = recordedChecks(recorded.checks, path);
  const commandTools = parseRecordedCommandTools(recorded.command_tools);
  if (!commandTools.ok) {
    throw new TranscriptError(
      `${path}:1: task.command_tools.${commandTools.message}; the transcript was edited, or comes from another agent-run, and agent-run will not use it`,
    );
  }
  const output = recordedOutput(recorded, path);
  return {
    name: recorded.name,
    instanceId: recorded.instance_id ?? recorded.name,
    fileSha256: recorded.file_sha256 ?? undefined,
    file: recorded.file,
    prompt: recorded.prompt,
    system: recorded.extra_system ?? undefined,
    model: recorded.model,
    provider: {
      name: recorded.provider.name,
      api: recorded.provider.api,
      baseURL: recorded.provider.base_url ?? undefined,
      apiKeyEnv: recorded.provider.api_key_env ?? undefined,
      compat: toCompat(recorded.provider.compat ?? {}),
      origin: `${path}:1: task.provider`,
    },
    toolProtocol: recorded.tool_protocol,
    reasoning: toReasoning(recorded.reasoning),
    workspace: recorded.workspace.source,
    limits: {
      maxSteps: recorded.limits.max_steps,
      maxTokens: recorded.limits.max_tokens,
      maxOutputTokens: recorded.limits.max_output_tokens,
      timeoutMs: recorded.limits.timeout_ms,
      maxCostUsd: recorded.limits.max_cost_usd ?? undefined,
      maxRepeatedCalls: recorded.limits.max_repeated_calls,
      maxContextTokens: recorded.limits.max_context_tokens,
    },
    tools: recorded.tools,
    subagents: {
      maxSteps: recorded.subagents.max_steps,
      maxDepth: recorded.subagents.max_depth,
    },
    bash: {
      timeoutMs: recorded.bash.timeout_ms,
      env: recorded.bash.env,
      allow: recorded.bash.allow,
      deny: recorded.bash.deny,
      // The recording keeps one list of each (a flag's patterns among the file's).
      flagAllow: [],
      flagDeny: [],
      maxOutputChars: recorded.bash.max_output,
      maxRecordedChars: recorded.bash.max_recorded_output,
    },
    commandTools: commandTools.tools,
    sandbox: recorded.sandbox,
    sandboxLimits: {
      tmpBytes: recorded.sandbox_limits.tmp_size,
      shmBytes: recorded.sandbox_limits.shm_size,
      maxProcesses: recorded.sandbox_limits.max_processes,
      maxFileBytes: recorded.sandbox_limits.max_file_size,
    },
    allowGitChanges: recorded.allow_git_changes,
    mcpServers: toMcpServerConfigs(recorded.mcp_servers),
    replies: recorded.replies ?? undefined,
    checks,
    output,
  };
}

/** The recorded `output_schema`, compiled again: one that does not compile was edited in. */
function recordedOutput(
  recorded: z.infer<typeof RecordedTaskSchema>,
  path: string,
): TaskOutput | undefined {
  const schema = recorded.output_schema;
  if (schema === null) return undefined;
  const compiled = compileOutputSchema(schema);
  if (!compiled.ok) {
    throw new TranscriptError(
      `${path}:1: task.output_schema does not compile: ${compiled.message}; the transcript was edited, or comes from another agent-run, and agent-run will not use it`,
    );
  }
  return { schema, maxRetries: recorded.output_retries ?? DEFAULT_OUTPUT_RETRIES };
}

function toReasoning(recorded: z.infer<typeof RecordedTaskSchema>["reasoning"]) {
  if (recorded === null) return undefined;
  return {
    ...(recorded.effort === null ? {} : { effort: recorded.effort }),
    ...(recorded.budget_tokens === null ? {} : { budgetTokens: recorded.budget_tokens }),
  };
}
