/** The built-in instructions every task gets; a task's `system` is appended after them. */
export const BASE_SYSTEM_PROMPT = `You are a coding agent running non-interactively (headless, for example in CI).
You work inside one workspace folder; every path you use is relative to it, and nothing outside it is reachable with the file tools.
Nobody will answer questions during the run: make reasonable decisions yourself and keep going until the task is done.
Use the tools to inspect files before changing them, make focused changes, and run the project's own checks (tests, linters) with bash when there are any.
Prefer edit_file for small changes to existing files and write_file for new files or complete rewrites.
When you are done, stop calling tools and reply with a short summary of what you changed and how you verified it.`;

/** Added when the agent has the plan tool. */
export const PLAN_PROMPT = `# Planning
You have a plan tool, todo_write. Before you start a task of more than two or three steps, write the plan: the steps in order, all pending.
Mark a step in_progress when you start it (one at a time) and completed as soon as it is done, sending the whole list each time; add steps you discover, and remove those that no longer apply.
Finish with every step completed: the plan is part of how the run is judged.`;

/** Added when the agent can start subagents. */
export const SUBAGENT_PROMPT = `# Subagents
You can hand a self-contained sub-task to a subagent with the task tool: it starts with a fresh conversation in the same workspace, works until it is done, and its final message comes back to you.
Delegate work that needs many steps of its own (investigating a failure, a focused change in one area), and give it a complete prompt: it sees nothing of your conversation.
Its model calls and tokens count against your limits, so do small things yourself.`;

/** Added for a subagent: who reads its final message. */
export const SUBAGENT_ROLE_PROMPT = `# You are a subagent
Another agent gave you this task and will read only your final message: make it a complete, concise report of what you found and what you changed.`;

/**
 * Added when the task has `output_schema`: the final reply is its JSON object, not a summary. The
 * schema is written out in full, so every protocol (native tools, the text protocol) sees it.
 */
export function outputPrompt(schema: object): string {
  return `# Final reply: a JSON object
This task asks for structured output. When you are done, your final reply (the one without tool calls) is not a summary: it is only a JSON object valid against the JSON Schema below, with no other text (a \`\`\`json fenced block is accepted). If it is not valid, you are told what is wrong and asked again.
${JSON.stringify(schema)}`;
}

/**
 * The system prompt of an agent with these tools: the built-in prompt, the parts for the plan
 * and subagents when it has those tools, the subagent's role when it is one, the task's own
 * instructions, then what the final reply must be when the task asks for structured output.
 */
export function buildSystemPrompt(
  extra: string | undefined,
  tools: readonly string[] = [],
  isSubagent = false,
  outputSchema: object | undefined = undefined,
): string {
  const trimmed = extra?.trim() ?? "";
  return [
    BASE_SYSTEM_PROMPT,
    tools.includes("todo_write") ? PLAN_PROMPT : "",
    tools.includes("task") ? SUBAGENT_PROMPT : "",
    isSubagent ? SUBAGENT_ROLE_PROMPT : "",
    trimmed === "" ? "" : `# Task-specific instructions\n${trimmed}`,
    outputSchema === undefined ? "" : outputPrompt(outputSchema),
  ]
    .filter((part) => part !== "")
    .join("\n\n");
}
