import { taskCommandEnv } from "../process/command-env.js";
import { sandboxReadOnlyPaths } from "../tools/git-dirs.js";
import type { Sandbox } from "../tools/sandbox.js";
import type { Snapshot } from "../workspace/snapshot.js";
import { hasMcpServers, type RunMcp, startRunMcp } from "./run-mcp.js";
import type { Run } from "./run-record.js";

// What a run's commands (bash, run checks) and MCP servers get: their environment, the sandbox,
// the paths it keeps read-only, and when the servers start.

/** The environment, sandbox and read-only paths of a run's commands and servers. */
export type CommandSetup = {
  /** The complete environment (see `taskCommandEnv`): never an API key. */
  commandEnv: Record<string, string>;
  sandbox: Sandbox;
  /** Paths in the workspace the sandbox keeps read-only (see `protectedPaths`). */
  readOnlyPaths: Promise<readonly string[]>;
};

/** The command environment, sandbox and read-only paths of the run's commands and servers. */
export function commandSetup(run: Run, workspace: string): CommandSetup {
  const { options } = run;
  const { task } = options;
  const sandbox = options.sandbox ?? task.sandbox;
  const commandEnv = taskCommandEnv(options.baseEnv, {
    workspace,
    isInPlace: options.inPlace,
    env: task.bash.env,
  });
  return { commandEnv, sandbox, readOnlyPaths: protectedPaths(run, workspace, sandbox) };
}

/** Starts the MCP servers once the starting state is recorded (none without one). */
export function startMcpAfter(
  run: Run,
  before: Promise<Snapshot | undefined>,
  setup: CommandSetup & { workspace: string },
): Promise<RunMcp | undefined> {
  const { task, mcpRecording, signal } = run.options;
  if (!hasMcpServers(task, mcpRecording)) return Promise.resolve(undefined);
  return before.then(async (snapshot) => {
    if (snapshot === undefined) return undefined;
    const mcp = await startRunMcp({
      task,
      recording: mcpRecording,
      workspaceRoot: setup.workspace,
      env: setup.commandEnv,
      sandbox: setup.sandbox,
      readOnlyPaths: setup.readOnlyPaths,
      signal,
    });
    for (const server of mcp.servers) {
      if (server.status !== "failed") continue;
      const error = server.error ?? "it did not start";
      run.options.onEvent?.({ type: "mcp_server_failed", step: 0, name: server.name, error });
    }
    return mcp;
  });
}

/**
 * In place under the sandbox: every .git in the workspace and the output folders inside it, which
 * commands must not change. Found beside the first model call; commands wait for the list. A copy
 * has no .git (the agent's own `git init` stays writable) and no output folder inside it.
 */
function protectedPaths(run: Run, workspace: string, sandbox: Sandbox): Promise<readonly string[]> {
  const { inPlace, outDir } = run.options;
  if (sandbox !== "bwrap" || !inPlace) return Promise.resolve([]);
  const paths = sandboxReadOnlyPaths(workspace, [outDir, run.runDir]);
  // The tools report a failure when a command needs the list; until then it must not go unhandled.
  paths.catch(() => {});
  return paths;
}
