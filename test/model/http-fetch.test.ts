import { getEventListeners, once } from "node:events";
import http, {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createTcpServer } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, test, vi } from "vitest";
import { createHttpFetch, httpFetch, isGlobalFetchConfigured } from "../../src/model/http-fetch.js";

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

/** A real HTTP server on 127.0.0.1 (no msw here: these tests are about the transport itself). */
async function serve(handler: Handler): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => handler(request, Buffer.concat(chunks).toString("utf8"), response));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const servers: Server[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

const decoder = new TextDecoder();

describe("httpFetch", () => {
  test("sends the method, headers and body as given, and streams the reply as it comes", async () => {
    let seen: { method?: string | undefined; headers?: IncomingMessage["headers"]; body?: string } =
      {};
    let sendSecond = () => {};
    const secondChunk = new Promise<void>((resolve) => {
      sendSecond = resolve;
    });
    const { url } = await serve((request, body, response) => {
      seen = { method: request.method, headers: request.headers, body };
      response.writeHead(200, { "content-type": "text/event-stream", "request-id": "req_1" });
      response.write("event: one\n\n");
      void secondChunk.then(() => response.end("event: two\n\n"));
    });
    const body = JSON.stringify({ prompt: "résumé ✓" });
    const reply = await httpFetch(`${url}/v1/messages`, {
      method: "POST",
      headers: new Headers({ "content-type": "application/json", "x-api-key": "sk-test" }),
      body,
    });

    expect(seen.method).toBe("POST");
    expect(seen.body).toBe(body);
    expect(seen.headers?.["content-length"]).toBe(String(Buffer.byteLength(body)));
    expect(seen.headers?.["x-api-key"]).toBe("sk-test");
    // Nothing asks for compression: replies come as they are.
    expect(seen.headers?.["accept-encoding"]).toBeUndefined();
    expect(reply.status).toBe(200);
    expect(reply.ok).toBe(true);
    expect(reply.headers.get("request-id")).toBe("req_1");
    expect(reply.url).toBe(`${url}/v1/messages`);
    const reader = (reply.body as ReadableStream<Uint8Array>).getReader();
    // The first event is readable while the server still holds back the second.
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe("event: one\n\n");
    sendSecond();
    const second = await reader.read();
    expect(decoder.decode(second.value)).toBe("event: two\n\n");
    expect((await reader.read()).done).toBe(true);
  });

  test("reuses the connection for the next request once a reply is read", async () => {
    const ports = new Set<number | undefined>();
    const { url } = await serve((request, _body, response) => {
      ports.add(request.socket.remotePort);
      response.end("ok");
    });
    for (let index = 0; index < 3; index += 1) {
      const reply = await httpFetch(url, { method: "POST", body: "{}" });
      expect(await reply.text()).toBe("ok");
    }
    expect(ports.size).toBe(1);
  });

  test("an error status keeps its body, and a 204 has none", async () => {
    const { url } = await serve((request, _body, response) => {
      if (request.url === "/limited") {
        response.writeHead(429, "Too Many Requests", { "retry-after": "2" });
        response.end('{"type":"error"}');
      } else {
        response.writeHead(204);
        response.end();
      }
    });
    const limited = await httpFetch(`${url}/limited`, { method: "POST", body: "{}" });
    expect([limited.status, limited.statusText, limited.ok]).toEqual([
      429,
      "Too Many Requests",
      false,
    ]);
    expect(limited.headers.get("retry-after")).toBe("2");
    expect(await limited.json()).toEqual({ type: "error" });
    const empty = await httpFetch(`${url}/empty`, { method: "POST" });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  test("a POST without a body says so with content-length 0", async () => {
    let length: string | undefined;
    const { url } = await serve((request, _body, response) => {
      length = request.headers["content-length"];
      response.end();
    });
    await (await httpFetch(url, { method: "POST" })).text();
    expect(length).toBe("0");
  });

  test("a refused connection rejects as fetch does", async () => {
    const { url, server } = await serve(() => {});
    await new Promise((resolve) => server.close(resolve));
    const error = await rejection(httpFetch(url, { method: "POST", body: "{}" }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe("fetch failed");
    expect(((error as Error).cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
  });

  test("an abort before the reply rejects with the signal's reason and drops the request", async () => {
    let onArrival: (request: IncomingMessage) => void = () => {};
    const arrived = new Promise<IncomingMessage>((resolve) => {
      onArrival = resolve;
    });
    const { url } = await serve((request) => onArrival(request));
    const controller = new AbortController();
    const pending = httpFetch(url, { method: "POST", body: "{}", signal: controller.signal });
    const request = await arrived;
    const reason = new Error("timed out");
    controller.abort(reason);
    expect(await rejection(pending)).toBe(reason);
    await once(request.socket, "close");
  });

  test("a signal aborted already rejects without sending anything", async () => {
    const { url } = await serve((_request, _body, response) => response.end());
    const request = vi.spyOn(http, "request");
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(httpFetch(url, { method: "POST", signal: controller.signal }));
    expect((error as Error).name).toBe("AbortError");
    expect(request).not.toHaveBeenCalled();
  });

  test("an abort during the body errors it with the reason and drops the connection", async () => {
    let serverSocket: IncomingMessage["socket"] | undefined;
    const { url } = await serve((request, _body, response) => {
      serverSocket = request.socket;
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("event: one\n\n");
    });
    const controller = new AbortController();
    const reply = await httpFetch(url, { method: "POST", body: "{}", signal: controller.signal });
    const reader = (reply.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const reason = new Error("cancelled");
    controller.abort(reason);
    expect(await rejection(reader.read())).toBe(reason);
    if (serverSocket !== undefined && !serverSocket.destroyed) await once(serverSocket, "close");
    expect(serverSocket?.destroyed).toBe(true);
  });

  test("a cancelled body drops the connection and lets go of the signal; a read one keeps it", async () => {
    const sockets: IncomingMessage["socket"][] = [];
    const { url } = await serve((request, _body, response) => {
      sockets.push(request.socket);
      response.writeHead(200, { "content-type": "text/event-stream" });
      if (request.url === "/whole") response.end("event: one\n\n");
      else response.write("event: one\n\n");
    });
    const controller = new AbortController();
    const whole = await httpFetch(`${url}/whole`, { method: "POST", signal: controller.signal });
    expect(await whole.text()).toBe("event: one\n\n");
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);

    const held = await httpFetch(`${url}/held`, { method: "POST", signal: controller.signal });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    await held.body?.cancel();
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    // The whole reply left its connection for reuse; the cancelled one closed it.
    expect(sockets).toHaveLength(2);
    expect(sockets[0]).toBe(sockets[1]);
    await once(sockets[1] as IncomingMessage["socket"], "close");
  });

  test("a server that goes quiet ends the request as timed out, before or during the reply", async () => {
    const quickFetch = createHttpFetch({ connectMs: 1000, idleMs: 100 });
    const { url } = await serve((request, _body, response) => {
      if (request.url === "/silent") return;
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("event: one\n\n");
    });
    const before = await rejection(quickFetch(`${url}/silent`, { method: "POST", body: "{}" }));
    expect(before).toBeInstanceOf(TypeError);
    expect((before as Error).message).toBe("fetch failed");
    // The SDK counts a cause saying "timed out" as a timeout (and retries it).
    expect(String((before as Error).cause)).toMatch(/timed out/);

    const reply = await quickFetch(`${url}/stalls`, { method: "POST", body: "{}" });
    const reader = (reply.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const during = await rejection(reader.read());
    expect(during).toBeInstanceOf(TypeError);
    expect((during as Error).message).toBe("terminated");
  });

  test("a status fetch cannot represent rejects as a failed fetch", async () => {
    const server = createTcpServer((socket) => {
      socket.once("data", () => socket.end("HTTP/1.1 600 Odd\r\ncontent-length: 0\r\n\r\n"));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const port = (server.address() as AddressInfo).port;
    try {
      const error = await rejection(httpFetch(`http://127.0.0.1:${port}/`, { method: "POST" }));
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe("fetch failed");
    } finally {
      server.close();
    }
  });

  test("a reply cut short errors the body with fetch's TypeError: terminated", async () => {
    const { url } = await serve((_request, _body, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("event: one\n\n", () => response.destroy());
    });
    const reply = await httpFetch(url, { method: "POST", body: "{}" });
    const error = await rejection(reply.text());
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe("terminated");
  });

  test("a compressed reply is decompressed, as fetch would", async () => {
    const { url } = await serve((_request, _body, response) => {
      response.writeHead(200, { "content-encoding": "gzip", "content-type": "application/json" });
      response.end(gzipSync('{"compressed":true}'));
    });
    const reply = await httpFetch(url, { method: "POST", body: "{}" });
    expect(await reply.json()).toEqual({ compressed: true });
  });

  test("a redirect is sent again through fetch, which follows it with the body", async () => {
    const { url } = await serve((request, body, response) => {
      if (request.url === "/old") {
        response.writeHead(307, { location: "/new" });
        response.end();
      } else response.end(`${request.url} got ${body}`);
    });
    const global = vi.spyOn(globalThis, "fetch");
    const reply = await httpFetch(`${url}/old`, { method: "POST", body: '{"a":1}' });
    expect(await reply.text()).toBe('/new got {"a":1}');
    expect(global).toHaveBeenCalledTimes(1);
  });

  test.each([
    ["a body that is not a string", { method: "POST", body: new Uint8Array([123, 125]) }],
    ["an option it does not handle", { method: "POST", body: "{}", redirect: "manual" }],
  ] as const)("a request with %s goes to the global fetch as it is", async (_case, init) => {
    const { url } = await serve((_request, body, response) => response.end(`got ${body}`));
    const global = vi.spyOn(globalThis, "fetch");
    const reply = await httpFetch(url, init as RequestInit);
    expect(await reply.text()).toBe("got {}");
    expect(global).toHaveBeenCalledWith(url, init);
  });
});

describe("isGlobalFetchConfigured", () => {
  test("Node's proxy support, by variable or flag, keeps fetch", () => {
    expect(isGlobalFetchConfigured({}, [], false)).toBe(false);
    expect(isGlobalFetchConfigured({ NODE_USE_ENV_PROXY: "1" }, [], false)).toBe(true);
    expect(isGlobalFetchConfigured({ NODE_USE_ENV_PROXY: "0" }, [], false)).toBe(false);
    expect(isGlobalFetchConfigured({}, ["--use-env-proxy"], false)).toBe(true);
    expect(
      isGlobalFetchConfigured(
        { NODE_OPTIONS: "--max-old-space-size=200 --use-env-proxy" },
        [],
        false,
      ),
    ).toBe(true);
    expect(isGlobalFetchConfigured({ NODE_USE_ENV_PROXY: "" }, ["--no-use-env-proxy"], false)).toBe(
      false,
    );
    // A dispatcher a preload installed (a proxy agent, custom certificates) keeps fetch too.
    expect(isGlobalFetchConfigured({}, [], true)).toBe(true);
    // The proxy variables alone change neither fetch nor node:http (without Node's switch).
    expect(isGlobalFetchConfigured({ HTTPS_PROXY: "http://proxy:3128" }, [], false)).toBe(false);
  });
});
