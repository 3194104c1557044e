import { messageOf } from "../errors.js";
import type { Task } from "../task/schema.js";
import type { Tool } from "../tools/define-tool.js";
import {
  createRecordedResults,
  type McpCall,
  type McpRecording,
  type McpServerStatus,
  mcpToolName,
  mcpTools,
  replayedCall,
} from "../tools/mcp-tools.js";
import type { Sandbox } from "../tools/sandbox.js";

// A run's MCP servers, as the run sees them: started for a run, a fork or a resume (the MCP
// module, and with it the SDK, loaded only then), answered from the recording in a replay. The
// tools come after the built-in ones; the statuses go into the init line.

/** The MCP side of one run. */
export type RunMcp = {
  /** The tools offered to the model, named `mcp__<server>__<tool>`. */
  tools: Tool[];
  /** Each server's status and tools, for the init line. */
  servers: McpServerStatus[];
  /** Stops the servers; never throws. */
  close(): Promise<void>;
};

/** What starting a run's servers needs. */
export type RunMcpOptions = {
  task: Task;
  /** A replay's, fork's or resume's recording; undefined for a new run. */
  recording: McpRecording | undefined;
  workspaceRoot: string;
  /** The task's command environment (no API key in it). */
  env: Record<string, string>;
  sandbox: Sandbox;
  readOnlyPaths: Promise<readonly string[]>;
  signal: AbortSignal;
};

/** Whether a run has MCP servers: declared by its task, or recorded in the run it replays. */
export function hasMcpServers(task: Task, recording: McpRecording | undefined): boolean {
  return task.mcpServers.length > 0 || (recording?.tools.size ?? 0) > 0;
}

/**
 * The run's servers and their tools. Never throws: a server that cannot start is `failed`, and
 * its tools (those a recording knows of) answer with why.
 */
export async function startRunMcp(options: RunMcpOptions): Promise<RunMcp> {
  const { recording } = options;
  if (recording !== undefined && !recording.isLive) return replayedMcp(recording);
  const { task } = options;
  let session: Awaited<ReturnType<typeof startSession>>;
  try {
    session = await startSession(options);
  } catch (error) {
    const failed = task.mcpServers.map((server) => failedStatus(server.name, messageOf(error)));
    session = { servers: failed, tools: [], callTool: notRunning(failed), close: async () => {} };
  }
  if (recording === undefined) return session;
  // A fork or resume offers the tools the recorded run offered (the conversation saw them).
  const servers = session.servers.map((status) => ({
    ...status,
    tools: recording.tools.get(status.name)?.slice() ?? status.tools,
  }));
  const recorded = createRecordedResults(recording);
  const tools = servers.flatMap((status) =>
    mcpTools(status.name, status.tools, session.callTool, recorded),
  );
  return { tools, servers, close: session.close };
}

/** Loads the MCP module (and the SDK) only for a run that starts servers. */
async function startSession(options: RunMcpOptions) {
  const { startMcpServers } = await import("../tools/mcp-servers.js");
  return startMcpServers(options.task.mcpServers, {
    workspaceRoot: options.workspaceRoot,
    env: options.env,
    sandbox: options.sandbox,
    sandboxLimits: options.task.sandboxLimits,
    readOnlyPaths: options.readOnlyPaths,
    signal: options.signal,
  });
}

/** A replay: no server runs; each recorded call is answered from the recording. */
function replayedMcp(recording: McpRecording): RunMcp {
  const servers: McpServerStatus[] = [...recording.tools].map(([name, tools]) => ({
    name,
    status: "replayed",
    tools: [...tools],
    notes: [],
  }));
  const recorded = createRecordedResults(recording);
  const tools = servers.flatMap((status) =>
    mcpTools(status.name, status.tools, replayedCall, recorded),
  );
  return { tools, servers, close: async () => {} };
}

function failedStatus(name: string, error: string): McpServerStatus {
  return { name, status: "failed", error, tools: [], notes: [] };
}

/** The answer of every call when the servers could not be started at all. */
function notRunning(servers: readonly McpServerStatus[]): McpCall {
  return async (server, tool) => ({
    content: `${mcpToolName(server, tool)}: MCP server "${server}" is not running: ${servers.find((status) => status.name === server)?.error ?? "it did not start"}`,
    isError: true,
  });
}
