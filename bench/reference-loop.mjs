#!/usr/bin/env node
// The benchmark's baseline: a minimal hand-written agent loop. Plain fetch with SSE parsing, the
// tools executed directly (bash through child_process, read_file through fs), one JSONL line
// appended per step, the same prompt-cache breakpoints as agent-run (last tool, system prompt,
// newest message). No retries, no limits beyond max steps, no checks, no workspace copy.
//
//   node bench/reference-loop.mjs --workspace DIR --prompt TEXT --transcript FILE [--max-steps N]
//
// Environment: ANTHROPIC_BASE_URL (required: the bench's mock), ANTHROPIC_API_KEY.
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
    model: { type: "string", default: "claude-sonnet-5-5" },
  },
});
const workspace = resolve(values.workspace ?? ".");
const transcript = resolve(values.transcript ?? "reference-transcript.jsonl");
const maxSteps = Number(values["max-steps"]);
const baseUrl = (process.env.ANTHROPIC_BASE_URL ?? "http://127.0.0.1:1").replace(/\/$/, "");
const apiKey = process.env.ANTHROPIC_API_KEY ?? "";
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

/** POST /v1/messages with stream: true; rebuilds the message from the SSE events. */
async function callModel(messages) {
  const last = messages.length - 1;
  const body = {
    model: values.model,
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
  if (!response.ok) throw new Error(`model API ${response.status}: ${await response.text()}`);
  let message;
  const partialJson = new Map();
  const decoder = new TextDecoder();
  let buffer = "";
  const handleEvent = (raw) => {
    const dataLine = raw.split("\n").find((line) => line.startsWith("data:"));
    if (dataLine === undefined) return;
    const event = JSON.parse(dataLine.slice(5).trim());
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
  };
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      handleEvent(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
    }
  }
  if (buffer.trim() !== "") handleEvent(buffer);
  return message;
}

const startedAt = performance.now();
writeFileSync(transcript, "");
const messages = [{ role: "user", content: [{ type: "text", text: values.prompt ?? "" }] }];
let step = 0;
let exitCode = 0;
try {
  while (step < maxSteps) {
    step += 1;
    const callStart = performance.now();
    const message = await callModel(messages);
    const modelMs = performance.now() - callStart;
    messages.push({ role: "assistant", content: message.content });
    const calls = message.content.filter((block) => block.type === "tool_use");
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
      results.push({
        type: "tool_result",
        tool_use_id: call.id,
        content: result.content,
        ...(result.isError ? { is_error: true } : {}),
      });
    }
    appendFileSync(
      transcript,
      `${JSON.stringify({ type: "step", step, model_ms: modelMs, tools: timings, message, results })}\n`,
    );
    if (calls.length === 0) break;
    messages.push({ role: "user", content: results });
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
