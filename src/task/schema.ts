import { z } from "zod";

/** The tools a task can give the agent, in the order they are offered. */
export const TOOL_NAMES = ["bash", "read_file", "write_file", "edit_file", "list_files"] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** The model used when neither the task, `--model` nor `ANTHROPIC_MODEL` names one. */
export const DEFAULT_MODEL = "claude-sonnet-5-5";

/** Documented defaults; README's task-format table mirrors these. */
export const DEFAULT_LIMITS = {
  maxSteps: 50,
  maxTokens: 2_000_000,
  maxOutputTokens: 8_192,
  timeoutMs: 20 * 60_000,
} as const;

export const DEFAULT_BASH_TIMEOUT_MS = 60_000;

/** Task names become folder names, so they stay filesystem- and URL-safe. */
export const TASK_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

const DURATION_PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/;
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** Parses `90s`, `10m`, `1.5h`, `500ms`, or a bare number of seconds; null when malformed. */
export function parseDuration(value: string | number): number | null {
  if (typeof value === "number") return Number.isFinite(value) && value > 0 ? value * 1_000 : null;
  const match = DURATION_PATTERN.exec(value.trim());
  if (match === null) return null;
  const [, amount, unit] = match;
  const ms = Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  return ms > 0 ? Math.round(ms) : null;
}

const DurationSchema = z.union([z.string(), z.number()]).check((ctx) => {
  if (parseDuration(ctx.value) === null) {
    ctx.issues.push({
      code: "custom",
      input: ctx.value,
      message: `expected a duration such as "90s", "10m" or "1h", got ${JSON.stringify(ctx.value)}`,
    });
  }
});

const PositiveInt = z.number({ error: positiveIntMessage }).int({ error: positiveIntMessage }).positive({ error: positiveIntMessage });

function positiveIntMessage(issue: { input?: unknown }): string {
  return `expected a positive integer, got ${JSON.stringify(issue.input)}`;
}

/** The YAML task file as written (snake_case keys). Unknown keys are errors. */
export const TaskFileSchema = z
  .object({
    name: z
      .string()
      .regex(TASK_NAME_PATTERN, "expected letters, digits, '.', '_' or '-' (starting with a letter or digit, at most 100)")
      .optional(),
    prompt: z.string().trim().min(1, "must not be empty"),
    workspace: z.string().min(1, "must not be empty"),
    system: z.string().optional(),
    model: z.string().min(1, "must not be empty").optional(),
    limits: z
      .object({
        max_steps: PositiveInt.optional(),
        max_tokens: PositiveInt.optional(),
        max_output_tokens: PositiveInt.optional(),
        timeout: DurationSchema.optional(),
      })
      .strict()
      .optional(),
    tools: z.array(z.enum(TOOL_NAMES)).optional(),
    bash: z
      .object({
        timeout: DurationSchema.optional(),
        env: z.record(z.string(), z.string()).optional(),
      })
      .strict()
      .optional(),
    replies: z.string().min(1, "must not be empty").optional(),
  })
  .strict();

export type TaskFile = z.infer<typeof TaskFileSchema>;

export type Limits = {
  maxSteps: number;
  maxTokens: number;
  maxOutputTokens: number;
  timeoutMs: number;
};

/** A validated task with defaults applied and paths made absolute. */
export type Task = {
  name: string;
  /** The task file as the user named it (for messages). */
  file: string;
  prompt: string;
  /** Extra instructions appended to the built-in system prompt. */
  system: string | undefined;
  /** The task's own model, if it names one; the CLI resolves the final model. */
  model: string | undefined;
  /** Absolute path of the workspace folder. */
  workspace: string;
  limits: Limits;
  tools: ToolName[];
  bash: { timeoutMs: number; env: Record<string, string> };
  /** Absolute path of the scripted replies file, if any. */
  replies: string | undefined;
};
