import { z } from "zod";
import type { Check } from "../checks/types.js";
import { REASONING_EFFORTS, type Reasoning } from "../model/model-client.js";
import type { OpenAICompat } from "../model/openai/compat.js";
import type { ProviderApi, ProviderName } from "../model/providers.js";
import type { CommandToolSpec } from "../tools/command-tool-spec.js";
import type { McpServerConfig } from "../tools/mcp-tools.js";
import type { Sandbox, SandboxLimits } from "../tools/sandbox.js";
import { DEFAULT_TOOL_NAMES, TOOL_NAMES, type ToolName } from "../tools/tool-names.js";
import { ChecksSchema } from "./checks-schema.js";
import { CommandToolsSchema } from "./command-tools-schema.js";
import { describeValue } from "./describe-value.js";
import { McpServersSchema } from "./mcp-schema.js";
import { OUTPUT_DEPENDENCIES, OUTPUT_FIELDS, type TaskOutput } from "./output-schema.js";
import { ProviderSchema, ToolProtocolSchema } from "./provider-schema.js";
import { SandboxLimitsSchema, SandboxSchema } from "./sandbox-schema.js";
import {
  duration,
  envMap,
  nonBlankString,
  positiveInt,
  positiveUsd,
  toolList,
  trialsField,
} from "./schema-fields.js";
import { SubagentsSchema } from "./subagents-schema.js";

/** The model used when neither the task, `--model` nor `ANTHROPIC_MODEL` names one. */
export const DEFAULT_MODEL = "claude-sonnet-5-5";

/** Documented defaults; README's task-format table mirrors these. */
export const DEFAULT_LIMITS = {
  maxSteps: 50,
  maxTokens: 2_000_000,
  maxOutputTokens: 8_192,
  timeoutMs: 20 * 60_000,
  maxRepeatedCalls: 5,
  maxContextTokens: 150_000,
} as const;

/** Per-command bash limit when the task sets none: long enough for a test run, short enough to catch a hang. */
export const DEFAULT_BASH_TIMEOUT_MS = 60_000;

/** Task names become folder names, so they stay filesystem- and URL-safe. */
export const TASK_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** The rule in words, for every error about a name that breaks it (task files, transcripts, summaries). */
export const TASK_NAME_RULE =
  "letters, digits, '.', '_' or '-', starting with a letter or digit, at most 100";

/** A string that follows the task-name rule: a task's `name`, and its `instance_id`. */
export const NameSchema = z.string().regex(TASK_NAME_PATTERN, {
  error: (issue) => `expected ${TASK_NAME_RULE}, got ${describeValue(issue.input)}`,
});

const minutes = (ms: number) => `${ms / 60_000}m`;
const seconds = (ms: number) => `${ms / 1_000}s`;

/** The YAML task file as written (snake_case keys). Unknown keys are errors. */
export const TaskFileSchema = z
  .object({
    name: NameSchema.optional().describe(
      "Task name: names the run's output folder and appears in reports; unique within one run. Letters, digits, '.', '_' or '-'. Default: the file name without its extension.",
    ),
    instance_id: NameSchema.optional().describe(
      "The benchmark instance the task is, as `agent-run export --swebench` writes it (SWE-bench's instance_id, e.g. django__django-11099). Letters, digits, '.', '_' or '-'. Default: the task name.",
    ),
    prompt: nonBlankString("must not be empty; write what the agent should do").describe(
      "What the agent should do: the first user message of the run. Required.",
    ),
    workspace: z
      .string()
      .min(1, "must not be empty; name the folder the agent works in")
      .describe(
        "Folder the agent works in, relative to this task file's folder (or absolute). Must exist. Required.",
      ),
    system: z
      .string()
      .optional()
      .describe("Extra instructions appended to the built-in system prompt. Default: none."),
    model: z
      .string()
      .min(1, "must not be empty; remove the field to use the default model")
      .optional()
      .describe(
        `Model id for this task. The --model option overrides it; without either, ANTHROPIC_MODEL, then ${DEFAULT_MODEL}.`,
      ),
    provider: ProviderSchema,
    limits: z
      .object({
        max_steps: positiveInt(
          `Most model turns the run may take before it stops with status max_steps. Default: ${DEFAULT_LIMITS.maxSteps}; at most 100,000.`,
          100_000,
        ),
        max_tokens: positiveInt(
          `Token budget for the whole run; past it the run stops with status max_tokens. Default: ${DEFAULT_LIMITS.maxTokens}; at most 10,000,000,000.`,
          10_000_000_000,
        ),
        max_output_tokens: positiveInt(
          `Most tokens the model may write in one reply. Default: ${DEFAULT_LIMITS.maxOutputTokens}; at most 128,000.`,
          128_000,
        ),
        max_repeated_calls: positiveInt(
          `Loop guard: the same tool call with the same input this many times in a row ends the run with status loop. Default: ${DEFAULT_LIMITS.maxRepeatedCalls}.`,
        ),
        max_cost_usd: positiveUsd(
          "Spending cap for the run in US dollars, at the price table's rates; past it the run stops with status max_cost. The model must have a known price. Default: none.",
        ),
        timeout: duration(
          `Wall-clock limit for the whole run ("90s", "10m", "1.5h", "500ms" or a number of seconds); past it the run stops with status timeout. Default: ${minutes(DEFAULT_LIMITS.timeoutMs)}.`,
        ),
      })
      .strict()
      .optional()
      .describe("Budgets that end the run early. Each one has a default."),
    context: z
      .object({
        max_tokens: positiveInt(
          `Context budget in tokens (estimated): past it, the oldest tool results are replaced by a short placeholder in what is sent to the model (the transcript keeps them), so a long run never fails on context length. Default: ${DEFAULT_LIMITS.maxContextTokens}.`,
          2_000_000,
        ),
      })
      .strict()
      .optional()
      .describe("How the conversation is kept within the model's context window."),
    tools: toolList()
      .optional()
      .describe(
        `Tools the agent may use, of ${TOOL_NAMES.join(", ")}. Default: ${DEFAULT_TOOL_NAMES.join(", ")}; the plan (todo_write, todo_read) and subagents (task) are offered only when listed.`,
      ),
    subagents: SubagentsSchema,
    tool_protocol: ToolProtocolSchema,
    reasoning: z
      .object({
        effort: z
          .enum(REASONING_EFFORTS)
          .optional()
          .describe(
            "How hard the model thinks: low, medium, high, xhigh or max. Messages API: adaptive thinking at this effort (output_config.effort); OpenAI format: reasoning_effort.",
          ),
        budget_tokens: positiveInt(
          "Messages API only: manual extended thinking with this many tokens to think in (thinking.budget_tokens); at least 1,024 and less than limits.max_output_tokens, which it counts against.",
          10_000_000,
        ),
      })
      .strict()
      // The runner refuses an empty section ("asks for nothing"); the schema says so too.
      .meta({ minProperties: 1 })
      .optional()
      .describe(
        "Turns on the model's reasoning (thinking). Thinking tokens are output tokens: they count against the token limits and the cost. Default: the model's own default (no thinking parameters sent).",
      ),
    bash: z
      .object({
        timeout: duration(
          `Limit for one bash command ("90s", "10m", … or a number of seconds). Default: ${seconds(DEFAULT_BASH_TIMEOUT_MS)}.`,
        ),
        env: envMap(
          'Extra environment variables for bash commands; values are strings (quote numbers: PORT: "8080"). Default: none.',
        ),
        allow: z
          .array(z.string().min(1, "must not be empty"))
          .optional()
          .describe(
            'Command patterns the agent may run; when set, any other command is refused. Globs over the whole command line: * matches anything, e.g. "npm *", "*git diff*". Default: any command.',
          ),
        deny: z
          .array(z.string().min(1, "must not be empty"))
          .optional()
          .describe(
            'Command patterns the agent may not run (globs over the whole command line, e.g. "*git push*"). Added to the built-in rules (sudo, shutdown, rm -rf /, ...). A guard-rail, not a boundary: use sandbox for that.',
          ),
        max_output: positiveInt(
          "Characters of a command's output sent to the model (head and tail kept, the middle cut). Default: 30,000.",
          10_000_000,
        ),
        max_recorded_output: positiveInt(
          "Characters of a command's output kept in the transcript (head and tail). Default: 1,000,000.",
          100_000_000,
        ),
      })
      .strict()
      .optional()
      .describe("Settings for the bash tool, which command tools share."),
    command_tools: CommandToolsSchema,
    mcp_servers: McpServersSchema,
    sandbox: SandboxSchema,
    sandbox_limits: SandboxLimitsSchema,
    allow_git_changes: z
      .boolean()
      .optional()
      .describe(
        "Let the run change what is under a .git folder or file in the workspace (a commit the agent makes in place, a repository it creates). agent-run lists those changes in summary.json either way; without this field a run that made any does not pass. Default: false.",
      ),
    replies: z
      .string()
      .min(1, "must not be empty; remove the field to use a live model")
      .optional()
      .describe(
        "Scripted model replies (a YAML or JSON list of Messages API replies, relative to this task file's folder) played instead of the API by --offline runs and tests. Default: none.",
      ),
    trials: trialsField(),
    checks: ChecksSchema,
    ...OUTPUT_FIELDS,
  })
  .strict()
  .meta({ dependencies: OUTPUT_DEPENDENCIES });

export type TaskFile = z.infer<typeof TaskFileSchema>;

export type Limits = {
  maxSteps: number;
  maxTokens: number;
  maxOutputTokens: number;
  timeoutMs: number;
  /** No cap when undefined. */
  maxCostUsd: number | undefined;
  maxRepeatedCalls: number;
  maxContextTokens: number;
};

/**
 * The model API a task talks to. `baseURL` and `apiKeyEnv` are what the task (or a flag) says;
 * the CLI fills in the preset's before the run, so the init line records what was used.
 */
export type ProviderSettings = {
  name: ProviderName;
  api: ProviderApi;
  baseURL: string | undefined;
  apiKeyEnv: string | undefined;
  /** The task's own compat settings; the preset's defaults for the model fill in the rest. */
  compat: Partial<OpenAICompat>;
  /** Where the settings were written (`file:line:col: provider`), for messages; undefined: the default. */
  origin: string | undefined;
};

export type ToolProtocol = "native" | "text";

/** A validated task with defaults applied and paths made absolute. */
export type Task = {
  name: string;
  /** The benchmark instance the task is (`instance_id:`, else the name): `export --swebench` writes it. */
  instanceId: string;
  /** The task file as the user named it (for messages). */
  file: string;
  /** SHA-256 (hex) of the task file's text; undefined for a task rebuilt from a transcript without it. */
  fileSha256?: string | undefined;
  prompt: string;
  /** Extra instructions appended to the built-in system prompt. */
  system: string | undefined;
  /** The task's own model, if it names one; the CLI resolves the final model. */
  model: string | undefined;
  provider: ProviderSettings;
  toolProtocol: ToolProtocol;
  /** The task's `reasoning:`; undefined: none asked for. */
  reasoning: Reasoning | undefined;
  /** Absolute path of the workspace folder. */
  workspace: string;
  limits: Limits;
  tools: ToolName[];
  /** The `task` tool's settings (used when `tools` lists `task`). */
  subagents: { maxSteps: number; maxDepth: number };
  bash: {
    timeoutMs: number;
    env: Record<string, string>;
    /** The task file's patterns. */
    allow: string[];
    deny: string[];
    /** The patterns `--bash-allow` / `--bash-deny` added, kept apart so a refusal names its source. */
    flagAllow: string[];
    flagDeny: string[];
    /** Output caps in characters: sent to the model, and kept in the transcript. */
    maxOutputChars: number;
    maxRecordedChars: number;
  };
  /** The task's own tools (`command_tools:`), offered after `tools`; empty when it has none. */
  commandTools: CommandToolSpec[];
  /** MCP servers whose tools the agent may use, in the task file's order; empty without any. */
  mcpServers: McpServerConfig[];
  sandbox: Sandbox;
  /** What each sandboxed command may use (whenever the sandbox is on, `--sandbox` included). */
  sandboxLimits: SandboxLimits;
  /** A run may change what is under a `.git` and still pass. */
  allowGitChanges: boolean;
  /** Absolute path of the scripted replies file, if any. */
  replies: string | undefined;
  /** Graders run after the agent stops, in file order; empty when the file has none. */
  checks: Check[];
  output: TaskOutput | undefined;
  /** How many times the batch runs the task (`trials:`, or `--trials`), each a trial of its own. */
  trials: number;
};
