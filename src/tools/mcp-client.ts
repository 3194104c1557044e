import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolResultSchema,
  ErrorCode,
  type JSONRPCMessage,
  ListToolsResultSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { messageOf } from "../errors.js";
import type { ServerProcess } from "../process/server-process.js";
import { MAX_TIMER_MS } from "../timer.js";
import { AGENT_RUN_VERSION } from "../version.js";
import type { McpCallResult } from "./mcp-content.js";
import type { ListedTool } from "./mcp-tools.js";

// The one home of the MCP SDK: a client over a server process agent-run started itself (the
// SDK's own stdio transport spawns with cross-spawn: it could not be sandboxed or group-killed).
// Everything the server sends is hostile: messages are bounded, lines that are not JSON-RPC are
// dropped, and no schema it sends is compiled (tools' output schemas are not checked).

/** Largest message a server may send (a line of JSON); a longer one ends the connection. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * Most bytes agent-run's messages to a server may wait unread in its stdin. A server that stops
 * reading while it sends requests (a flood of `ping`s, each answered) would grow them without end;
 * past this its connection is cut.
 */
const MAX_UNREAD_BYTES = 1024 * 1024;

/** Most pages of `tools/list` read: a server that pages for ever is cut off here. */
const MAX_TOOL_PAGES = 20;

/** A server's answer to one call, or why there is none. */
export type McpCallOutcome =
  | ({ kind: "result" } & McpCallResult)
  | { kind: "timeout" | "closed" | "cancelled" }
  | { kind: "error"; message: string };

/** An initialized connection to one server. */
export type McpConnection = {
  serverInfo: { name: string; version: string } | undefined;
  /** Its tools as listed (every page, up to a bound). */
  tools: ListedTool[];
  /** Calls a tool; never throws. */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<McpCallOutcome>;
  /** Whether the connection has closed (the server exited, or closed its stdout). */
  isClosed(): boolean;
  /** Why agent-run cut the connection itself (the server stopped reading); undefined otherwise. */
  cutReason(): string | undefined;
  /** Closes the connection (the server's stdin); the caller stops the process. Never throws. */
  close(): Promise<void>;
};

/**
 * Connects to a started server: `initialize`, then `tools/list` page by page, until `signal`
 * (the startup limit, the run's cancellation) aborts. Throws when any of it fails.
 */
export async function connectMcp(
  server: ServerProcess,
  options: { signal: AbortSignal; timeoutMs: number; maxTools: number },
): Promise<McpConnection> {
  const client = new Client(
    { name: "agent-run", version: AGENT_RUN_VERSION },
    { capabilities: {} },
  );
  // Lines that are not JSON-RPC and the like: the connection goes on, and nothing is printed.
  client.onerror = () => {};
  let isClosed = false;
  client.onclose = () => {
    isClosed = true;
  };
  let cutReason: string | undefined;
  const request = { signal: options.signal, timeout: Math.min(options.timeoutMs, MAX_TIMER_MS) };
  const transport = processTransport(server, (why) => {
    cutReason = why;
  });
  await client.connect(transport, request);
  const tools =
    client.getServerCapabilities()?.tools === undefined
      ? []
      : await listTools(client, request, options.maxTools);
  return {
    serverInfo: client.getServerVersion(),
    tools,
    callTool: (name, args, callOptions) => callTool(client, name, args, callOptions),
    isClosed: () => isClosed,
    cutReason: () => cutReason,
    close: () => client.close().catch(() => {}),
  };
}

async function listTools(
  client: Client,
  options: { signal: AbortSignal; timeout: number },
  maxTools: number,
): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES && tools.length < maxTools; page++) {
    const params = cursor === undefined ? {} : { cursor };
    const result = await client.request(
      { method: "tools/list", params },
      ListToolsResultSchema,
      options,
    );
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<McpCallOutcome> {
  const timeout = Math.min(options.timeoutMs, MAX_TIMER_MS);
  try {
    const result = await client.request(
      { method: "tools/call", params: { name, arguments: args } },
      CallToolResultSchema,
      { signal: options.signal, timeout, maxTotalTimeout: timeout },
    );
    return {
      kind: "result",
      content: result.content,
      structuredContent: result.structuredContent,
      isError: result.isError === true,
    };
  } catch (error) {
    if (options.signal.aborted) return { kind: "cancelled" };
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
      return { kind: "timeout" };
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)
      return { kind: "closed" };
    return { kind: "error", message: messageOf(error) };
  }
}

/**
 * The SDK's transport over the server's stdin and stdout: one JSON-RPC message per line each way.
 * It closes when the server's stdout does (the server exited, or closed it).
 */
function processTransport(server: ServerProcess, onCut: (why: string) => void): Transport {
  const buffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES });
  let isClosed = false;
  const close = () => {
    if (isClosed) return;
    isClosed = true;
    buffer.clear();
    transport.onclose?.();
  };
  const read = (chunk: Buffer) => {
    try {
      buffer.append(chunk);
    } catch (error) {
      transport.onerror?.(error instanceof Error ? error : new Error(String(error)));
      server.stdout?.destroy();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = buffer.readMessage();
      } catch (error) {
        // A line that is not a JSON-RPC message (a server logging to stdout): dropped.
        transport.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (message === null) break;
      transport.onmessage?.(message);
    }
  };
  const transport: Transport = {
    async start() {
      server.stdout?.on("data", read);
      server.stdout?.on("close", close);
      if (server.stdout === undefined || server.stdout.destroyed) close();
    },
    async send(message) {
      const { stdin } = server;
      if (isClosed || stdin === undefined || !stdin.writable) {
        throw new Error("the server's stdin is closed");
      }
      // Not waited for: the stream keeps what the server has not read yet, and its size is the
      // bound below (waiting would add a listener per message to a server that never reads).
      stdin.write(serializeMessage(message));
      if (stdin.writableLength <= MAX_UNREAD_BYTES) return;
      onCut(
        `stopped reading what agent-run sent it (over ${MAX_UNREAD_BYTES / 1024 / 1024} MiB unread), so agent-run closed its connection`,
      );
      stdin.destroy();
      server.stdout?.destroy();
      close();
    },
    async close() {
      server.stdin?.end();
      close();
    },
  };
  return transport;
}
