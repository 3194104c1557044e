#!/usr/bin/env node
// The benchmark's baseline: a minimal hand-written agent loop. Plain fetch with SSE parsing, the
// tools executed directly (bash through child_process, read_file through fs), one JSONL line
// appended per step. No retries, no limits beyond max steps, no checks, no workspace copy.
// Two wire formats (`--wire`), one loop:
// - anthropic (default): the Messages API, with the same prompt-cache breakpoints as agent-run
//   (last tool, system prompt, newest message);
// - openai: chat completions, tool-call deltas joined by index, the results sent back as
//   `role: "tool"` messages.
//
//   node bench/reference-loop.mjs --workspace DIR --prompt TEXT --transcript FILE [--max-steps N]
//     [--wire anthropic|openai] [--model NAME]
//
// Environment: ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY (anthropic), OPENAI_BASE_URL (with its
// `/v1`) and OPENAI_API_KEY (openai); the base URL is required: the bench's mock.
// Each JSONL line: {type:"step", step, model_ms, tools:[{name, duration_ms, exit_code}], message,
// results}; the last line is {type:"result", steps, duration_ms}.

import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    workspace: { type: "string" },
    prompt: { type: "string" },
    transcript: { type: "string" },
    "max-steps": { type: "string", default: "1000" },
    model: { type: "string" },
    wire: { type: "string", default: "anthropic" },
  },
});
const workspace = resolve(values.workspace ?? ".");
const transcript = resolve(values.transcript ?? "reference-transcript.jsonl");
const maxSteps = Number(values["max-steps"]);
const isOpenAI = values.wire === "openai";
if (!isOpenAI && values.wire !== "anthropic") {
  process.stderr.write(`reference-loop: --wire is anthropic or openai, not ${values.wire}\n`);
  process.exit(2);
}
const env = (name) => process.env[`${isOpenAI ? "OPENAI" : "ANTHROPIC"}_${name}`];
const baseUrl = (env("BASE_URL") ?? "http://127.0.0.1:1").replace(/\/$/, "");
const apiKey = env("API_KEY") ?? "";
const model = values.model ?? (isOpenAI ? "gpt-4.1" : "claude-sonnet-5-5");
const MAX_OUTPUT_CHARS = 30_000;

const SYSTEM = `You are a coding agent running non-interactively. You work inside one workspace folder.
Use the tools to inspect files before changing them, and run the project's own checks with bash.
When you are done, stop calling tools and reply with a short summary of what you changed.`;

const EPHEMERAL = { type: "ephemeral" };
const TOOLS = [
  {
    name: "bash",
    description:
      "Run a shell command (bash) in the workspace root and return its combined stdout and stderr, followed by its exit code.",
    input_schema: {
      type: "object",
      properties: { command: { type: "string", description: "The shell command to run." } },
      required: ["command"],
    },
  },
  {
    name: "read_file",
    description: "Read a UTF-8 text file of the workspace.",
    input_schema: {
      type: "object",
      properties: { path: { type: "string", description: "Path relative to the workspace." } },
      required: ["path"],
    },
    cache_control: EPHEMERAL,
  },
];

function runBash(command) {
  return new Promise((done) => {
    const child = spawn("/bin/bash", ["-c", `exec 2>&1\n${command}`], {
      cwd: workspace,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const chunks = [];
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.on("close", (code) => {
      let output = Buffer.concat(chunks).toString("utf8");
      if (output.length > MAX_OUTPUT_CHARS) {
        const half = MAX_OUTPUT_CHARS / 2;
        output = `${output.slice(0, half)}\n[…]\n${output.slice(-half)}`;
      }
      done({
        content: `${output === "" ? "(no output)" : output}\n[exit code: ${code}]`,
        exitCode: code,
      });
    });
    child.on("error", (error) => done({ content: String(error), exitCode: null, isError: true }));
  });
}

function readFile(path) {
  const full = resolve(workspace, path);
  if (!full.startsWith(`${workspace}/`))
    return { content: "path outside the workspace", isError: true };
  try {
    return { content: readFileSync(full, "utf8").slice(0, 100_000) };
  } catch (error) {
    return { content: String(error), isError: true };
  }
}

async function runTool(block) {
  if (block.name === "bash") return runBash(String(block.input.command ?? ""));
  if (block.name === "read_file") return readFile(String(block.input.path ?? ""));
  return { content: `unknown tool ${block.name}`, isError: true };
}

/** The data of each server-sent event of `response`, in order ("[DONE]" included). */
async function* sseData(response) {
  if (!response.ok) throw new Error(`model API ${response.status}: ${await response.text()}`);
  const decoder = new TextDecoder();
  const dataOf = (raw) =>
    raw
      .split("\n")
      .find((line) => line.startsWith("data:"))
      ?.slice(5)
      .trim();
  let buffer = "";
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const data = dataOf(buffer.slice(0, end));
      if (data !== undefined) yield data;
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
    }
  }
  const rest = buffer.trim() === "" ? undefined : dataOf(buffer);
  if (rest !== undefined) yield rest;
}

/**
 * The Messages API: POST /v1/messages with stream: true; rebuilds the message from the SSE
 * events. Returns the message (for the transcript) and its tool calls ({ id, name, input }).
 */
async function callMessages(messages) {
  const last = messages.length - 1;
  const body = {
    model,
    max_tokens: 8192,
    stream: true,
    system: [{ type: "text", text: SYSTEM, cache_control: EPHEMERAL }],
    tools: TOOLS,
    messages: messages.map((message, index) => {
      if (index !== last) return message;
      const blocks = message.content;
      return {
        role: message.role,
        content: blocks.map((block, i) =>
          i === blocks.length - 1 ? { ...block, cache_control: EPHEMERAL } : block,
        ),
      };
    }),
  };
  const response = await fetch(`${baseUrl}/v1/messages`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": apiKey,
      "anthropic-version": "2023-06-01",
    },
    body: JSON.stringify(body),
  });
  let message;
  const partialJson = new Map();
  for await (const data of sseData(response)) {
    const event = JSON.parse(data);
    switch (event.type) {
      case "message_start":
        message = event.message;
        break;
      case "content_block_start":
        message.content[event.index] = { ...event.content_block };
        if (event.content_block.type === "tool_use") partialJson.set(event.index, "");
        break;
      case "content_block_delta":
        if (event.delta.type === "text_delta")
          message.content[event.index].text += event.delta.text;
        else if (event.delta.type === "input_json_delta") {
          partialJson.set(event.index, partialJson.get(event.index) + event.delta.partial_json);
        }
        break;
      case "content_block_stop":
        if (partialJson.has(event.index)) {
          const json = partialJson.get(event.index);
          message.content[event.index].input = json === "" ? {} : JSON.parse(json);
        }
        break;
      case "message_delta":
        message.stop_reason = event.delta.stop_reason;
        message.usage = { ...message.usage, ...event.usage };
        break;
      case "error":
        throw new Error(`stream error: ${JSON.stringify(event.error)}`);
      default:
        break;
    }
  }
  return { message, calls: message.content.filter((block) => block.type === "tool_use") };
}

/** The Messages API's turn: the assistant's content, then the results in one user message. */
function appendMessagesTurn(messages, message, results) {
  messages.push({ role: "assistant", content: message.content });
  messages.push({
    role: "user",
    content: results.map(({ call, result }) => ({
      type: "tool_result",
      tool_use_id: call.id,
      content: result.content,
      ...(result.isError ? { is_error: true } : {}),
    })),
  });
}

/** The tools in chat-completions form (no cache_control: chat completions have no breakpoints). */
const FUNCTIONS = TOOLS.map((tool) => ({
  type: "function",
  function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
}));

/**
 * Chat completions: POST /chat/completions with stream: true; joins the content deltas and each
 * tool call's deltas (by index), and keeps the finish reason and the usage chunk.
 */
async function callChat(messages) {
  const body = {
    model,
    max_tokens: 8192,
    stream: true,
    stream_options: { include_usage: true },
    tools: FUNCTIONS,
    messages: [{ role: "system", content: SYSTEM }, ...messages],
  };
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
    body: JSON.stringify(body),
  });
  const message = { role: "assistant", content: "", tool_calls: [] };
  let finishReason = null;
  let usage = null;
  for await (const data of sseData(response)) {
    if (data === "[DONE]") break;
    const chunk = JSON.parse(data);
    if (chunk.error) throw new Error(`stream error: ${JSON.stringify(chunk.error)}`);
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (choice === undefined) continue;
    if (choice.finish_reason) finishReason = choice.finish_reason;
    if (typeof choice.delta?.content === "string") message.content += choice.delta.content;
    for (const delta of choice.delta?.tool_calls ?? []) {
      message.tool_calls[delta.index] ??= {
        id: "",
        type: "function",
        function: { name: "", arguments: "" },
      };
      const call = message.tool_calls[delta.index];
      if (delta.id) call.id = delta.id;
      if (delta.function?.name) call.function.name += delta.function.name;
      if (delta.function?.arguments) call.function.arguments += delta.function.arguments;
    }
  }
  if (finishReason === null) throw new Error("the stream ended without a finish reason");
  const calls = message.tool_calls.map((call) => ({
    id: call.id,
    name: call.function.name,
    input: call.function.arguments === "" ? {} : JSON.parse(call.function.arguments),
  }));
  if (calls.length === 0) delete message.tool_calls;
  return { message: { ...message, finish_reason: finishReason, usage }, calls };
}

/** The chat-completions turn: the assistant's message, then one `tool` message per call. */
function appendChatTurn(messages, message, results) {
  const { finish_reason: _finishReason, usage: _usage, ...assistant } = message;
  messages.push(assistant);
  for (const { call, result } of results) {
    const content = result.isError ? `error: ${result.content}` : result.content;
    messages.push({ role: "tool", tool_call_id: call.id, content });
  }
}

const wire = isOpenAI
  ? { callModel: callChat, appendTurn: appendChatTurn, prompt: (text) => text }
  : {
      callModel: callMessages,
      appendTurn: appendMessagesTurn,
      prompt: (text) => [{ type: "text", text }],
    };

const startedAt = performance.now();
writeFileSync(transcript, "");
const messages = [{ role: "user", content: wire.prompt(values.prompt ?? "") }];
let step = 0;
let exitCode = 0;
try {
  while (step < maxSteps) {
    step += 1;
    const callStart = performance.now();
    const { message, calls } = await wire.callModel(messages);
    const modelMs = performance.now() - callStart;
    const results = [];
    const timings = [];
    for (const call of calls) {
      const toolStart = performance.now();
      const result = await runTool(call);
      timings.push({
        name: call.name,
        duration_ms: performance.now() - toolStart,
        exit_code: result.exitCode ?? null,
      });
      results.push({ call, result });
    }
    const line = { type: "step", step, model_ms: modelMs, tools: timings, message, results };
    appendFileSync(transcript, `${JSON.stringify(line)}\n`);
    if (calls.length === 0) break;
    wire.appendTurn(messages, message, results);
  }
} catch (error) {
  process.stderr.write(
    `reference-loop: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  exitCode = 1;
}
appendFileSync(
  transcript,
  `${JSON.stringify({ type: "result", steps: step, duration_ms: performance.now() - startedAt })}\n`,
);
process.exitCode = exitCode;
