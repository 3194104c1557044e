import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { toChunkSse } from "./openai-chunks.js";

/** What the server does with one request: stream chunks, fail with a status, or drop the socket. */
export type OpenAIHttpItem =
  | { chunks: unknown[] }
  | { status: number; body: unknown; headers?: Record<string, string> }
  | { reset: true };

/**
 * A real OpenAI-format chat-completions server on 127.0.0.1 (msw's retry path hangs on Node 20,
 * and spawned processes cannot reach msw): `baseURL` ends in `/v1`.
 */
export type OpenAIHttpServer = AsyncDisposable & {
  baseURL: string;
  requests: Array<Record<string, unknown>>;
  queue(...items: OpenAIHttpItem[]): void;
  remaining(): number;
};

export async function startOpenAIHttpServer(): Promise<OpenAIHttpServer> {
  const queue: OpenAIHttpItem[] = [];
  const requests: Array<Record<string, unknown>> = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/chat/completions") {
        response.writeHead(404, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: `no route ${request.url}` } }));
        return;
      }
      requests.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
      const item = queue.shift() ?? {
        status: 400,
        body: { error: { message: "mock server: no reply queued" } },
      };
      if ("reset" in item) {
        request.socket.destroy();
      } else if ("chunks" in item) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end(toChunkSse(item.chunks));
      } else {
        response.writeHead(item.status, { "content-type": "application/json", ...item.headers });
        response.end(JSON.stringify(item.body));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    queue: (...items) => queue.push(...items),
    remaining: () => queue.length,
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
