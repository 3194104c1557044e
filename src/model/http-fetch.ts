import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";

/** The `RequestInit` fields handled here; a request with any other goes to the global `fetch`. */
const HANDLED_OPTIONS = new Set(["body", "headers", "method", "signal"]);

/** Statuses a Response cannot have a body with. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/** Redirects `fetch` follows (given a Location). */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Whether an undici dispatcher existed before this module loaded: a preload (`--import`,
 * `--require`) installed one with undici's `setGlobalDispatcher`, or used `fetch`, `Headers` or
 * `Response`, which makes Node install its default one. agent-run uses them only later.
 */
const hasPresetDispatcher = Symbol.for("undici.globalDispatcher.1") in globalThis;

/** How long a request may wait, as undici's fetch does: to connect, and for each next byte. */
export type HttpTimeouts = { connectMs: number; idleMs: number };

/**
 * `fetch` for the SDK's model requests over `node:http`/`node:https` and their global keep-alive
 * agents. Node's own `fetch` (undici) spends ~0.3 ms more CPU per request, more on a long
 * conversation's body: its fetch algorithm, the body turned into bytes, web streams on both sides.
 *
 * Handled here: a string body (or none) with its method and headers, sent as given (no
 * `accept-encoding` is added; a reply compressed anyway is decompressed, as fetch would); the
 * signal (before the reply, the promise rejects with its reason; during the body, the body errors
 * with it); a network failure or a connection silent for too long rejects as fetch's do
 * (`TypeError: fetch failed`, with the cause), and a body cut short errors (`TypeError:
 * terminated`). Everything else goes to the global `fetch` as it is: another kind of body or URL,
 * any other option, and a redirect (sent again to the same URL through `fetch`, which follows it
 * as the spec says; a redirect means the server processed nothing).
 */
export function createHttpFetch(
  timeouts: HttpTimeouts = { connectMs: 10_000, idleMs: 300_000 },
): typeof fetch {
  return (input, init) => {
    const url = toHttpUrl(input);
    const body = init?.body;
    const isHandled =
      url !== undefined &&
      (body === undefined || body === null || typeof body === "string") &&
      Object.entries(init ?? {}).every(
        ([key, value]) => value === undefined || HANDLED_OPTIONS.has(key),
      );
    if (!isHandled) return globalThis.fetch(input, init);
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const method = init?.method ?? "GET";
    return new Promise((resolve, reject) => {
      let stopBody: ((reason: unknown) => void) | undefined;
      const onAbort = () => {
        if (stopBody !== undefined) return stopBody(signal?.reason);
        request.destroy();
        reject(signal?.reason);
      };
      const release = () => signal?.removeEventListener("abort", onAbort);
      const transport = url.protocol === "https:" ? https : http;
      const headers = Object.fromEntries(new Headers(init?.headers));
      const request = transport.request(url, { method, headers }, (response) => {
        const status = response.statusCode ?? 0;
        if (REDIRECT_STATUSES.has(status) && response.headers.location !== undefined) {
          response.resume();
          release();
          resolve(globalThis.fetch(input, init));
          return;
        }
        const reply = toResponse(response, { url, method, onSettled: release });
        stopBody = reply.stop;
        if (reply.response === undefined) {
          // A status fetch cannot represent (outside 200-599).
          reject(new TypeError("fetch failed", { cause: new Error(`HTTP status ${status}`) }));
        } else resolve(reply.response);
      });
      limitWaits(request, timeouts);
      request.on("error", (error) => {
        // Once the reply started, its body reports the failure (see toBodyStream).
        if (stopBody !== undefined) return;
        release();
        reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: error }));
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      // Encoded once: given a string, node:http would measure it for content-length, then encode it.
      request.end(typeof body === "string" ? Buffer.from(body) : undefined);
    });
  };
}

/** `createHttpFetch` with undici's waits: 10 s to connect, 300 s for each next byte. */
export const httpFetch = createHttpFetch();

/**
 * Whether this process configured the global `fetch`'s own transport, which `httpFetch` would
 * bypass: an undici dispatcher installed by a preload (a proxy agent or custom certificates, say;
 * see `hasPresetDispatcher`), or Node's proxy support (`NODE_USE_ENV_PROXY=1`, `--use-env-proxy`).
 * Then the SDK keeps `fetch`.
 */
export function isGlobalFetchConfigured(
  env: Readonly<Record<string, string | undefined>>,
  execArgv: readonly string[] = process.execArgv,
  hasDispatcher = hasPresetDispatcher,
): boolean {
  if (hasDispatcher) return true;
  const proxySwitch = env.NODE_USE_ENV_PROXY;
  if (proxySwitch !== undefined && proxySwitch !== "" && proxySwitch !== "0") return true;
  const flags = [...execArgv, ...(env.NODE_OPTIONS ?? "").split(/\s+/)];
  return flags.some((flag) => flag === "--use-env-proxy" || flag === "--use_env_proxy");
}

function toHttpUrl(input: Parameters<typeof fetch>[0]): URL | undefined {
  if (typeof input !== "string" && !(input instanceof URL)) return undefined;
  const url = URL.parse(String(input));
  return url?.protocol === "http:" || url?.protocol === "https:" ? url : undefined;
}

/**
 * Ends the request with a "timed out" error (which the SDK counts as a timeout, and retries) when
 * connecting takes longer than `connectMs`, or no byte moves for `idleMs`.
 */
function limitWaits(request: http.ClientRequest, timeouts: HttpTimeouts): void {
  request.setTimeout(timeouts.idleMs, () => {
    request.destroy(new Error(`timed out: nothing received for ${timeouts.idleMs} ms`));
  });
  request.once("socket", (socket) => {
    if (!socket.connecting) return;
    const timer = setTimeout(() => {
      request.destroy(new Error(`timed out connecting after ${timeouts.connectMs} ms`));
    }, timeouts.connectMs);
    socket.once("connect", () => clearTimeout(timer));
    socket.once("close", () => clearTimeout(timer));
  });
}

/**
 * The Response for a reply, and how to stop its body (the signal aborted). `onSettled` runs once
 * the body has ended, failed or been cancelled (at once when there is none). No response when
 * the status is one fetch cannot represent.
 */
function toResponse(
  reply: IncomingMessage,
  request: { url: URL; method: string; onSettled: () => void },
): { response: Response | undefined; stop: (reason: unknown) => void } {
  const status = reply.statusCode ?? 0;
  const hasBody = !NULL_BODY_STATUSES.has(status) && request.method !== "HEAD";
  const body = hasBody ? toBodyStream(reply, request.onSettled) : undefined;
  if (!hasBody) {
    reply.resume();
    request.onSettled();
  }
  const headers = new Headers();
  for (const [name, values] of Object.entries(reply.headersDistinct)) {
    for (const value of values ?? []) headers.append(name, value);
  }
  const stop = body?.stop ?? (() => reply.destroy());
  try {
    const response = new Response(body?.stream ?? null, {
      status,
      statusText: reply.statusMessage ?? "",
      headers,
    });
    Object.defineProperty(response, "url", { value: request.url.href });
    return { response, stop };
  } catch {
    stop(undefined);
    return { response: undefined, stop };
  }
}

/**
 * The reply's body as a web stream, read as the consumer pulls. `stop` errors it with a reason
 * (the signal's) and drops the connection. It errors with `TypeError: terminated` when the bytes
 * stop before their end. `onSettled` runs once it has ended, failed or been cancelled.
 */
function toBodyStream(
  reply: IncomingMessage,
  onSettled: () => void,
): { stream: ReadableStream<Uint8Array>; stop: (reason: unknown) => void } {
  const source = decodeBody(reply);
  let isSettled = false;
  let control: ReadableStreamDefaultController<Uint8Array> | undefined;
  const settle = (finish: () => void) => {
    if (isSettled) return;
    isSettled = true;
    onSettled();
    finish();
  };
  const drop = () => {
    source.destroy();
    reply.destroy();
  };
  const stop = (reason: unknown) => {
    settle(() => control?.error(reason));
    drop();
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      control = controller;
      source.on("data", (chunk: Buffer) => {
        if (isSettled) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) source.pause();
      });
      source.on("end", () => settle(() => controller.close()));
      // After "end", "close" finds the body settled: nothing is cut short.
      const cutShort = (cause?: unknown) => {
        if (isSettled) return;
        settle(() => controller.error(new TypeError("terminated", { cause })));
        drop();
      };
      source.on("error", cutShort);
      source.on("close", () => cutShort(new Error("the connection closed before the reply ended")));
    },
    pull() {
      source.resume();
    },
    cancel() {
      settle(() => {});
      drop();
    },
  });
  return { stream, stop };
}

/**
 * The reply's bytes, decompressed when the server compressed them with gzip, deflate or br (only
 * a proxy that ignores the request's headers would). Other or stacked encodings pass as they are.
 */
function decodeBody(reply: IncomingMessage): Readable {
  const encoding = reply.headers["content-encoding"]?.trim().toLowerCase();
  if (encoding === undefined || encoding === "identity") return reply;
  // Loaded only here: agent-run never asks for compression.
  const zlib = process.getBuiltinModule("node:zlib");
  const flush = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? zlib.createGunzip(flush)
      : encoding === "deflate"
        ? zlib.createInflate(flush)
        : encoding === "br"
          ? zlib.createBrotliDecompress()
          : undefined;
  if (decoder === undefined) return reply;
  reply.on("error", (error) => decoder.destroy(error));
  reply.on("close", () => {
    if (!reply.complete) decoder.destroy(new Error("the reply ended early"));
  });
  return reply.pipe(decoder);
}
