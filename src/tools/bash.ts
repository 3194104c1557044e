import { z } from "zod";
import { formatBytes, formatDuration } from "../format.js";
import { defineTool, type Tool } from "./define-tool.js";
import type { SandboxLimits } from "./sandbox.js";
import { resolveShellSettings, runShellCommand, type ShellOptions } from "./shell-command.js";

const BashInputSchema = z
  .object({
    command: z
      .string()
      .min(1)
      .describe("The shell command to run, e.g. `npm test 2>&1 | tail -50`."),
  })
  .strict();

/**
 * The bash tool: runs one shell command in the workspace and reports its output and exit code.
 * Throws `ConfigError` when the sandbox it asks for is not installed.
 */
export function createBashTool(options: ShellOptions): Tool {
  const settings = resolveShellSettings(options);
  return defineTool({
    name: "bash",
    description: describeBash(options.timeoutMs, settings.maxOutputChars, settings.sandbox?.limits),
    input: BashInputSchema,
    run: (input, ctx) =>
      runShellCommand({ toolName: "bash", command: input.command }, ctx, settings),
  });
}

/**
 * The bash tool's description for these settings (`sandboxLimits`: commands run in the sandbox
 * with these bounds); an export describes a recorded run's tool with it.
 */
export function describeBash(
  timeoutMs: number,
  maxOutputChars: number,
  sandboxLimits: Readonly<SandboxLimits> | undefined,
): string {
  return [
    "Run a shell command (bash) in the workspace root and return its combined stdout and stderr,",
    "followed by its exit code. Each call starts a fresh shell: `cd` and variables do not carry over.",
    "stdin is closed, so interactive programs get end-of-file; pass flags like --yes instead.",
    `Commands are killed after ${formatDuration(timeoutMs)}, together with everything they started;`,
    "background processes are killed with it, and the call does not wait for detached ones.",
    `Output beyond ${maxOutputChars} characters is cut in the middle; pipe through head,`,
    "tail or grep to keep it short. Destructive commands (sudo, shutdown, rm -rf /...) are refused.",
    ...(sandboxLimits === undefined ? [] : describeSandbox(sandboxLimits)),
  ].join(" ");
}

function describeSandbox(limits: Readonly<SandboxLimits>): string[] {
  return [
    "Commands run in a sandbox: only the workspace is writable, /tmp is private and empty,",
    "and there is no network. Limits: /tmp and /dev/shm hold",
    `${formatBytes(limits.tmpBytes)} and ${formatBytes(limits.shmBytes)},`,
    `at most ${limits.maxProcesses} processes and threads run at once,`,
    `and no file may grow past ${formatBytes(limits.maxFileBytes)}.`,
  ];
}
