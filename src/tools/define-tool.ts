import { z } from "zod";
import { clip } from "../format.js";
import type { PlanItem } from "./plan-store.js";

/** What a tool hands back to the loop; `isError` results go to the model as `is_error: true`. */
export type ToolResult = {
  content: string;
  /**
   * A larger copy of `content` for the transcript (commands: up to ~1 MB of output, head and
   * tail); absent when it would equal `content`.
   */
  recordedContent?: string;
  isError: boolean;
  /** Commands only (bash, command tools): the exit code (null when killed by a signal or timed out). */
  exitCode?: number | null;
  /** Commands only: the per-command timeout killed it. */
  timedOut?: boolean;
  /** Commands only: the command policy refused the command, so nothing ran. */
  isRefused?: boolean;
  /** todo_write only: the plan as it now stands (the loop reports it as a `plan_updated` event). */
  plan?: readonly PlanItem[];
  /** MCP only: a replay, fork or resume served the recorded result; no server was called. */
  isFromRecording?: boolean;
};

/** What every tool call gets from the runner; tools never read `process.cwd()` or `process.env`. */
export type ToolContext = {
  /** Absolute, real path of the workspace root. */
  workspaceRoot: string;
  /** Aborted on task timeout or cancellation; tools must stop (and kill processes) when it fires. */
  signal: AbortSignal;
  /** The call's `tool_use` id, when the loop runs it (a replay serves recorded results by it). */
  toolUseId?: string;
  /** Set when a subagent makes the call: the `task` call that started it (its plan is its own). */
  parentToolUseId?: string | undefined;
};

/** A tool as the loop sees it: validated input in, result out. */
export type Tool = {
  name: string;
  description: string;
  /** JSON Schema for the API's `input_schema`, generated from the zod schema. */
  inputSchema: Record<string, unknown>;
  /** Validates `input` and runs the tool. Input problems come back as error results, not throws. */
  execute(input: unknown, ctx: ToolContext): Promise<ToolResult>;
};

/** An expected, model-facing failure (text not found, path outside the workspace). */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

type ToolDefinition<S extends z.ZodObject> = {
  name: string;
  description: string;
  input: S;
  run(input: z.infer<S>, ctx: ToolContext): Promise<ToolResult>;
};

/** Builds a `Tool` whose zod schema is both the validator and the API `input_schema`. */
export function defineTool<S extends z.ZodObject>(definition: ToolDefinition<S>): Tool {
  return {
    name: definition.name,
    description: definition.description,
    inputSchema: inputJsonSchema(definition.input),
    async execute(input, ctx) {
      // jitless: no parser compiled with `new Function`, as in load-task.ts.
      const parsed = definition.input.safeParse(input, { jitless: true });
      if (!parsed.success) {
        return { content: describeInputError(definition.name, input, parsed.error), isError: true };
      }
      return definition.run(parsed.data, ctx);
    },
  };
}

/** The API's `input_schema`: the zod schema's JSON Schema for its input, without `$schema`. */
export function inputJsonSchema(schema: z.ZodObject): Record<string, unknown> {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io: "input" });
  return json;
}

/** Most schema problems one error result lists; each quotes a field name and zod's message. */
const MAX_LISTED_PROBLEMS = 5;

/**
 * Phrases a schema mismatch so the model can fix its call. Field names and zod's messages (which
 * quote unknown keys) come from the input: each is clipped, and only the first problems listed.
 */
function describeInputError(toolName: string, input: unknown, error: z.ZodError): string {
  const problems = error.issues.slice(0, MAX_LISTED_PROBLEMS).map((issue) => {
    const field = issue.path.length > 0 ? `"${clip(issue.path.join("."), 200)}"` : "input";
    const isMissing = issue.code === "invalid_type" && valueAt(input, issue.path) === undefined;
    return isMissing ? `${field} is required` : `${field}: ${clip(issue.message, 300)}`;
  });
  const more = error.issues.length - MAX_LISTED_PROBLEMS;
  if (more > 0) problems.push(`and ${more} more problems`);
  return `${toolName}: ${problems.join("; ")}; re-send the call with every required field.`;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = Reflect.get(current, key);
  }
  return current;
}
