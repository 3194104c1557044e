import { statSync } from "node:fs";
import { dirname, isAbsolute, join, parse, resolve } from "node:path";
import type { TaskFileProblem } from "../errors.js";
import { DEFAULT_SANDBOX_LIMITS } from "../tools/sandbox.js";
import { DEFAULT_TOOL_NAMES, TOOL_NAMES } from "../tools/tool-names.js";
import { resolveChecks } from "./resolve-checks.js";
import { resolveCommandTools } from "./resolve-command-tools.js";
import { resolveMcpServers } from "./resolve-mcp.js";
import { resolveOutput } from "./resolve-output.js";
import { resolveProvider } from "./resolve-provider.js";
import { resolveReasoning } from "./resolve-reasoning.js";
import { toolProblems } from "./resolve-tools.js";
import {
  DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_LIMITS,
  TASK_NAME_PATTERN,
  type Task,
  type TaskFile,
} from "./schema.js";
import { durationMs, sizeBytes } from "./schema-fields.js";
import { DEFAULT_SUBAGENTS } from "./subagents-schema.js";
import { FILE_START, type Locator } from "./yaml-locator.js";

const RELATIVE_HINT = "paths are relative to the task file's folder";

/** Applies defaults, converts durations and makes paths absolute; checks the named paths exist. */
export function resolveTask(
  file: string,
  data: TaskFile,
  locator: Locator,
): { task: Task; problems: TaskFileProblem[] } {
  const provider = resolveProvider(file, data, locator);
  const reasoning = resolveReasoning(file, data, provider.provider.api, locator);
  const built = buildTask(file, data, locator);
  const tools = resolveCommandTools(file, data, locator, built.bash.timeoutMs);
  const mcp = resolveMcpServers(file, data, built.bash.timeoutMs, locator);
  const output = resolveOutput(file, data, locator);
  const task = {
    ...built,
    provider: provider.provider,
    reasoning: reasoning.reasoning,
    commandTools: tools.commandTools,
    mcpServers: mcp.servers,
    output: output.output,
  };
  const problems: TaskFileProblem[] = [
    ...provider.problems,
    ...reasoning.problems,
    ...toolProblems(file, data, locator),
    ...tools.problems,
    ...mcp.problems,
    ...output.problems,
  ];
  if (data.name === undefined && !TASK_NAME_PATTERN.test(task.name)) {
    problems.push({
      file,
      ...FILE_START,
      path: "name",
      message: `the file name gives the task name ${JSON.stringify(task.name)}, which is not allowed (letters, digits, '.', '_' or '-'); rename the file or add a "name:" field`,
    });
  }
  const paths = [
    { field: "workspace", value: data.workspace, kind: "folder" },
    { field: "replies", value: data.replies, kind: "file" },
  ] as const;
  for (const { field, value, kind } of paths) {
    const message = value === undefined ? undefined : checkPath(dirname(file), value, kind);
    if (message !== undefined)
      problems.push({ file, ...locator.value([field]), path: field, message });
  }
  return { task, problems };
}

function buildTask(
  file: string,
  data: TaskFile,
  locator: Locator,
): Omit<Task, "provider" | "reasoning" | "commandTools" | "mcpServers" | "output"> {
  const folder = dirname(file);
  const name = data.name ?? parse(file).name;
  return {
    name,
    instanceId: data.instance_id ?? name,
    file,
    prompt: data.prompt,
    system: data.system,
    model: data.model,
    toolProtocol: data.tool_protocol ?? "native",
    workspace: resolve(folder, data.workspace),
    limits: {
      maxSteps: data.limits?.max_steps ?? DEFAULT_LIMITS.maxSteps,
      maxTokens: data.limits?.max_tokens ?? DEFAULT_LIMITS.maxTokens,
      maxOutputTokens: data.limits?.max_output_tokens ?? DEFAULT_LIMITS.maxOutputTokens,
      timeoutMs: durationMs(data.limits?.timeout, DEFAULT_LIMITS.timeoutMs),
      maxCostUsd: data.limits?.max_cost_usd,
      maxRepeatedCalls: data.limits?.max_repeated_calls ?? DEFAULT_LIMITS.maxRepeatedCalls,
      maxContextTokens: data.context?.max_tokens ?? DEFAULT_LIMITS.maxContextTokens,
    },
    // In the order tools are offered (the schema refuses repeats).
    tools: TOOL_NAMES.filter((tool) =>
      data.tools === undefined ? DEFAULT_TOOL_NAMES.includes(tool) : data.tools.includes(tool),
    ),
    subagents: {
      maxSteps: data.subagents?.max_steps ?? DEFAULT_SUBAGENTS.maxSteps,
      maxDepth: data.subagents?.max_depth ?? DEFAULT_SUBAGENTS.maxDepth,
    },
    bash: {
      timeoutMs: durationMs(data.bash?.timeout, DEFAULT_BASH_TIMEOUT_MS),
      env: data.bash?.env ?? {},
      allow: data.bash?.allow ?? [],
      deny: data.bash?.deny ?? [],
      flagAllow: [],
      flagDeny: [],
      maxOutputChars: data.bash?.max_output ?? 30_000,
      maxRecordedChars: Math.max(
        data.bash?.max_recorded_output ?? 1_000_000,
        data.bash?.max_output ?? 30_000,
      ),
    },
    trials: data.trials ?? 1,
    sandbox: data.sandbox ?? "none",
    sandboxLimits: {
      tmpBytes: sizeBytes(data.sandbox_limits?.tmp_size, DEFAULT_SANDBOX_LIMITS.tmpBytes),
      shmBytes: sizeBytes(data.sandbox_limits?.shm_size, DEFAULT_SANDBOX_LIMITS.shmBytes),
      maxProcesses: data.sandbox_limits?.max_processes ?? DEFAULT_SANDBOX_LIMITS.maxProcesses,
      maxFileBytes: sizeBytes(
        data.sandbox_limits?.max_file_size,
        DEFAULT_SANDBOX_LIMITS.maxFileBytes,
      ),
    },
    allowGitChanges: data.allow_git_changes ?? false,
    replies: data.replies === undefined ? undefined : resolve(folder, data.replies),
    checks: resolveChecks(data.checks ?? [], locator),
  };
}

/** The path as the user would type it from where they ran agent-run (relative stays relative). */
function shownPath(folder: string, value: string): string {
  return isAbsolute(value) ? value : join(folder, value);
}

function checkPath(folder: string, value: string, kind: "file" | "folder"): string | undefined {
  const path = shownPath(folder, value);
  try {
    const info = statSync(path);
    if (kind === "folder" && !info.isDirectory())
      return `${JSON.stringify(path)} is a file, not a folder; point it at a folder`;
    if (kind === "file" && !info.isFile())
      return `${JSON.stringify(path)} is a folder, not a file; point it at a file`;
    return undefined;
  } catch (error) {
    const code = error instanceof Error && "code" in error ? error.code : undefined;
    if (code !== "ENOENT" && code !== "ENOTDIR") {
      return `cannot open ${JSON.stringify(path)}: ${error instanceof Error ? error.message : String(error)}`;
    }
    const tilde = value.startsWith("~") ? '; "~" is not expanded, write the full path' : "";
    return `${kind} ${JSON.stringify(path)} does not exist; ${RELATIVE_HINT}${tilde}`;
  }
}
