import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  isBrokenStream,
  isHttpFailure,
  isRawStream,
  type ReplyBuilder,
  type Scripted,
  toScripted,
  toSse,
} from "./replies.js";

/**
 * A real HTTP model API on 127.0.0.1 for spawned `agent-run` processes, which msw cannot reach:
 * point `ANTHROPIC_BASE_URL` at `url`.
 */
export type MockHttpServer = AsyncDisposable & {
  url: string;
  requests: Array<Record<string, unknown>>;
  /** The headers of each request in `requests`, in the same order. */
  headers: IncomingHttpHeaders[];
  queue(...items: Array<Scripted | ReplyBuilder>): void;
  remaining(): number;
};

export async function startMockHttpServer(): Promise<MockHttpServer> {
  const queue: Scripted[] = [];
  const requests: Array<Record<string, unknown>> = [];
  const headers: IncomingHttpHeaders[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || !request.url?.startsWith("/v1/messages")) {
        response.writeHead(404, { "content-type": "application/json" });
        response.end(
          JSON.stringify({
            type: "error",
            error: { type: "not_found_error", message: request.url },
          }),
        );
        return;
      }
      requests.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
      headers.push(request.headers);
      const item = queue.shift();
      if (item === undefined) {
        response.writeHead(500, { "content-type": "application/json", "x-should-retry": "false" });
        response.end(
          JSON.stringify({
            type: "error",
            error: { type: "api_error", message: "mock server: no reply queued" },
          }),
        );
      } else if (isBrokenStream(item)) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        const events = toSse(item.message).split("\n\n").slice(0, item.events);
        if (item.errorType === undefined) {
          response.write(`${events.join("\n\n")}\n\n`, () => response.destroy());
        } else {
          response.write(`${events.join("\n\n")}\n\n`);
          const error = { type: "error", error: { type: item.errorType, message: "it failed" } };
          response.end(`event: error\ndata: ${JSON.stringify(error)}\n\n`);
        }
      } else if (isRawStream(item)) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end(item.body);
      } else if (isHttpFailure(item)) {
        response.writeHead(item.status, { "content-type": "application/json", ...item.headers });
        response.end(JSON.stringify(item.body));
      } else {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end(toSse(item));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    headers,
    queue: (...items) => {
      for (const item of items) queue.push(toScripted(item));
    },
    remaining: () => queue.length,
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
