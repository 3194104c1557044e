import { existsSync } from "node:fs";
import { formatDuration } from "../format.js";
import { type ServerProcess, startServerProcess } from "../process/server-process.js";
import { MAX_TIMER_MS, within } from "../timer.js";
import type { Tool, ToolContext, ToolResult } from "./define-tool.js";
import { connectMcp, type McpConnection } from "./mcp-client.js";
import { resultText } from "./mcp-content.js";
import { describeEnd, describeStartFailure, errorText } from "./mcp-failure.js";
import {
  MAX_TOOLS_PER_SERVER,
  type McpCall,
  type McpServerConfig,
  type McpServerStatus,
  type McpToolSpec,
  mcpToolName,
  mcpTools,
  selectTools,
} from "./mcp-tools.js";
import {
  assertSandboxAvailable,
  buildBwrapCommand,
  DEFAULT_SANDBOX_LIMITS,
  type Sandbox,
  type SandboxedCommand,
  type SandboxLimits,
  sandboxUser,
} from "./sandbox.js";
import { MAX_TOOL_OUTPUT_CHARS } from "./truncate.js";

// A run's MCP servers: started together once the workspace's starting state is recorded, each
// within its startup limit, and stopped together when the agent stops. A server that cannot start
// is a status, not an exception; a server that dies makes each call of its tools an error result.

/** How the servers of one run start. */
export type McpStartOptions = {
  /** Where they run (their working folder; under the sandbox, the one writable folder). */
  workspaceRoot: string;
  /** The task's command environment (never an API key); each server's own `env` is added. */
  env: Readonly<Record<string, string>>;
  sandbox: Sandbox;
  sandboxLimits?: Readonly<SandboxLimits> | undefined;
  /** Paths in the workspace the sandbox keeps read-only (see `sandboxReadOnlyPaths`). */
  readOnlyPaths?: Promise<readonly string[]> | undefined;
  /** The run's cancellation: servers still starting then fail, as cancelled. */
  signal: AbortSignal;
};

/** A run's servers once started (those that could). */
export type McpSession = {
  /** Each server's status and the tools it offers, in the task's order. */
  servers: McpServerStatus[];
  /** The tools offered, for the loop: `mcp__<server>__<tool>`, each calling its server. */
  tools: Tool[];
  /** Calls a server's tool (its own name); an error result when it is not running. Never throws. */
  callTool(server: string, tool: string, input: unknown, ctx: ToolContext): Promise<ToolResult>;
  /** Stops every server (its whole process group), within a few seconds. Never throws. */
  close(): Promise<void>;
};

/** Most characters of a server's stderr kept for its error messages. */
const MAX_STDERR_CHARS = 8_000;

/** How long a server may take to exit on its own once its stdin is closed, before it is killed. */
const CLOSE_GRACE_MS = 500;

const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";

/** One server as the session holds it. */
type Running = {
  config: McpServerConfig;
  status: McpServerStatus;
  process: ServerProcess | undefined;
  connection: McpConnection | undefined;
};

/**
 * Starts every server in parallel, each within its `startupTimeoutMs`. Throws only a
 * `ConfigError` when the sandbox asked for is not installed (as the bash tool does).
 */
export async function startMcpServers(
  configs: readonly McpServerConfig[],
  options: McpStartOptions,
): Promise<McpSession> {
  const bwrapPath = assertSandboxAvailable(options.sandbox, options.env.PATH);
  const running = await Promise.all(configs.map((config) => startOne(config, options, bwrapPath)));
  const byName = new Map(running.map((server) => [server.config.name, server]));
  const call: McpCall = async (server, tool, input, ctx) => {
    const entry = byName.get(server);
    if (entry === undefined) {
      return { content: `no MCP server ${JSON.stringify(server)} in this run`, isError: true };
    }
    return callTool(entry, tool, input, ctx);
  };
  return {
    servers: running.map((server) => server.status),
    tools: running.flatMap(({ status }) => mcpTools(status.name, status.tools, call)),
    callTool: call,
    close: async () => {
      await Promise.all(running.map(stopOne));
    },
  };
}

async function startOne(
  config: McpServerConfig,
  options: McpStartOptions,
  bwrapPath: string | undefined,
): Promise<Running> {
  const failed = (error: string, process?: ServerProcess): Running => ({
    config,
    status: {
      name: config.name,
      status: "failed",
      error,
      tools: unavailableTools(config),
      notes: [],
    },
    process,
    connection: undefined,
  });
  if (options.signal.aborted) return failed("not started: the run was cancelled");
  let command: SandboxedCommand;
  try {
    command = await serverCommand(config, options, bwrapPath);
  } catch (error) {
    // As for bash: without the list of read-only paths nothing runs in the sandbox.
    return failed(`not started: ${errorText(error)}`);
  }
  const process = startServerProcess(command.file, command.args, {
    cwd: options.workspaceRoot,
    env: { ...options.env, ...config.env },
    fd3: command.fd3,
    maxStderrChars: MAX_STDERR_CHARS,
  });
  if (process.pid === undefined) {
    return failed(
      `could not start ${JSON.stringify(config.command)}: ${(await process.exited).startError ?? "unknown error"}`,
    );
  }
  const startupMs = Math.min(config.startupTimeoutMs, MAX_TIMER_MS);
  const startup = AbortSignal.any([options.signal, AbortSignal.timeout(startupMs)]);
  const startedAt = performance.now();
  try {
    const connection = await connectMcp(process, {
      signal: startup,
      timeoutMs: config.startupTimeoutMs,
      maxTools: MAX_TOOLS_PER_SERVER * 2,
    });
    const { tools, notes } = selectTools(config, connection.tools);
    const serverInfo = connection.serverInfo;
    const status: McpServerStatus = {
      name: config.name,
      status: "connected",
      ...(serverInfo === undefined
        ? {}
        : { serverInfo: { name: serverInfo.name, version: serverInfo.version } }),
      tools,
      notes,
    };
    return { config, status, process, connection };
  } catch (error) {
    const reason = await describeStartFailure(process, error, {
      isCancelled: options.signal.aborted,
      // The SDK's own request timeout (the same length) may fire first: the time says which.
      isTimedOut:
        !options.signal.aborted &&
        (startup.aborted || performance.now() - startedAt >= startupMs - TIMER_SLACK_MS),
      timeoutMs: config.startupTimeoutMs,
    });
    await process.stop();
    return failed(reason, process);
  }
}

/**
 * The tools a failed server's allow-list names, offered all the same: the model, told what it
 * has, gets an error result saying why when it calls one (a server without a list has none).
 */
function unavailableTools(config: McpServerConfig): McpToolSpec[] {
  return (config.tools ?? []).map((name) => ({
    name,
    description: `Unavailable: the MCP server "${config.name}" failed to start, so a call returns an error.`,
    inputSchema: { type: "object" },
  }));
}

/** Why a server's connection closed: agent-run cut it, or the server ended it (and how). */
async function whyClosed(server: Running, when: string): Promise<string> {
  const cut = server.connection?.cutReason();
  if (cut !== undefined) {
    return `MCP server "${server.config.name}" ${cut} ${when}; its tools cannot be called for the rest of the run`;
  }
  if (server.process === undefined) return `MCP server "${server.config.name}" is not running`;
  return describeEnd(server.config.name, server.process, when);
}

/** How much earlier than set a timer may be seen to fire (timers are not exact to the millisecond). */
const TIMER_SLACK_MS = 50;

/** The server's argv, under bubblewrap when the task is sandboxed (the argv is never parsed by a shell). */
async function serverCommand(
  config: McpServerConfig,
  options: McpStartOptions,
  bwrapPath: string | undefined,
): Promise<SandboxedCommand> {
  if (bwrapPath === undefined) return { file: config.command, args: config.args };
  const env = { ...options.env, ...config.env };
  return buildBwrapCommand({
    bwrapPath,
    workspaceRoot: options.workspaceRoot,
    shell: SHELL,
    script: 'exec "$@"',
    scriptArgs: [config.command, ...config.args],
    limits: options.sandboxLimits ?? DEFAULT_SANDBOX_LIMITS,
    readOnlyPaths: await (options.readOnlyPaths ?? Promise.resolve([])),
    user: sandboxUser(env.PATH),
    env,
  });
}

async function callTool(
  server: Running,
  tool: string,
  input: unknown,
  ctx: ToolContext,
): Promise<ToolResult> {
  const name = mcpToolName(server.config.name, tool);
  const { connection, process } = server;
  if (connection === undefined || process === undefined) {
    return {
      content: `${name}: MCP server "${server.config.name}" is not running: ${server.status.error ?? "it did not start"}`,
      isError: true,
    };
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return {
      content: `${name}: the input must be a JSON object; re-send the call with an object`,
      isError: true,
    };
  }
  if (ctx.signal.aborted)
    return { content: `${name}: not called: the run was cancelled`, isError: true };
  if (connection.isClosed()) {
    return { content: `${name}: ${await whyClosed(server, "earlier")}`, isError: true };
  }
  const outcome = await connection.callTool(
    tool,
    { ...input },
    { timeoutMs: server.config.timeoutMs, signal: ctx.signal },
  );
  switch (outcome.kind) {
    case "result":
      return { content: resultText(outcome, MAX_TOOL_OUTPUT_CHARS), isError: outcome.isError };
    case "timeout":
      return {
        content: `${name}: no answer within ${formatDuration(server.config.timeoutMs)}; the call was cancelled (the server still runs)`,
        isError: true,
      };
    case "cancelled": {
      const why =
        ctx.signal.reason === "timeout"
          ? "the task's time limit was reached"
          : "the run was cancelled";
      return { content: `${name}: cancelled: ${why}`, isError: true };
    }
    case "closed":
      return { content: `${name}: ${await whyClosed(server, "during the call")}`, isError: true };
    case "error":
      return { content: `${name}: the call failed: ${errorText(outcome.message)}`, isError: true };
    default: {
      const unknown: never = outcome;
      throw new Error(`unknown outcome ${JSON.stringify(unknown)}`);
    }
  }
}

async function stopOne(server: Running): Promise<void> {
  try {
    await server.connection?.close();
    const exited = server.process?.exited;
    if (exited !== undefined) await within(exited, CLOSE_GRACE_MS);
  } finally {
    await server.process?.stop();
  }
}
