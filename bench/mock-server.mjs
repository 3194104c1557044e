// A scripted model API on 127.0.0.1 for the benchmark, in two wire formats with one behaviour:
// Anthropic's Messages API (`POST /v1/messages`) and OpenAI's chat completions
// (`POST /v1/chat/completions`). The script, the latency and the records are shared; only the
// encoding of a reply differs (see WIRES).
//
// - Streams replies as the real APIs do. Messages API: message_start, content_block_start/delta/
//   stop for text and tool_use, message_delta with usage, message_stop (the event shapes of
//   test/helpers/replies.ts `toSse`, which the SDK accepts). Chat completions: `data:` chunks with
//   content and tool-call deltas, a chunk with the finish reason, a usage chunk with `choices: []`
//   when `stream_options.include_usage` is set, then `data: [DONE]`.
// - Scripted sessions: the step of a request is (assistant messages in it) + 1, so any number of
//   concurrent conversations can share one server without state. Steps 1..N-1 answer with one tool
//   call (bash by default), step N ends the turn with text.
// - Simulated prompt cache (see `simulateCache`): usage carries input_tokens,
//   cache_creation_input_tokens, cache_read_input_tokens and output_tokens as the API would. Chat
//   completions have no breakpoints, so there all input is plain (OpenAI's automatic prefix cache
//   is not simulated): `prompt_tokens` is the whole request, `cached_tokens` 0.
// - Records, per request: arrival, body size, time spent answering, step, token figures.
//
// Standalone: `node bench/mock-server.mjs [--steps N] [--latency MS]` prints the URL and serves
// until killed (handy with ANTHROPIC_BASE_URL, or an `openai` task's `base_url: <URL>/v1`, for
// manual runs).

import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { performance } from "node:perf_hooks";

/** Characters per token of the simulation (≈ the API's average on English text and JSON). */
export const CHARS_PER_TOKEN = 4;
/** How far back from a breakpoint the API looks for an earlier cache entry (documented: 20 blocks). */
export const CACHE_LOOKBACK_BLOCKS = 20;

/**
 * The default script: N steps; each step but the last runs `cat data/part-<k mod 10>.txt`.
 * @typedef {{
 *   steps: number,
 *   command?: (step: number, session: string) => string,
 *   tool?: "bash" | "mixed",
 *   text?: (step: number) => string,
 *   finalText?: string,
 * }} Script
 */

/** The command of step `step` of the default script (files written by bench/run.mjs). */
export function defaultCommand(step) {
  return `cat data/part-${step % 10}.txt`;
}

/**
 * Starts the server. Options: `script` (see Script), `latencyMs` (from a request's last byte to
 * its reply's start, the mock's own work included),
 * `chunkDelayMs` (pause between SSE events; 0 writes the reply in one go).
 */
export async function startMockServer(options = {}) {
  let script = normaliseScript(options.script ?? { steps: 1 });
  let latencyMs = options.latencyMs ?? 0;
  let chunkDelayMs = options.chunkDelayMs ?? 0;
  /** @type {Map<string, number>} prefix hash → tokens, the entries written at breakpoints */
  const cache = new Map();
  /** @type {Array<Record<string, unknown>>} */
  const requests = [];
  const sessions = new Map();
  let finishedSessions = 0;
  let messageCounter = 0;
  const sockets = new Set();

  const server = createServer((req, res) => {
    const arrivedAt = performance.now();
    const chunks = [];
    let bytes = 0;
    req.on("data", (chunk) => {
      chunks.push(chunk);
      bytes += chunk.length;
    });
    req.on("end", () => {
      const receivedAt = performance.now();
      const wire = req.method === "POST" ? wireOf(req.url) : undefined;
      if (wire === undefined) {
        sendJson(res, 404, {
          type: "error",
          error: { type: "not_found_error", message: `mock: no route ${req.method} ${req.url}` },
        });
        return;
      }
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch (error) {
        sendJson(res, 400, wire.errorBody("invalid_request_error", `mock: bad JSON: ${error}`));
        return;
      }
      const bodyAt = performance.now();
      const record = handle(body, bytes, arrivedAt, bodyAt);
      const message = record.reply;
      delete record.reply;
      const payload = body.stream === true ? wire.toSse(message, body) : wire.toJson(message);
      const contentType = body.stream === true ? "text/event-stream" : "application/json";
      const send = async () => {
        // The model's latency counts from the request's last byte: the mock's own work (parsing
        // the body, the cache simulation) is part of it, not added to it.
        const waitMs = latencyMs - (performance.now() - receivedAt);
        if (waitMs > 0) await sleep(waitMs);
        res.writeHead(200, {
          "content-type": contentType,
          [wire.requestIdHeader]: `req_bench_${requests.length}`,
        });
        if (body.stream === true && chunkDelayMs > 0) {
          for (const event of payload.split(/(?<=\n\n)/)) {
            res.write(event);
            await sleep(chunkDelayMs);
          }
          res.end();
        } else {
          res.end(payload);
        }
      };
      res.on("finish", () => {
        record.finishedAt = performance.now();
        record.mockMs = record.finishedAt - arrivedAt;
      });
      send().catch(() => res.destroy());
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  function handle(body, bytes, arrivedAt, bodyAt) {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const step = messages.filter((m) => m.role === "assistant").length + 1;
    const session = sessionKey(messages);
    const usage = simulateCache(body, cache);
    const isFinal = step >= script.steps;
    const reply = buildReply(script, step, session, body.model, ++messageCounter, isFinal);
    const outputTokens = Math.max(
      1,
      Math.ceil(JSON.stringify(reply.content).length / CHARS_PER_TOKEN),
    );
    reply.usage = { ...usage, output_tokens: outputTokens };
    if (isFinal) finishedSessions += 1;
    sessions.set(session, (sessions.get(session) ?? 0) + 1);
    const record = {
      index: requests.length,
      session,
      step,
      final: isFinal,
      bytes,
      arrivedAt,
      bodyAt,
      finishedAt: null,
      mockMs: null,
      messages: messages.length,
      breakpoints: usage.breakpoints,
      input_tokens: usage.input_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens,
      cache_read_input_tokens: usage.cache_read_input_tokens,
      output_tokens: outputTokens,
      reply,
    };
    delete reply.usage.breakpoints;
    requests.push(record);
    return record;
  }

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    /** Per-request records, in arrival order. */
    requests,
    finishedSessions: () => finishedSessions,
    /** Sets the script (and optionally the latency) for the following requests. */
    configure(next) {
      if (next.script !== undefined) script = normaliseScript(next.script);
      if (next.latencyMs !== undefined) latencyMs = next.latencyMs;
      if (next.chunkDelayMs !== undefined) chunkDelayMs = next.chunkDelayMs;
    },
    /** Forgets the records and empties the cache (each measurement starts cold). */
    reset() {
      requests.length = 0;
      cache.clear();
      sessions.clear();
      finishedSessions = 0;
    },
    close() {
      return new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
    },
  };
}

function normaliseScript(script) {
  return {
    steps: script.steps,
    command: script.command ?? defaultCommand,
    tool: script.tool ?? "bash",
    text: script.text ?? ((step) => `Step ${step}: let me look at the next part of the data.`),
    finalText:
      script.finalText ?? "Done: I read every part of the data and nothing needs to change.",
  };
}

/** One conversation's key: a hash of its first user message (the task prompt). */
function sessionKey(messages) {
  const first = messages.find((message) => message.role === "user");
  const text = first === undefined ? "" : JSON.stringify(stripCacheControl(first.content));
  return createHash("sha1").update(text).digest("hex").slice(0, 12);
}

function buildReply(script, step, session, model, counter, isFinal) {
  const id = `msg_bench_${counter}`;
  const base = {
    id,
    type: "message",
    role: "assistant",
    model: typeof model === "string" ? model : "claude-sonnet-5-5",
    stop_sequence: null,
  };
  if (isFinal) {
    return {
      ...base,
      content: [{ type: "text", text: script.finalText }],
      stop_reason: "end_turn",
    };
  }
  const toolUseId = `toolu_bench_${session}_${step}`;
  const useRead = script.tool === "mixed" && step % 2 === 0;
  const toolUse = useRead
    ? {
        type: "tool_use",
        id: toolUseId,
        name: "read_file",
        input: { path: `data/part-${step % 10}.txt` },
      }
    : {
        type: "tool_use",
        id: toolUseId,
        name: "bash",
        input: { command: script.command(step, session) },
      };
  return {
    ...base,
    content: [{ type: "text", text: script.text(step) }, toolUse],
    stop_reason: "tool_use",
  };
}

function stripCacheControl(value) {
  if (Array.isArray(value)) return value.map(stripCacheControl);
  if (value !== null && typeof value === "object") {
    const out = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key !== "cache_control") out[key] = inner;
    }
    return out;
  }
  return value;
}

/**
 * The request as the cache sees it: tools, then system, then messages, one entry per block
 * (a tool definition, a system text block, a message content block), in the API's prefix order.
 * Each entry: its canonical text (without cache_control), its tokens (≈ chars / 4), and whether it
 * carries a cache_control breakpoint.
 */
export function cacheBlocks(body) {
  const blocks = [];
  const push = (prefix, block) => {
    const breakpoint =
      block !== null &&
      typeof block === "object" &&
      !Array.isArray(block) &&
      "cache_control" in block;
    const text = `${prefix}${JSON.stringify(stripCacheControl(block))}`;
    blocks.push({ text, tokens: Math.ceil(text.length / CHARS_PER_TOKEN), breakpoint });
  };
  for (const tool of Array.isArray(body.tools) ? body.tools : []) push("tool:", tool);
  if (typeof body.system === "string") push("system:", { type: "text", text: body.system });
  else if (Array.isArray(body.system)) for (const block of body.system) push("system:", block);
  for (const [index, message] of (Array.isArray(body.messages) ? body.messages : []).entries()) {
    for (const [blockIndex, block] of blocksOf(message).entries()) {
      push(blockIndex === 0 ? `${index}:${message.role}:` : "", block);
    }
  }
  return blocks;
}

/**
 * A message's blocks as the cache counts them: its content blocks; string content as one text
 * block; a chat-completions message with more than role and content (tool calls, a tool result's
 * id) as one block of its own.
 */
function blocksOf(message) {
  if (Array.isArray(message.content)) return message.content;
  const { role: _role, ...rest } = message;
  if (typeof message.content === "string" && Object.keys(rest).length === 1) {
    return [{ type: "text", text: message.content }];
  }
  return [rest];
}

/**
 * The simulated prompt cache. Entries are written at each breakpoint (a block with
 * `cache_control`): the hash of the whole prefix up to and including that block. A request reads
 * the longest prefix that ends at most CACHE_LOOKBACK_BLOCKS blocks before one of its breakpoints
 * and equals an entry written by an earlier request (cache_read_input_tokens); the tokens from
 * there to its last breakpoint are written (cache_creation_input_tokens); the tokens after the
 * last breakpoint are plain input (input_tokens). No breakpoints: everything is plain input.
 * Not simulated: the minimum cacheable length, the TTL, the 4-breakpoint limit.
 */
export function simulateCache(body, cache) {
  const blocks = cacheBlocks(body);
  const breakpoints = [];
  blocks.forEach((block, index) => {
    if (block.breakpoint) breakpoints.push(index);
  });
  const total = blocks.reduce((sum, block) => sum + block.tokens, 0);
  if (breakpoints.length === 0) {
    return {
      input_tokens: total,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      breakpoints: 0,
    };
  }
  const lastBreakpoint = breakpoints[breakpoints.length - 1];
  // Positions whose prefix hash we need: each breakpoint and the lookback window before it.
  const wanted = new Set();
  for (const bp of breakpoints) {
    for (let p = bp; p >= Math.max(0, bp - CACHE_LOOKBACK_BLOCKS); p -= 1) wanted.add(p);
  }
  const hash = createHash("sha1");
  const prefixHashes = new Map();
  const prefixTokens = [];
  let tokens = 0;
  for (let index = 0; index <= lastBreakpoint; index += 1) {
    hash.update(blocks[index].text);
    hash.update("\u0000");
    tokens += blocks[index].tokens;
    prefixTokens[index] = tokens;
    if (wanted.has(index)) prefixHashes.set(index, hash.copy().digest("hex"));
  }
  let hit = -1;
  for (const position of [...prefixHashes.keys()].sort((a, b) => b - a)) {
    if (cache.has(prefixHashes.get(position))) {
      hit = position;
      break;
    }
  }
  for (const bp of breakpoints) cache.set(prefixHashes.get(bp), prefixTokens[bp]);
  const read = hit < 0 ? 0 : prefixTokens[hit];
  const upToLast = prefixTokens[lastBreakpoint];
  return {
    input_tokens: total - upToLast,
    cache_creation_input_tokens: upToLast - read,
    cache_read_input_tokens: read,
    breakpoints: breakpoints.length,
  };
}

/**
 * The wire formats, by route: how a reply (a Messages-API message, the script's one form) is sent
 * streamed and whole, how an error body looks, and the request-id header's name.
 */
const WIRES = {
  "/v1/messages": {
    toSse: (message) => toSse(message),
    toJson: (message) => JSON.stringify(message),
    errorBody: (type, message) => ({ type: "error", error: { type, message } }),
    requestIdHeader: "request-id",
  },
  "/v1/chat/completions": {
    toSse: (message, body) => toChatSse(message, body.stream_options?.include_usage === true),
    toJson: (message) => JSON.stringify(toChatCompletion(message)),
    errorBody: (type, message) => ({ error: { type, message, code: null } }),
    requestIdHeader: "x-request-id",
  },
};

function wireOf(url) {
  const path = new URL(url ?? "/", "http://mock").pathname;
  return Object.hasOwn(WIRES, path) ? WIRES[path] : undefined;
}

/** The server-sent events the Messages API streams for `message` (shapes of replies.ts `toSse`). */
export function toSse(message) {
  const usage = message.usage;
  const events = [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          ...message,
          content: [],
          stop_reason: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
    ],
  ];
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      events.push([
        "content_block_start",
        { type: "content_block_start", index, content_block: { type: "text", text: "" } },
      ]);
      for (const part of halves(String(block.text))) {
        events.push([
          "content_block_delta",
          { type: "content_block_delta", index, delta: { type: "text_delta", text: part } },
        ]);
      }
    } else if (block.type === "tool_use") {
      events.push([
        "content_block_start",
        { type: "content_block_start", index, content_block: { ...block, input: {} } },
      ]);
      for (const part of halves(JSON.stringify(block.input))) {
        events.push([
          "content_block_delta",
          {
            type: "content_block_delta",
            index,
            delta: { type: "input_json_delta", partial_json: part },
          },
        ]);
      }
    } else {
      events.push([
        "content_block_start",
        { type: "content_block_start", index, content_block: block },
      ]);
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push([
    "message_delta",
    {
      type: "message_delta",
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    },
  ]);
  events.push(["message_stop", { type: "message_stop" }]);
  return events
    .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    .join("");
}

/** Chat-completions fields of a Messages-API message: tool calls, finish reason, usage. */
function toChat(message) {
  const text = message.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("");
  const calls = message.content
    .filter((block) => block.type === "tool_use")
    .map((block) => ({
      id: block.id.replace(/^toolu_/, "call_"),
      type: "function",
      function: { name: block.name, arguments: JSON.stringify(block.input) },
    }));
  const { usage } = message;
  const promptTokens =
    usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
  return {
    id: message.id.replace(/^msg_/, "chatcmpl-"),
    created: Math.floor(Date.now() / 1000),
    model: message.model,
    text,
    calls,
    finishReason: calls.length > 0 ? "tool_calls" : "stop",
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: usage.output_tokens,
      total_tokens: promptTokens + usage.output_tokens,
      prompt_tokens_details: { cached_tokens: usage.cache_read_input_tokens },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

/**
 * The `data:` chunks chat completions stream for `message`: the role, the text in two content
 * deltas, each tool call opened (id, name) then its arguments in two deltas, the finish reason,
 * the usage chunk (`choices: []`) when asked for, `[DONE]`. As OpenAI does, every chunk carries
 * `usage: null` when usage is asked for, but the last.
 */
export function toChatSse(message, includeUsage) {
  const chat = toChat(message);
  const chunk = (choices, usage = null) => ({
    id: chat.id,
    object: "chat.completion.chunk",
    created: chat.created,
    model: chat.model,
    system_fingerprint: null,
    choices,
    ...(includeUsage ? { usage } : {}),
  });
  const delta = (fields, finishReason = null) =>
    chunk([{ index: 0, delta: fields, logprobs: null, finish_reason: finishReason }]);
  const chunks = [delta({ role: "assistant", content: "", refusal: null })];
  for (const part of halves(chat.text)) chunks.push(delta({ content: part }));
  chat.calls.forEach((call, index) => {
    const opening = { ...call, function: { name: call.function.name, arguments: "" } };
    chunks.push(delta({ tool_calls: [{ index, ...opening }] }));
    for (const part of halves(call.function.arguments)) {
      chunks.push(delta({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  chunks.push(delta({}, chat.finishReason));
  if (includeUsage) chunks.push(chunk([], chat.usage));
  return `${chunks.map((data) => `data: ${JSON.stringify(data)}\n\n`).join("")}data: [DONE]\n\n`;
}

/** The whole `chat.completion` object for `message` (a request without `stream: true`). */
function toChatCompletion(message) {
  const chat = toChat(message);
  return {
    id: chat.id,
    object: "chat.completion",
    created: chat.created,
    model: chat.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: chat.text === "" ? null : chat.text,
          refusal: null,
          ...(chat.calls.length > 0 ? { tool_calls: chat.calls } : {}),
        },
        logprobs: null,
        finish_reason: chat.finishReason,
      },
    ],
    usage: chat.usage,
  };
}

/** `text` in two pieces (one when it is a single character, none when empty). */
function halves(text) {
  const half = Math.ceil(text.length / 2);
  return [text.slice(0, half), text.slice(half)].filter((piece) => piece !== "");
}

function sendJson(res, status, body) {
  res.writeHead(status, { "content-type": "application/json", "x-should-retry": "false" });
  res.end(JSON.stringify(body));
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name, fallback) => {
    const index = process.argv.indexOf(name);
    return index < 0 ? fallback : Number(process.argv[index + 1]);
  };
  const mock = await startMockServer({
    script: { steps: arg("--steps", 3) },
    latencyMs: arg("--latency", 0),
  });
  process.stdout.write(`${mock.url}\n`);
  process.on("SIGINT", () => mock.close().then(() => process.exit(0)));
  process.on("SIGTERM", () => mock.close().then(() => process.exit(0)));
}
