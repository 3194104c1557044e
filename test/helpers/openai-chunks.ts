import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll } from "vitest";

// Chat-completions stream chunks, as servers send them, and an msw server that plays them.

/** The base URL msw intercepts for OpenAI-format tests (nothing leaves the process). */
export const OPENAI_TEST_BASE_URL = "https://openai.test/v1";

type Delta = Record<string, unknown>;

/** One chunk with a delta for choice 0 (and an optional finish reason). */
export function chunk(delta: Delta, finishReason: string | null = null): Record<string, unknown> {
  return {
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    model: "gpt-test",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

/** A tool-call delta: `{index, id, function: {name, arguments}}` with the fields given. */
export function callDelta(fields: {
  index?: number;
  id?: string;
  name?: string;
  args?: string;
}): Delta {
  const fn: Record<string, unknown> = {};
  if (fields.name !== undefined) fn.name = fields.name;
  if (fields.args !== undefined) fn.arguments = fields.args;
  const call: Record<string, unknown> = { function: fn };
  if (fields.index !== undefined) call.index = fields.index;
  if (fields.id !== undefined) call.id = fields.id;
  return { tool_calls: [call] };
}

/** The last chunk `include_usage` asks for: no choices, the usage. */
export function usageChunk(usage: Record<string, unknown>): Record<string, unknown> {
  return { id: "chatcmpl-1", object: "chat.completion.chunk", choices: [], usage };
}

/** The chunks as an SSE body, ended by `data: [DONE]` unless `done` is false. */
export function toChunkSse(chunks: readonly unknown[], done = true): string {
  const lines = chunks.map((item) => `data: ${JSON.stringify(item)}\n\n`);
  return `${lines.join("")}${done ? "data: [DONE]\n\n" : ""}`;
}

/** A plain text reply that stops. */
export function textReply(text: string): unknown[] {
  return [chunk({ role: "assistant", content: text }), chunk({}, "stop")];
}

/** What the msw OpenAI server answers a request with. */
export type OpenAIReply = unknown[] | Response | ((body: Record<string, unknown>) => Response);

/** An msw server for `OPENAI_TEST_BASE_URL`: queue replies, read back the bodies sent. */
export function useOpenAIServer() {
  const queue: OpenAIReply[] = [];
  const requests: Array<Record<string, unknown>> = [];
  const headers: Headers[] = [];
  const server = setupServer(
    http.post(`${OPENAI_TEST_BASE_URL}/chat/completions`, async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      requests.push(body);
      headers.push(request.headers);
      const item = queue.shift();
      if (item === undefined) {
        return HttpResponse.json({ error: { message: "no reply queued" } }, { status: 400 });
      }
      if (item instanceof Response) return item;
      if (typeof item === "function") return item(body);
      return sseResponse(toChunkSse(item));
    }),
  );
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  afterEach(() => {
    queue.length = 0;
    requests.length = 0;
    headers.length = 0;
  });
  afterAll(() => server.close());
  return {
    queue: (...items: OpenAIReply[]) => queue.push(...items),
    requests,
    headers,
    remaining: () => queue.length,
  };
}

export function sseResponse(body: string | ReadableStream<Uint8Array>): Response {
  return new HttpResponse(body, { headers: { "content-type": "text/event-stream" } });
}

/** A stream that sends `text` and then breaks like a reset connection. */
export function brokenStream(text: string): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.error(new TypeError("terminated: the connection was reset"));
    },
  });
  return sseResponse(body);
}
