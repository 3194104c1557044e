import { z } from "zod";
import { clip } from "../format.js";
import { defineTool, inputJsonSchema, type Tool, type ToolResult } from "../tools/define-tool.js";
import type { AgentEvent, RunResult, SubagentOrigin } from "./events.js";
import { describeLimit } from "./limit-text.js";
import type { Placement, RunAgentOptions, SubagentSettings } from "./run-state.js";

// The `task` tool: the agent hands a sub-task to a subagent, a loop of its own with a fresh
// conversation, in the same workspace, with a subset of the agent's tools, under its own step
// limit and every limit of the run. The subagent's final text is the tool's result.

/** Most characters of a subagent's final text the calling agent gets back. */
const MAX_SUBAGENT_TEXT_CHARS = 30_000;

const TaskInputSchema = z
  .object({
    description: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .describe("A short name for the sub-task (3 to 6 words), shown in logs and reports."),
    prompt: z
      .string()
      .trim()
      .min(1)
      .describe(
        "Everything the subagent needs to know: it starts with a fresh conversation and sees nothing of yours.",
      ),
    tools: z
      .array(z.string())
      .max(64)
      .optional()
      .describe("The tools the subagent may use, a subset of yours. Default: all of yours."),
    max_steps: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Most model calls the subagent may make. Default and most: the task's limit."),
  })
  .strict();

/** What the `task` tool of one agent needs from its loop. */
export type TaskToolContext = {
  options: RunAgentOptions;
  settings: SubagentSettings;
  placement: Placement;
  /** The calling agent's current step. */
  step: () => number;
  /** The calling agent's top-level step (its own step for the top-level agent). */
  rootStep: () => number;
  /** Runs a subagent's loop (the loop itself: injected, so this module does not import it). */
  runChild: (options: RunAgentOptions, placement: Placement) => Promise<RunResult>;
  /** Told when a subagent stopped at a limit that stops the calling agent too. */
  onStop: (result: RunResult) => void;
};

/** The `task` tool's description; `canNest`: the subagents it starts may start their own. */
function describeTaskTool(canNest: boolean): string {
  return [
    "Hand a self-contained sub-task to a subagent: a new agent with a fresh conversation, in the same workspace.",
    "It works until it is done and its final message comes back as this tool's result.",
    "Use it for work that needs many steps of its own (investigating, a focused change); give it a complete prompt.",
    canNest ? "" : "A subagent cannot start subagents of its own.",
  ]
    .filter((part) => part !== "")
    .join(" ");
}

/** The `task` tool as the model is offered it, without a loop to run it (for an export). */
export function taskToolSpec(canNest: boolean): Pick<Tool, "name" | "description" | "inputSchema"> {
  return {
    name: "task",
    description: describeTaskTool(canNest),
    inputSchema: inputJsonSchema(TaskInputSchema),
  };
}

/** The `task` tool of one agent (at `placement.budget.depth`). */
export function createTaskTool(ctx: TaskToolContext): Tool {
  const canNest = ctx.placement.budget.depth + 1 < ctx.settings.maxDepth;
  return defineTool({
    name: "task",
    description: describeTaskTool(canNest),
    input: TaskInputSchema,
    run: async (input, toolCtx) => {
      const toolUseId = toolCtx.toolUseId ?? "task";
      // A subagent's lines name its task call: two subagents of one id could not be told apart.
      if (ctx.placement.taskIds.has(toolUseId)) {
        const id = JSON.stringify(clip(toolUseId, 80));
        return {
          content: `task: the call id ${id} already started a subagent in this run, so this call was not run; send it again with a new id`,
          isError: true,
        };
      }
      const tools = childTools(ctx, input.tools, canNest);
      if ("error" in tools) return { content: tools.error, isError: true };
      ctx.placement.taskIds.add(toolUseId);
      return runSubagent(ctx, input, toolUseId, tools);
    },
  });
}

/** Runs the subagent a `task` call asked for, between its start and end events. */
async function runSubagent(
  ctx: TaskToolContext,
  input: z.infer<typeof TaskInputSchema>,
  toolUseId: string,
  tools: { tools: Tool[]; withTask: boolean },
): Promise<ToolResult> {
  const depth = ctx.placement.budget.depth + 1;
  const maxSteps = Math.min(input.max_steps ?? ctx.settings.maxSteps, ctx.settings.maxSteps);
  const names = [...tools.tools.map((tool) => tool.name), ...(tools.withTask ? ["task"] : [])];
  const { description, prompt } = input;
  const step = ctx.step();
  const start = { type: "subagent_start" as const, step, toolUseId, description, prompt };
  ctx.options.onEvent(tagged(ctx.placement.origin, { ...start, depth, tools: names, maxSteps }));
  const origin: SubagentOrigin = { parentToolUseId: toolUseId, rootStep: ctx.rootStep() };
  let toolUses = 0;
  const count = (event: AgentEvent) => {
    if (event.type === "tool_result" && event.subagent?.parentToolUseId === toolUseId)
      toolUses += 1;
    ctx.options.onEvent(event);
  };
  const result = await ctx.runChild(
    {
      ...ctx.options,
      model: ctx.settings.modelFor(toolUseId),
      system: ctx.settings.systemFor(names),
      prompt,
      tools: tools.tools,
      onEvent: count,
      subagents: tools.withTask ? ctx.settings : undefined,
      // Its final message is a report to the calling agent, never the task's structured output.
      output: undefined,
    },
    { budget: ctx.placement.budget.child(maxSteps), origin, taskIds: ctx.placement.taskIds },
  );
  const end = { type: "subagent_end" as const, step, toolUseId, result, toolUses };
  ctx.options.onEvent(tagged(ctx.placement.origin, end));
  return toolResultOf(result, depth, ctx);
}

/** The subagent's tools: the ones asked for (default: all), never one the calling agent lacks. */
function childTools(
  ctx: TaskToolContext,
  asked: readonly string[] | undefined,
  canNest: boolean,
): { tools: Tool[]; withTask: boolean } | { error: string } {
  const own = ctx.options.tools;
  const ownNames = [...own.map((tool) => tool.name), "task"];
  if (asked !== undefined && asked.length === 0) {
    return {
      error: `task: "tools" is empty, so the subagent could not act; list some of yours (${ownNames.join(", ")}), or leave "tools" out for all of them`,
    };
  }
  // Each once, in the order asked.
  const names = [...new Set(asked ?? ownNames.filter((name) => name !== "task" || canNest))];
  const missing = names.filter((name) => !ownNames.includes(name));
  if (missing.length > 0) {
    const list = missing.map((name) => JSON.stringify(clip(name, 80))).join(", ");
    return {
      error: `task: a subagent can only have tools you have; you do not have ${list}. Yours: ${ownNames.join(", ")}. Send the call again with a subset of yours, or without "tools" for all of them.`,
    };
  }
  if (names.includes("task") && !canNest) {
    return {
      error: `task: a subagent cannot start subagents of its own here (subagents.max_depth is ${ctx.settings.maxDepth}); send the call again without "task" in "tools"`,
    };
  }
  return {
    tools: own.filter((tool) => names.includes(tool.name)),
    withTask: names.includes("task"),
  };
}

/**
 * What the calling agent gets back: the subagent's final text when it completed; otherwise why it
 * stopped, and its last text. A limit of the run (or of an agent above) stops the caller too.
 */
function toolResultOf(result: RunResult, depth: number, ctx: TaskToolContext): ToolResult {
  const text = clip(result.finalText, MAX_SUBAGENT_TEXT_CHARS);
  if (result.status === "completed") {
    return {
      content: text === "" ? "(the subagent finished without a final message)" : text,
      isError: false,
    };
  }
  const hit = result.stoppedBy;
  if (hit !== undefined && (hit.depth ?? 0) < depth) ctx.onStop(result);
  const why =
    hit !== undefined
      ? describeLimit(hit)
      : `it ended with status ${result.status}${result.error === undefined ? "" : `: ${result.error}`}`;
  const last = text === "" ? "It wrote no final message." : `Its last message:\n${text}`;
  return { content: `The subagent stopped before it finished: ${why}. ${last}`, isError: true };
}

/** The event as the calling agent reports it: tagged with its own origin when it is a subagent. */
export function tagged(origin: SubagentOrigin | undefined, event: AgentEvent): AgentEvent {
  return origin === undefined ? event : { ...event, subagent: origin };
}
